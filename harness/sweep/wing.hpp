#pragma once
// The door of harness/sweep/: running a sweep (worker pool, preflight, run loop, resume, fault scenario).
// Every header of this wing includes this one, so a target that does not link bench_mps::sweep
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_SWEEP
#error \
    "harness/sweep/ is not linked by this target: link bench_mps::sweep, or see docs/ARCHITECTURE.md for who may use whom"
#endif
