# mpscal[:KINDS]: the MPS contention calibration (issue 45 item 2; docs/PREDICT.md "MPS contention, calibrated"):
# N copies of scripts/mps_calibration/worker_shape.sh KIND (fmaB, tinyB, memB: this project's worker, set grids, half
# a second to start; MPSCAL_SECONDS timed, default 1.5; the default kinds fma16,fma66,fma1056,tiny132,mem16,mem0 took
# 148 s on an H200, results/2026-12-02-mpscal-worker) or of scripts/mps_calibration/contention_loop.py KIND
# (gemmS, streamM: torch's, launched from Python, 70-101 s a shape, results/2026-12-02-mpscal), each pinned to its
# own core, released together by the start gate at their first kernel,
# at N = MPSCAL_PROCS (1,2,4,10), under MPS, MPSCAL_REPEATS (2) repeats, profiled (the runs alone's profiles give the
# shapes' SM shares and memory demand as predict reads a program's) -> OUT_DIR/runs/mpscal/<kind>. Each copy's unit
# is its own summary line (the mean of its timed steps). Prints each run's copies and how long the whole took.
kinds="${step#mpscal}"; kinds="${kinds#:}"; [ -z "$kinds" ] && kinds=fma16,fma66,fma1056,tiny132,mem16,mem0
IFS=, read -r -a mk <<<"$kinds"
m0=$(date +%s)
for k in "${mk[@]}"; do
  if past_deadline; then echo "mpscal $k: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  d="$out/runs/mpscal/$k"; mkdir -p "$(dirname "$d")"
  s0=$(date +%s)
  case $k in
    gemm* | stream*) cmd="python3 scripts/mps_calibration/contention_loop.py $k" ;;
    *) cmd="scripts/mps_calibration/worker_shape.sh $k ${MPSCAL_SECONDS:-1.5}" ;;
  esac
  "$bench" --workloads exec --command "$cmd" \
    --exec-metric '([0-9.]+) ms each' --procs "${MPSCAL_PROCS:-1,2,4,10}" --modes mps \
    --repeats "${MPSCAL_REPEATS:-2}" --exec-gate first-kernel --profile-gpu --out "$d" >"$out/mpscal-$k.log" 2>&1
  echo "mpscal $k: rc=$? in $(( $(date +%s) - s0 )) s"
  python3 scripts/show_columns.py "$d/runs.csv" run_id worker status facts 2>&1 | \
    sed -E 's/ [^ ]*(step_mean_ms=[0-9.]+).*(profile_fill=[0-9.]+).*/ \1 \2/' | head -60 | sed 's/^/  /'
done
echo "mpscal: all kinds in $(( $(date +%s) - m0 )) s"
