# rangecost: what following an NVTX range costs a step. tests/programs/nvtx_steps (build/tests/nvtx_steps: 5000
# training steps of about 0.2 ms, each pushed and popped, no evaluation) under the profiler directly (no harness, no
# gate), pinned to one core, RANGECOST_PAIRS (8) pairs without and with --exec-unit-range's environment
# (BENCH_MPS_UNIT_RANGE=train, NVTX_INJECTION64_PATH naming the library), the order alternating by pair; each run's
# wait-to-wait step from its profile (bench_mps profile) -> OUT_DIR/runs/rangecost/<pair>-<off|on>, the lines also in
# OUT_DIR/rangecost.log; then the median of each arm and of the pairs' on / off.
lib="$here/build/harness/libbench_mps_profiler.so"
: >"$out/rangecost.log"
for i in $(seq 1 "${RANGECOST_PAIRS:-8}"); do
  order=(off on); [ $((i % 2)) = 0 ] && order=(on off)
  for v in "${order[@]}"; do
    dir="$out/runs/rangecost/$i-$v"; mkdir -p "$dir"
    extra=(); [ "$v" = on ] && extra=(BENCH_MPS_UNIT_RANGE=train NVTX_INJECTION64_PATH="$lib")
    env CUDA_INJECTION64_PATH="$lib" BENCH_MPS_PROFILE_DIR="$dir" "${extra[@]}" \
      taskset -c 2 build/tests/nvtx_steps 5000 0 1 >"$dir/stdout.log" 2>&1 || echo "  rangecost $i $v: rc=$?"
    wait_step=$("$bench" profile "$dir"/profile-*.json 2>&1 | sed -n 's/.*per wait-to-wait step: \([0-9.]*\) ms long.*/\1/p')
    echo "pair $i range $v: step ${wait_step:-?} ms" | tee -a "$out/rangecost.log" | sed 's/^/  /'
  done
done
python3 - "$out/rangecost.log" <<'PY'
import re, statistics, sys
arms, pairs = {"off": {}, "on": {}}, []
for line in open(sys.argv[1]):
    m = re.match(r"pair (\d+) range (on|off): step ([0-9.]+) ms", line)
    if m:
        arms[m.group(2)][int(m.group(1))] = float(m.group(3))
both = sorted(set(arms["on"]) & set(arms["off"]))
ratios = [arms["on"][i] / arms["off"][i] for i in both]
if ratios:
    print(f"  rangecost: {len(both)} pairs, on / off per pair median {statistics.median(ratios):.4f}x "
          f"({min(ratios):.4f}x-{max(ratios):.4f}x); median on {statistics.median(arms['on'].values()):.5f} ms, "
          f"median off {statistics.median(arms['off'].values()):.5f} ms")
PY
