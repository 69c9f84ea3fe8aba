# modes: spin in every in-process mode (streams, threads, green) beside timeslice and mps, N=1,2,4 -> OUT_DIR/modes;
# prints the table and the SMs each in-process worker saw.

"$bench" --workloads spin --modes timeslice,mps,streams,threads,green --procs 1,2,4 --repeats 3 \
  --out "$out/runs/modes" >"$out/modes.log" 2>&1
echo "modes: rc=$?"; sed -n '/^workload/,/^$/p' "$out/modes.log"
python3 scripts/show_columns.py "$out/runs/modes/runs.csv" run_id worker sm_count_seen task_mean_ms --where repeat=1 \
  | grep -E "green|streams|threads" | sed 's/^/  /'
