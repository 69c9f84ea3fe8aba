#pragma once
// The door of harness/report/: `bench_mps report`.
// Every header of this wing includes this one, so a target that does not link bench_mps::report
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_REPORT
#error \
    "harness/report/ is not linked by this target: link bench_mps::report, or see docs/ARCHITECTURE.md for who may use whom"
#endif
