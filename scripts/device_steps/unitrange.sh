# unitrange: --exec-unit-range on a PyTorch program that marks its training steps with NVTX
# (tests/programs/torch_phases.py: 3 epochs of 400 training steps in "train_step", each then a test pass of 100
# steps): N = UNITRANGE_PROCS (1,2,4), both modes, UNITRANGE_REPEATS (1) repeats, gated, profiled, following
# "train_step" -> OUT_DIR/runs/unitrange/marked; predict --measure on it, and on a copy whose profiles have their
# unit_range taken out (scripts/without_unit_range.py: the steps' lengths choose, as before --exec-unit-range)
# -> OUT_DIR/runs/unitrange/lengths. Prints each folder's units per mode and N (median, co-run copies, the phase
# kept) and the program's own step_ms line; then UNITRANGE_COST_PAIRS (3) pairs for the range's cost (below).
python3 -c 'import torch; x = torch.ones(64, 64, device="cuda"); (x @ x).sum().item()' >/dev/null 2>&1
d="$out/runs/unitrange/marked"; mkdir -p "$(dirname "$d")"
s0=$(date +%s)
"$bench" --workloads exec --command "python3 tests/programs/torch_phases.py" --procs "${UNITRANGE_PROCS:-1,2,4}" \
  --modes timeslice,mps --repeats "${UNITRANGE_REPEATS:-1}" --profile-gpu --exec-unit-range train_step --out "$d" \
  >"$out/unitrange.log" 2>&1
echo "unitrange sweep: rc=$? in $(( $(date +%s) - s0 )) s"
grep -hE "^step_ms" "$d"/exec/*/w0.stdout 2>/dev/null | head -2 | sed 's/^/  program: /'
python3 scripts/without_unit_range.py "$d" "$out/runs/unitrange/lengths"
for v in marked lengths; do
  "$bench" predict --measure "$out/runs/unitrange/$v" >"$out/unitrange-$v-measure.log" 2>&1 || echo "  $v measure: rc=$?"
  python3 scripts/units_by_cell.py "$out/runs/unitrange/$v" --label "$v" --phase
done
# The range's cost on the program's own step: UNITRANGE_COST_PAIRS (3) alternated pairs of one copy alone under the
# profiler directly (no harness, no gate), without the range and with it; each run's step_ms line.
lib="$here/build/harness/libbench_mps_profiler.so"
for i in $(seq 1 "${UNITRANGE_COST_PAIRS:-3}"); do
  for v in off on; do
    dir="$out/runs/unitrange/cost/$i-$v"; mkdir -p "$dir"
    extra=(); [ "$v" = on ] && extra=(BENCH_MPS_UNIT_RANGE=train_step NVTX_INJECTION64_PATH="$lib")
    line=$(env CUDA_INJECTION64_PATH="$lib" BENCH_MPS_PROFILE_DIR="$dir" "${extra[@]}" \
      taskset -c 2 python3 tests/programs/torch_phases.py 2>"$dir/stderr.log" | tail -1)
    echo "  cost pair $i range $v: $line" | tee -a "$out/unitrange-cost.log"
  done
done
