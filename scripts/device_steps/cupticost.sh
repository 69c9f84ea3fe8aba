# cupticost: what the start gate's CUPTI callbacks leave in a process once the gate has opened, per CUDA call
# (bench/bench_cupti_after_gate: an empty launch and a cudaStreamSynchronize a step, BM_SyncStep, and cuda-graphs'
# step shape, BM_GraphStep: two copies, a graph replayed, a read back; timed on the host), each state
# in a process of its own: never, callbacks (kept on), unsubscribed (the default), detached (cuptiFinalize).
# CUPTICOST_ROUNDS (5) rounds, the order reversed every other round -> OUT_DIR/cupticost/<state>-<i>.json and .log;
# prints each run's steps; scripts/cupti_cost.py [--step BM_GraphStep] OUT_DIR the ratios to never.
mkdir -p "$out/runs/cupticost"
states=(never callbacks unsubscribed detached)
for i in $(seq 1 "${CUPTICOST_ROUNDS:-5}"); do
  if past_deadline; then echo "cupticost round $i: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  order=("${states[@]}")  # even rounds run the states in reverse
  if [ $((i % 2)) = 0 ]; then order=(); for ((j = ${#states[@]} - 1; j >= 0; j--)); do order+=("${states[j]}"); done; fi
  for s in "${order[@]}"; do
    f="$out/runs/cupticost/$s-$i"  # under runs/: device_check packs that folder
    build/bench/bench_cupti_after_gate --cupti="$s" --benchmark_min_time=2 \
      --benchmark_out="$f.json" --benchmark_out_format=json >"$f.log" 2>&1
    rc=$?
    echo "cupticost $s-$i: rc=$rc $(grep -E '^BM_(Sync|Graph)Step' "$f.log" | tr -s ' ' | paste -sd ';')"
    [ "$rc" = 0 ] || { echo "cupticost $s-$i: $(tail -1 "$f.log")"; step_failed "cupticost $s-$i"; }
  done
done
