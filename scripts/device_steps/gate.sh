# gate[:NAMES]: the start gate (--exec-gate) on zoo programs (default gemm): each at N = GATE_PROCS (1,2,4), both
# modes, GATE_REPEATS (1) repeats, profiled, with its own step metric where zoo/programs.json names one, once with
# --exec-gate steady and once with off (the order alternates per program) -> OUT_DIR/runs/gate/<name>/{steady,off};
# predict --measure on each (units.csv: co-run or not);
# prints each folder's co-run line, the gate's arrival and release spreads, and per mode and N the median unit.
# GATES="steady" (default "steady off") runs only those (a folder is named by its point, wait:21 as wait-21);
# PACK_STEPS=1 packs each gate setting's folder as it ends; with LIMIT_S a
# program starts only where 1.5x its zoo_seconds per gate setting (alone runs and warm-ups added) still fits.
# The ladder has the sweep's default --exec-alone-runs (3 alone runs per mode: first, middle, last) where
# GATE_PROCS holds 1 and a larger N. GATE_ENV ("ZOO_MNIST_TRAIN=32000 ..."): the zoo's size variables for the run, put
# in the command (`env GATE_ENV zoo/run.sh NAME`, so meta.json's command names them) and in the data's preparation;
# the folders are then <gate>-<GATE_TAG> (default "sized"). GATE_ARGS: more sweep options (words, e.g. "--no-pin"),
# with GATE_TAG naming the folders <gate>-<GATE_TAG> as well. GATE_KEEP=DIR and GATE_STOP_S=S: a ladder longer than
# one device call: the sweep writes under DIR and is stopped S seconds after device_check.sh began; the same
# command again, on the machine still warm, resumes it (--resume) and, complete, measures and packs it.
# GATE_MEASURE_ALSO=BIN: another build's predict --measure of the same profiles, beside units.csv
# (units-also-<its sha>.csv): a measuring rule that changed, both on one ladder (results/2026-12-04-shared-phase).
# Before each new sweep, unless GATE_PROBE=0, scripts/host_calibration/cpu_rate_probe.py (about 15 s) on cores 1 to
# the largest N of GATE_PROCS, alone and all at once, no pairs: how far apart the lease's cores ran just before the
# ladder (results/2026-12-04-cpu-rate), kept in the sweep's folder as cores-before.csv.gz.
names="${step#gate}"; names="${names#:}"; [ -z "$names" ] && names=gemm
IFS=, read -r -a progs <<<"$names"
python3 -c 'import torch; x = torch.ones(64, 64, device="cuda"); (x @ x).sum().item()' >/dev/null 2>&1
k=0
for p in "${progs[@]}"; do
  if past_deadline; then echo "gate $p: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  read -r -a order <<<"${GATES:-steady off}"
  if ! fits $(( $(zoo_seconds "$p") * 3 / 2 * ${#order[@]} )); then echo "gate $p: skipped (would end past LIMIT_S=$LIMIT_S)"; continue; fi
  read -r -a zoo_env <<<"${GATE_ENV:-}"
  env "${zoo_env[@]}" zoo/run.sh --prepare "$p" >"$out/gate-$p-prepare.log" 2>&1
  command="zoo/run.sh $p"; tag=""
  [ "${#zoo_env[@]}" -gt 0 ] && { command="env ${zoo_env[*]} $command"; tag="-${GATE_TAG:-sized}"; }
  read -r -a more_args <<<"${GATE_ARGS:-}"
  zoo_metric_args "$p"  # margs: the program's own step metric (zoo/programs.json), a latency program's p99 with it
  [ -n "${GATE_TAG:-}" ] && tag="-$GATE_TAG"
  [ $((k % 2)) = 1 ] && [ "${#order[@]}" = 2 ] && order=("${order[1]}" "${order[0]}"); k=$((k + 1))
  for g in "${order[@]}"; do
    # names without ':' (wait:21 -> wait-21): the device tool returns no file whose name holds one
    gn="${g//:/-}"
    d="$out/runs/gate/$p/$gn$tag"; mkdir -p "$(dirname "$d")"
    s0=$(date +%s)
    # GATE_KEEP: the sweep's folder lives there (outside OUT_DIR, kept while the machine stays warm) and is copied
    # into OUT_DIR only once it is complete; a folder already there is continued with --resume.
    kd=""; log="$out/gate-$p-$gn$tag.log"
    [ -n "${GATE_KEEP:-}" ] && { kd="$GATE_KEEP/gate/$p/$gn$tag"; mkdir -p "$(dirname "$kd")"; }
    sweep=(--workloads exec --command "$command" --procs "${GATE_PROCS:-1,2,4}" --modes timeslice,mps
           --repeats "${GATE_REPEATS:-1}" --exec-gate "$g" --profile-gpu "${margs[@]}" "${more_args[@]}" --out "${kd:-$d}")
    probe="${kd:-$d}.cores-before.csv"  # beside the sweep's folder (under GATE_KEEP while a ladder spans calls)
    if [ -n "$kd" ] && [ -f "$kd/meta.json" ]; then
      sweep=(--resume "$kd"); cat "$kd.log" >"$log" 2>/dev/null; echo "gate $p $g$tag: resuming $kd"
    elif [ "${GATE_PROBE:-1}" = 1 ]; then
      top=$(tr ',' '\n' <<<"${GATE_PROCS:-1,2,4}" | sort -n | tail -1); cores=$(( $(nproc) - 1 ))
      [ "$top" -lt "$cores" ] && cores=$top
      if python3 scripts/host_calibration/cpu_rate_probe.py run "$probe" --cores "1-$cores" --pairs none \
           --alone-s 0.3 --together-s 3 >"$out/gate-$p-$gn$tag-cores.log" 2>&1; then
        python3 scripts/host_calibration/cpu_rate_probe.py report "$probe" >>"$out/gate-$p-$gn$tag-cores.log" 2>&1
        grep -E "slowest / fastest [0-9.]+x$" "$out/gate-$p-$gn$tag-cores.log" | head -2 | sed 's/^ *//' | \
          paste -sd ';' | sed "s/^/  cores 1-$cores before the sweep (alone; all at once): /"
      else
        echo "  cores before the sweep: the probe failed: $(tail -1 "$out/gate-$p-$gn$tag-cores.log")"
      fi
    fi
    # GATE_STOP_S: the sweep is stopped (SIGINT: it ends its run in progress and saves) that many seconds after
    # device_check.sh began; with GATE_KEEP, a later call on the same warm machine resumes it.
    # (a time left of 0 would be no limit to timeout: the sweep is skipped instead)
    stop=()
    if [ -n "${GATE_STOP_S:-}" ]; then
      left=$(( GATE_STOP_S - ($(date +%s) - began) ))
      [ "$left" -le 0 ] && { echo "gate $p $g$tag: skipped (GATE_STOP_S=$GATE_STOP_S reached)"; continue; }
      stop=(timeout -s INT -k 90 "$left")
    fi
    "${stop[@]}" "$bench" "${sweep[@]}" >>"$log" 2>&1
    grc=$?
    echo "gate $p $g$tag: rc=$grc in $(( $(date +%s) - s0 )) s"
    if [ -n "$kd" ]; then
      cp "$log" "$kd.log"
      if [ "${#stop[@]}" -gt 0 ] && [ "$grc" = 124 ]; then
        echo "gate $p $g$tag: stopped at GATE_STOP_S=$GATE_STOP_S: $(grep -c . "$kd/summary.csv") lines in" \
          "summary.csv; the same GATE_KEEP on this machine resumes $kd"
        grep -E "^bench_mps: stopped" "$log" | tail -1 | sed 's/^/  /'
        continue
      fi
      rm -rf "$d" && cp -a "$kd" "$d"
    fi
    [ "$grc" -eq 0 ] || step_failed "gate $p $g$tag (rc=$grc)"
    [ -f "$probe" ] && [ -d "$d" ] && gzip -9 -n -c "$probe" >"$d/cores-before.csv.gz" && rm -f "$probe"
    grep -E "exec-gate" "$out/gate-$p-$gn$tag.log" | sort -u | head -3 | sed 's/^/  /'
    "$bench" predict --measure "$d" >"$out/gate-$p-$gn$tag-measure.log" 2>&1 || echo "  measure: rc=$?"
    sed 's/^/  /' "$out/gate-$p-$gn$tag-measure.log"
    # GATE_MEASURE_ALSO (see above): units.csv stays this build's
    if [ -n "${GATE_MEASURE_ALSO:-}" ]; then
      also_sha=$("$GATE_MEASURE_ALSO" --version 2>/dev/null | sed -n 's/.*(git \([0-9a-f]\{8\}\).*/\1/p')
      cp "$d/units.csv" "$d/units-this.tmp"
      if "$GATE_MEASURE_ALSO" predict --measure "$d" >"$out/gate-$p-$gn$tag-measure-also.log" 2>&1; then
        python3 scripts/units_by_cell.py "$d" --label "also ${also_sha:-unknown}:"
        mv "$d/units.csv" "$d/units-also-${also_sha:-unknown}.csv"
      else
        echo "  measure also: rc=$? ($GATE_MEASURE_ALSO)"
      fi
      mv "$d/units-this.tmp" "$d/units.csv"
    fi
    # a latency program: the backlog rule of results/2026-12-03-advise-lease4/PLAN-paced-gate.md
    [[ " ${margs[*]} " == *" latency "* ]] && python3 scripts/paced_gate_rule.py "$d" 2>&1 | sed 's/^/  /'
    python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
gate = json.load(open(d + "/meta.json")).get("exec_gate") or {}
for r in gate.get("runs", []):
    if r["copies"] > 1:
        print(f"  {r['run_id']}: {r['point']} {r['release']}, {r['arrived']}/{r['copies']} arrived, "
              f"arrivals spread {r['arrival_spread_s']:.3f} s, releases spread {r['release_spread_s']:.4f} s")
PY
    python3 scripts/units_by_cell.py "$d"
    # DROP_PROFILES=1: the profiles (1-25 MB a copy) go once units.csv holds what predict --measure read from them,
    # so that an archive stays under the device tool's 16 MiB a file. PACK_STEPS=1: this gate setting's folder and
    # logs packed as soon as it ends, so a command cut by the tool's limit keeps every setting that finished.
    [ "${DROP_PROFILES:-0}" = 1 ] && find "$d" -type d \( -name profiles -o -name profile \) -prune -exec rm -rf {} +
    # DROP_PROFILES=n2: only the runs' at N >= 2 (profiles/r<i>-<mode>-exec-n<N>); the alone runs', which predict
    # reads, stay.
    [ "${DROP_PROFILES:-0}" = n2 ] && [ -d "$d/profiles" ] && \
      find "$d/profiles" -mindepth 1 -maxdepth 1 -type d ! -name '*-n1' -exec rm -rf {} +
    [ "${PACK_STEPS:-0}" = 1 ] && pack_step "gate-$p-$gn$tag" "runs/gate/$p/$gn$tag" $(cd "$out" && ls gate-"$p"-"$gn$tag"*.log)
  done
  [ "${PACK_STEPS:-0}" = 1 ] && [ -f "$out/gate-$p-prepare.log" ] && pack_step "gate-$p-prepare" "gate-$p-prepare.log"
done
