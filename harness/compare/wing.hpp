#pragma once
// The door of harness/compare/: `bench_mps compare`.
// Every header of this wing includes this one, so a target that does not link bench_mps::compare
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_COMPARE
#error \
    "harness/compare/ is not linked by this target: link bench_mps::compare, or see docs/ARCHITECTURE.md for who may use whom"
#endif
