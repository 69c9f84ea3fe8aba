#pragma once
// The door of harness/predict/: `bench_mps predict`, N copies of a program predicted from one profiled copy
// alone and the X-ray, by the simulator (harness/simulate), beside the naive and the regime model's
// predictions, and measured units of a sweep to score them against (docs/PREDICT.md).
// Every header of this wing includes this one, so a target that does not link bench_mps::predict cannot
// include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_PREDICT
#error \
    "harness/predict/ is not linked by this target: link bench_mps::predict, or see docs/ARCHITECTURE.md for who may use whom"
#endif
