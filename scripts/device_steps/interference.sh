# interference: mlp-infer beside 3 fillers at 60%, timeslice, mps, mps+prio, mps:auto, REPEATS (3) repeats
# -> OUT_DIR/interference; prints the foreground's latency and throughput against alone and the background's kept.

"$bench" --scenario interference --procs 4 --modes timeslice,mps,mps+prio,mps:auto --repeats "${REPEATS:-3}" \
  --out "$out/runs/interference" >"$out/interference.log" 2>&1
echo "interference: rc=$?"
python3 scripts/show_columns.py "$out/runs/interference/summary.csv" run_id status fg_latency_p50_ms fg_latency_p99_ms \
  fg_p99_vs_alone fg_throughput_vs_alone bg_throughput_kept fg_overlap gpu_util_mean | sed 's/^/  /'
