# zoo-alone:NAMES|all: each zoo program (zoo/run.sh, zoo/programs.json) prepared unprofiled (its data; ZOO_WARM=1 a whole
# run), then alone, profiled, time-sliced and under MPS -> OUT_DIR/zoo/<name>/alone. zoo-ladder:NAMES|all: those, then
# N = ZOO_PROCS (2,4,10), both modes, ZOO_REPEATS (2), profiled -> OUT_DIR/zoo/<name>/ladder, units.csv (predict --measure),
# its profiles removed unless KEEP_PROFILES=1. DEADLINE_S and LIMIT_S skip programs; PACK_STEPS=1 packs each as it ends.

names="${step#*:}"
[ "$names" = all ] && names=$(zoo/run.sh --list | paste -sd, -)
IFS=, read -r -a progs <<<"$names"
# torch, torchvision, cuBLAS and cuDNN's files into the page cache, once (the first timed run is not a cold one)
python3 -c 'import torch, torchvision; x = torch.ones(64, 64, device="cuda"); (x @ x).sum().item()
torch.nn.functional.conv2d(x.view(1, 1, 64, 64), torch.ones(1, 1, 3, 3, device="cuda")).sum().item()' >/dev/null 2>&1
for p in "${progs[@]}"; do
  if past_deadline; then echo "zoo $p: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  case "$step" in zoo-ladder:*) need=$(zoo_seconds "$p") ;; *) need=40 ;; esac
  if ! fits "$need"; then echo "zoo $p: skipped (about $need s would not fit in LIMIT_S=$LIMIT_S)"; continue; fi
  zoo_metric_args "$p"
  d="$out/runs/zoo/$p"; mkdir -p "$d"
  s0=$(date +%s)
  zoo/run.sh --prepare "$p" >"$out/zoo-$p-warm.log" 2>&1; rc=$?  # its data, made once (untimed)
  if [ "$rc" = 0 ] && [ -n "${ZOO_WARM:-}" ]; then  # and one whole run, unprofiled
    zoo/run.sh "$p" >>"$out/zoo-$p-warm.log" 2>&1; rc=$?
  fi
  echo "zoo $p prepared: rc=$rc in $(( $(date +%s) - s0 )) s"
  s0=$(date +%s)
  "$bench" --workloads exec --command "zoo/run.sh $p" "${margs[@]}" --procs 1 --modes timeslice,mps --repeats 1 \
    --exec-warmups 0 --profile-gpu --out "$d/alone" >"$out/zoo-$p-alone.log" 2>&1
  echo "zoo $p alone: rc=$? in $(( $(date +%s) - s0 )) s: $(python3 scripts/show_columns.py "$d/alone/summary.csv" \
    mode status task_mean_ms | tr '\n' ' ')"
  grep -E "GPU profile|copy 0: steady" "$out/zoo-$p-alone.log" | sed 's/^/  /' | head -4
  case "$step" in zoo-ladder:*) ;; *) continue ;; esac
  s0=$(date +%s)
  "$bench" --workloads exec --command "zoo/run.sh $p" "${margs[@]}" --procs "${ZOO_PROCS:-2,4,10}" \
    --modes timeslice,mps --repeats "${ZOO_REPEATS:-2}" --exec-warmups 0 --profile-gpu --out "$d/ladder" \
    >"$out/zoo-$p-ladder.log" 2>&1
  echo "zoo $p ladder: rc=$? in $(( $(date +%s) - s0 )) s: $(python3 scripts/show_columns.py "$d/ladder/summary.csv" \
    run_id status task_mean_ms | tr '\n' ' ')"
  if "$bench" predict --measure "$d/ladder" >"$out/zoo-$p-measure.log" 2>&1; then
    [ "${KEEP_PROFILES:-0}" = 1 ] || rm -rf "$d/ladder/profiles"
  else
    echo "  measure: rc=$? $(tail -1 "$out/zoo-$p-measure.log")"
  fi
  tail -1 "$out/zoo-$p-measure.log" | sed 's/^/  /'
  [ "${PACK_STEPS:-0}" = 1 ] && pack_step "zoo-$p" "runs/zoo/$p" $(cd "$out" && ls zoo-"$p"-*.log)
done
