#pragma once
// The door of harness/advise/: `bench_mps advise`, will MPS help this program? It profiles one copy,
// predicts from the regime model, verifies with a ladder of child sweeps and recommends.
// Every header of this wing includes this one, so a target that does not link bench_mps::advise
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_ADVISE
#error \
    "harness/advise/ is not linked by this target: link bench_mps::advise, or see docs/ARCHITECTURE.md for who may use whom"
#endif
