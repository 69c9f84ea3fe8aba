# membw: the memory-bound triad, timeslice and mps, N=1,2,4 -> OUT_DIR/membw; prints the table, the workers' facts
# and GPM's DRAM bandwidth and SM use.

"$bench" --workloads membw --modes timeslice,mps --procs 1,2,4 --repeats 3 --out "$out/runs/membw" >"$out/membw.log" 2>&1
echo "membw: rc=$?"; sed -n '/^workload/,/^$/p' "$out/membw.log"
python3 scripts/show_columns.py "$out/runs/membw/runs.csv" run_id worker facts --where repeat=1 | sed 's/^/  /'
python3 scripts/show_columns.py "$out/runs/membw/summary.csv" run_id gpm_dram_bw_util gpm_sm_util --where repeat=1 | sed 's/^/  /'
