# exec: the PyTorch reference client (scripts/examples/mnist_train.py) through exec, N=1,5,10, time-sliced and MPS
# -> OUT_DIR/exec, and alone for 3 epochs -> OUT_DIR/util-exec; prints the table and the runs' MPS proofs.

client="python3 scripts/examples/mnist_train.py"
"$bench" --workloads exec --command "$client --epochs 3" --exec-metric 'step_ms=([0-9.]+)' --procs 1 \
  --modes timeslice --repeats 1 --out "$out/runs/util-exec" >"$out/util-exec.log" 2>&1
echo "exec (alone, 3 epochs): rc=$?"
"$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1,5,10 \
  --modes timeslice,mps --repeats 3 --out "$out/runs/exec" >"$out/exec.log" 2>&1
echo "exec: rc=$?"; sed -n '/^workload/,/^$/p' "$out/exec.log"
grep -ho "mps_proof=[a-z_]*" "$out/runs/exec/runs.csv" | sort | uniq -c
