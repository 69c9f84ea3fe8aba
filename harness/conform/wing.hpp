#pragma once
// The door of harness/conform/: `bench_mps conform`, the PASS/FAIL table of MPS's levers.
// Every header of this wing includes this one, so a target that does not link bench_mps::conform
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_CONFORM
#error \
    "harness/conform/ is not linked by this target: link bench_mps::conform, or see docs/ARCHITECTURE.md for who may use whom"
#endif
