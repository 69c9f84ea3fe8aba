#pragma once
// The door of harness/gpu/: NVML and the sampler that reads it during a run.
// Every header of this wing includes this one, so a target that does not link bench_mps::gpu
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_GPU
#error \
    "harness/gpu/ is not linked by this target: link bench_mps::gpu, or see docs/ARCHITECTURE.md for who may use whom"
#endif
