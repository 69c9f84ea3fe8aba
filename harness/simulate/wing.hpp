#pragma once
// The door of harness/simulate/: the trace-driven simulator of N copies of one program sharing a GPU,
// time-sliced and under MPS (docs/PREDICT.md). Pure arithmetic over a copy's trace: no process, file or
// GPU. Every header of this wing includes this one, so a target that does not link bench_mps::simulate
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_SIMULATE
#error \
    "harness/simulate/ is not linked by this target: link bench_mps::simulate, or see docs/ARCHITECTURE.md for who may use whom"
#endif
