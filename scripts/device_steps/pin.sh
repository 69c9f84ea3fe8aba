# pin[:NAMES]: host placement (issue 42 item 6): each zoo program (default mnist) at N = PIN_PROCS (1,4), both
# modes, PIN_REPEATS (1) repeats, profiled, --exec-gate steady, once pinned (the default: each copy on its own
# core) and once with --no-pin (the order alternates per program) -> OUT_DIR/runs/pin/<name>/{pinned,unpinned};
# PIN_PLACEMENTS ("pinned unpinned") may add coresK: --cores-per-worker K (each copy on K cores of its own);
# predict --measure on each (units.csv); prints scripts/pin_study.py's table: per placement, mode and N the copies'
# arrival at the gate (start-up to the steady part), completion, unit and co-run count. PACK_STEPS=1 packs each
# program as it ends.
names="${step#pin}"; names="${names#:}"; [ -z "$names" ] && names=mnist
IFS=, read -r -a progs <<<"$names"
python3 -c 'import torch; x = torch.ones(64, 64, device="cuda"); (x @ x).sum().item()' >/dev/null 2>&1
k=0
for p in "${progs[@]}"; do
  if past_deadline; then echo "pin $p: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  zoo/run.sh --prepare "$p" >"$out/pin-$p-prepare.log" 2>&1
  read -r -a order <<<"${PIN_PLACEMENTS:-pinned unpinned}"
  if [ $((k % 2)) = 1 ]; then rev=(); for ((j = ${#order[@]} - 1; j >= 0; j--)); do rev+=("${order[j]}"); done; order=("${rev[@]}"); fi
  k=$((k + 1))
  for placement in "${order[@]}"; do
    d="$out/runs/pin/$p/$placement"; mkdir -p "$(dirname "$d")"
    case "$placement" in
      pinned) extra=() ;; unpinned) extra=(--no-pin) ;;
      cores[0-9]*) extra=(--cores-per-worker "${placement#cores}") ;;
      *) echo "pin $p $placement: not a placement (pinned, unpinned, coresK)"; step_failed "pin $placement"; continue ;;
    esac
    s0=$(date +%s)
    "$bench" --workloads exec --command "zoo/run.sh $p" --procs "${PIN_PROCS:-1,4}" --modes timeslice,mps \
      --repeats "${PIN_REPEATS:-1}" --exec-gate steady --profile-gpu "${extra[@]}" --out "$d" \
      >"$out/pin-$p-$placement.log" 2>&1
    echo "pin $p $placement: rc=$? in $(( $(date +%s) - s0 )) s"
    "$bench" predict --measure "$d" >"$out/pin-$p-$placement-measure.log" 2>&1 || echo "  measure: rc=$?"
  done
  python3 scripts/pin_study.py "$out/runs/pin/$p" | sed 's/^/  /'
  [ "${PACK_STEPS:-0}" = 1 ] && pack_step "pin-$p" "runs/pin/$p" $(cd "$out" && ls pin-"$p"-*.log)
done
