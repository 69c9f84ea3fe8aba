#pragma once
// The door of harness/plan/: the sweep's options and the runs it plans.
// Every header of this wing includes this one, so a target that does not link bench_mps::plan
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_PLAN
#error \
    "harness/plan/ is not linked by this target: link bench_mps::plan, or see docs/ARCHITECTURE.md for who may use whom"
#endif
