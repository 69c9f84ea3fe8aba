# study[:NAMES]: the pre-registered study's ladders (scripts/gated_study.py, docs/PREDICT.md "The pre-registered
# study"): the X-ray once -> OUT_DIR/runs/study/xray (or STUDY_XRAY=DIR, an X-ray of this GPU model carried in the
# tree, copied there), then each zoo program's gated ladder: N = 1,2,4,10, both modes, 2 repeats, --exec-gate
# steady, --profile-gpu, three runs alone per mode inside it -> OUT_DIR/runs/study/<name>/ladder; its units.csv
# (predict --measure) and its prediction from its own runs alone, scored against its runs of N >= 2
# (OUT_DIR/runs/study/<name>/predict); then its profiles removed (units.csv and predict/ hold what was read from
# them) but for the runs alone's, kept as LADDER/alone-profiles.tar.xz; and the program packed at once (OUT_DIR/study-<name>.tar.xz), so a command cut by the tool's limit keeps it.
# With LIMIT_S a ladder is stopped (SIGINT: it records what it has) a minute before the limit, so it is packed too.
names="${step#study}"; names="${names#:}"; [ -z "$names" ] && names=cuda-graphs
IFS=, read -r -a progs <<<"$names"
xray="$out/runs/study/xray"
if [ ! -d "$xray" ]; then
  if [ -n "${STUDY_XRAY:-}" ]; then
    mkdir -p "$(dirname "$xray")" && cp -r "$STUDY_XRAY" "$xray" && echo "study xray: carried from $STUDY_XRAY"
  else
    "$bench" --scenario xray --out "$xray" >"$out/study-xray.log" 2>&1
    echo "study xray: rc=$?"; sed -n '/^time-slice X-ray/,/^$/p' "$out/study-xray.log"
    tar -cf - -C "$out" runs/study/xray study-xray.log | xz -T0 -6 >"$out/study-xray.tar.xz"
  fi
fi
python3 -c 'import torch; x = torch.ones(64, 64, device="cuda"); (x @ x).sum().item()' >/dev/null 2>&1
for p in "${progs[@]}"; do
  if past_deadline; then echo "study $p: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  zoo/run.sh --prepare "$p" >"$out/study-$p-prepare.log" 2>&1
  d="$out/runs/study/$p/ladder"; mkdir -p "$(dirname "$d")"
  # LIMIT_S (the device call's limit, from the runner's start): the ladder gets what is left less a minute, and is
  # then stopped as by Ctrl-C (it records what it measured), so its measure, prediction and pack still run.
  cap=()
  if [ -n "${LIMIT_S:-}" ]; then
    left=$(( LIMIT_S - ($(date +%s) - began) - 60 ))
    if [ "$left" -lt 60 ]; then echo "study $p: skipped (under 2 minutes left of LIMIT_S=$LIMIT_S)"; continue; fi
    cap=(timeout -s INT -k 30 "$left")
  fi
  s0=$(date +%s)
  "${cap[@]}" "$bench" --workloads exec --command "zoo/run.sh $p" --procs 1,2,4,10 --modes timeslice,mps --repeats 2 \
    --exec-gate steady --profile-gpu --out "$d" >"$out/study-$p-ladder.log" 2>&1
  echo "study $p ladder: rc=$? in $(( $(date +%s) - s0 )) s"
  "$bench" predict --measure "$d" >"$out/study-$p-measure.log" 2>&1 || echo "  measure: rc=$?"
  sed 's/^/  /' "$out/study-$p-measure.log"
  "$bench" predict "$d" --xray "$xray" --procs 2,4,10 --against "$d" --label "$p" \
    --out "$out/runs/study/$p/predict" >"$out/study-$p-predict.log" 2>&1 || echo "  predict: rc=$?"
  grep -E "^\| [0-9]+ \||^Measured inside|^predict" "$out/study-$p-predict.log" | sed 's/^/  /'
  # The runs alone keep their profiles (xz, a few hundred KB a program): a later simulator re-scores the ladder
  # from them (tar -xJf alone-profiles.tar.xz -C LADDER, then predict LADDER --against LADDER).
  alone=$(cd "$d" && find . -path '*/profiles/*-n1' -type d -prune | sort)
  [ -n "$alone" ] && (cd "$d" && tar -cf - $alone | xz -T0 -6 >alone-profiles.tar.xz)
  find "$d" -type d \( -name profiles -o -name profile \) -prune -exec rm -rf {} +
  pack_step "study-$p" "runs/study/$p" $(cd "$out" && ls study-"$p"-*.log)
done
