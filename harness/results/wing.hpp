#pragma once
// The door of harness/results/: the results folder: row types, the column schema, writer, reader, meta.json.
// Every header of this wing includes this one, so a target that does not link bench_mps::results
// cannot include them either (the layering in docs/ARCHITECTURE.md, enforced by the compiler).
#ifndef BENCH_MPS_WING_RESULTS
#error \
    "harness/results/ is not linked by this target: link bench_mps::results, or see docs/ARCHITECTURE.md for who may use whom"
#endif
