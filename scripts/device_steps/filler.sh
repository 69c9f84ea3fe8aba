# filler: the filler alone at 30, 60 and 90% -> OUT_DIR/filler-<target>; prints the utilisation NVML and GPM saw
# and the run's facts.

for t in 30 60 90; do
  "$bench" --workloads filler --filler-target "$t" --procs 1 --modes timeslice --repeats 1 \
    --out "$out/runs/filler-$t" >"$out/filler-$t.log" 2>&1
  echo "filler $t%: rc=$? gpu_util_mean gpu_util_samples gpm_sm_util: $(python3 scripts/show_columns.py \
    "$out/runs/filler-$t/summary.csv" gpu_util_mean gpu_util_samples gpm_sm_util) facts: $(python3 \
    scripts/show_columns.py "$out/runs/filler-$t/runs.csv" facts)"
done
