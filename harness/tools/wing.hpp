#pragma once
// The door of harness/tools/: what the verbs built on child sweeps share (conform, advise, advise --beside):
// the child sweeps under one time budget, the tool's setup and its session.
// Every header of this wing includes this one, so a target that does not link bench_mps::tools
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_TOOLS
#error \
    "harness/tools/ is not linked by this target: link bench_mps::tools, or see docs/ARCHITECTURE.md for who may use whom"
#endif
