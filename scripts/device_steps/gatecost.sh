# gatecost[:NAMES]: what the start gate costs one copy alone: each zoo program (default gemm,cuda-graphs) at N=1,
# time-sliced, GATECOST_PAIRS (3) rounds of runs with --exec-gate steady and off, the order alternating, each its own
# sweep (one warm-up, no --profile-gpu: the gate alone) -> OUT_DIR/runs/gatecost/<name>/<gate>-<i>. GATECOST_ARMS
# ("steady off") names the arms of a round: `steady` is the build's default (since 2026-12-04 CUPTI detached once
# the gate opens; meta.json's exec_gate.after_open), `keep` steady with BENCH_MPS_GATE_CALLBACKS=keep (the gate's
# callbacks left on after it opens, as the library had them before 2026-12-02), `unsubscribe` steady with them
# switched off (the default from 2026-12-02 to 2026-12-04), `detach` steady with BENCH_MPS_GATE_CALLBACKS=detach
# (cuptiFinalize), `waitK` the default with `--exec-gate wait:K` (a point given: no profiled warm-up). The unit is
# the program's own summary line ("<ms> ms each", its timed iterations' mean). Prints each run, and any line a copy
# wrote about the gate; scripts/gate_cost.py the ratios.
names="${step#gatecost}"; names="${names#:}"; [ -z "$names" ] && names=gemm,cuda-graphs
IFS=, read -r -a progs <<<"$names"
read -r -a arms <<<"${GATECOST_ARMS:-steady off}"
for p in "${progs[@]}"; do
  zoo/run.sh --prepare "$p" >"$out/gatecost-$p-prepare.log" 2>&1
  for i in $(seq 1 "${GATECOST_PAIRS:-3}"); do
    if past_deadline; then echo "gatecost $p round $i: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
    order=("${arms[@]}")  # even rounds run the arms in reverse
    if [ $((i % 2)) = 0 ]; then order=(); for ((j = ${#arms[@]} - 1; j >= 0; j--)); do order+=("${arms[j]}"); done; fi
    for g in "${order[@]}"; do
      d="$out/runs/gatecost/$p/$g-$i"; mkdir -p "$(dirname "$d")"
      gate="$g"; after=""
      case "$g" in keep | unsubscribe | detach) gate=steady; after="$g" ;; wait[0-9]*) gate="wait:${g#wait}" ;; esac
      BENCH_MPS_GATE_CALLBACKS="$after" "$bench" --workloads exec --command "zoo/run.sh $p" \
        --exec-metric '([0-9.]+) ms each' --procs 1 --modes timeslice --repeats 1 --exec-gate "$gate" --out "$d" \
        >"$out/gatecost-$p-$g-$i.log" 2>&1
      echo "gatecost $p $g-$i: rc=$? $(python3 scripts/show_columns.py "$d/runs.csv" status facts | tr '\n' ' ' | \
        grep -oE 'ok|step_mean_ms=[0-9.]+|gate_held_s=[0-9.e-]+|gate_arrived=[01]' | paste -sd' ')"
      grep -h "bench_mps start gate" "$d"/exec/*/w*.stderr 2>/dev/null | sort | uniq -c |
        sed "s/^/  gatecost $p $g-$i:/"
    done
  done
done
