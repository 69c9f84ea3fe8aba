#pragma once
// The door of harness/profiler/: the GPU profiler injected into users' programs (not a wing of the
// harness: it links no wing). Its headers are standard C++ only; the targets that may include them
// link bench_mps_profile_format (the recorder, the library, and results, which reads the profiles).
#ifndef BENCH_MPS_WING_PROFILER
#error \
    "harness/profiler/ is not linked by this target: link bench_mps_profile_format, or see docs/ARCHITECTURE.md for who may use whom"
#endif
