# execwarm: the PyTorch reference client at N=1, time-sliced and MPS, 3 repeats, default exec warm-up
# -> OUT_DIR/execwarm (time-sliced and MPS should agree within 3%).

client="python3 scripts/examples/mnist_train.py"
"$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1 \
  --modes timeslice,mps --repeats 3 --out "$out/runs/execwarm" >"$out/execwarm.log" 2>&1
echo "execwarm: rc=$?"; sed -n '/^workload/,/^$/p' "$out/execwarm.log"
grep -E "warm-up|slower" "$out/execwarm.log" | sed 's/^/  /'
python3 scripts/show_columns.py "$out/runs/execwarm/summary.csv" run_id status makespan_s | sed 's/^/  /'
