# fault: bench_mps --scenario fault --procs 4 -> OUT_DIR/fault; prints its fault isolation table.
# (One fault-injecting client beside the others: do they survive it, time-sliced and under MPS?)

"$bench" --scenario fault --procs 4 --out "$out/runs/fault" >"$out/fault.log" 2>&1
echo "fault: rc=$?"; sed -n '/^fault isolation/,$p' "$out/fault.log"
