# memlimit: a membw client over its MPS pinned memory limit (mps+mem=2G) -> OUT_DIR/memlimit; expect status
# mps_mem_limit (rc 1).

"$bench" --workloads membw --membw-mib 1024 --modes mps+mem=2G --procs 1 --repeats 1 --timeout 60 \
  --out "$out/runs/memlimit" >"$out/memlimit.log" 2>&1
echo "memlimit: rc=$? (expect 1) $(python3 scripts/show_columns.py "$out/runs/memlimit/summary.csv" status reason)"
