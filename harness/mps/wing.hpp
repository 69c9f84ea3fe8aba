#pragma once
// The door of harness/mps/: the MPS control daemon and the GPU's compute mode.
// Every header of this wing includes this one, so a target that does not link bench_mps::mps
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_MPS
#error \
    "harness/mps/ is not linked by this target: link bench_mps::mps, or see docs/ARCHITECTURE.md for who may use whom"
#endif
