#pragma once
// The door of harness/workers/: what a worker runs and the protocol it speaks with the pool (bench_worker links only this, kernels and common).
// Every header of this wing includes this one, so a target that does not link bench_mps::workers
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_WORKERS
#error \
    "harness/workers/ is not linked by this target: link bench_mps::workers, or see docs/ARCHITECTURE.md for who may use whom"
#endif
