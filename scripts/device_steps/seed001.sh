# seed001: mlp --mlp-profile seed001 (the seed's point), N=1,5,10, time-sliced and MPS, 3 repeats (REPEATS=k for more)
# -> OUT_DIR/seed001; prints the table and the burst and busy share of the N=1 runs.

# The seed's point (docs/SEED001.md), its basis: N copies' completion against one copy alone.
"$bench" --workloads mlp --mlp-profile seed001 --procs 1,5,10 --modes timeslice,mps --repeats "${REPEATS:-3}" \
  --out "$out/runs/seed001" >"$out/seed001.log" 2>&1
echo "seed001: rc=$?"; sed -n '/^workload/,/^$/p' "$out/seed001.log"
python3 scripts/show_columns.py "$out/runs/seed001/summary.csv" run_id makespan_s burst_ms gpu_busy_share gpu_util_mean \
  gpm_sm_util --where procs=1 | sed 's/^/  /'
