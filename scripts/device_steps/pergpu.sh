# pergpu: --device 0 (the GPU by its UUID, its own daemon) and --gpus all, spin N=1,2 -> OUT_DIR/device0, gpus;
# prints each run's status and the fleet report's end.

"$bench" --device 0 --workloads spin --modes timeslice,mps --procs 1,2 --repeats 1 --tasks 10 \
  --out "$out/runs/device0" >"$out/device0.log" 2>&1
echo "pergpu: --device 0 -> rc=$? $(python3 scripts/show_columns.py "$out/runs/device0/summary.csv" run_id status | tr '\n' ' ')"
BENCH_MPS_NO_BUILD=1 scripts/run.sh --gpus all --workloads spin --modes timeslice,mps --procs 1,2 --repeats 1 --tasks 10 \
  --out "$out/runs/gpus" >"$out/gpus.log" 2>&1
echo "pergpu: --gpus all -> rc=$?"; tail -5 "$out/gpus.log" | sed 's/^/  /'
