#pragma once
// The door of harness/common/: helpers every wing may use (errors, formatting, statistics, tables, files, child processes, /proc).
// Every header of this wing includes this one, so a target that does not link bench_mps::common
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_COMMON
#error \
    "harness/common/ is not linked by this target: link bench_mps::common, or see docs/ARCHITECTURE.md for who may use whom"
#endif
