# hostcal[:KINDS]: the host calibration (issue 45 item 3; docs/PREDICT.md "The host, calibrated"): N copies of
# scripts/host_calibration/host_loop.py KIND (default launch,cpu), each pinned to its own core, released together
# by the start gate at their first kernel, at N = HOSTCAL_PROCS (1,2,4,10), time-sliced and under MPS, 2 repeats
# (the runs alone three per mode, first, middle, last) -> OUT_DIR/runs/hostcal/<kind>. Each copy's unit is its own
# summary line (the mean of its timed steps: the launching alone, or the arithmetic). Prints each run's copies.
kinds="${step#hostcal}"; kinds="${kinds#:}"; [ -z "$kinds" ] && kinds=launch,cpu
IFS=, read -r -a hk <<<"$kinds"
for k in "${hk[@]}"; do
  if past_deadline; then echo "hostcal $k: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  d="$out/runs/hostcal/$k"; mkdir -p "$(dirname "$d")"
  s0=$(date +%s)
  "$bench" --workloads exec --command "python3 scripts/host_calibration/host_loop.py $k" \
    --exec-metric '([0-9.]+) ms each' --procs "${HOSTCAL_PROCS:-1,2,4,10}" --modes timeslice,mps --repeats 2 \
    --exec-gate first-kernel --out "$d" >"$out/hostcal-$k.log" 2>&1
  echo "hostcal $k: rc=$? in $(( $(date +%s) - s0 )) s"
  python3 scripts/show_columns.py "$d/runs.csv" run_id worker status facts 2>&1 | \
    sed -E 's/ [^ ]*(step_mean_ms=[0-9.]+).*(core=[0-9]+).*/ \1 \2/' | head -80 | sed 's/^/  /'
done
