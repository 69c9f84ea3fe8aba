#pragma once
// The door of harness/model/: the models of a shared GPU that report, predict and advise set beside their
// measurements: the regime model (regime_model), the scheduler as the X-ray saw it (xray_scheduler) and one
// row per scheduler model (scheduler_models: its mode, its arbiter in the simulator, its naive and regime
// rules). Every header of this wing includes this one, so a target that does not link bench_mps::model
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_MODEL
#error \
    "harness/model/ is not linked by this target: link bench_mps::model, or see docs/ARCHITECTURE.md for who may use whom"
#endif
