# bench: the Google Benchmark micro-benchmarks (build/bench/bench_workloads) -> OUT_DIR/bench.json, bench.log;
# prints each benchmark's line.

build/bench/bench_workloads --benchmark_min_time=0.2 --benchmark_out="$out/bench.json" \
  --benchmark_out_format=json >"$out/bench.log" 2>&1
echo "bench: rc=$?"; grep -E "^BM_" "$out/bench.log"
