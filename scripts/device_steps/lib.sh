# The helpers that scripts/device_check.sh and its steps (scripts/device_steps/<step>.sh) share, sourced once by
# the runner after it has set $out and $bench and gone to the checkout: live_mps, check_clean, past_deadline and
# fits (counted from `began`, set here as it is sourced), zoo_seconds, pack_step, subject_args.

live_mps() { ps -eo stat=,comm= | awk '$1 !~ /^Z/ && $2 ~ /^nvidia-cuda-mps/' | wc -l; }
# step_failed WHAT: a step (or a part of one) that failed, said again at the end, where device_check.sh exits 1.
failed_steps=()
step_failed() { failed_steps+=("$1"); }
check_clean() {
  local n; n=$(live_mps)
  echo "  live nvidia-cuda-mps processes after $1: $n"
  [ "$n" -eq 0 ] || { ps -eo pid,stat,comm,args | grep -i "[n]vidia-cuda-mps"; step_failed "$1: $n live MPS processes"; }
}

# DEADLINE_S (seconds from here): steps, and zoo programs, that would start later are skipped and said,
# so that what ran is still packed within the device tool's limit on one command.
began=$(date +%s)
past_deadline() { [ -n "${DEADLINE_S:-}" ] && [ $(( $(date +%s) - began )) -ge "$DEADLINE_S" ]; }
# LIMIT_S (seconds from here): a zoo program starts only where its expected time still fits before it.
fits() { [ -z "${LIMIT_S:-}" ] || [ $(( $(date +%s) - began + $1 )) -le "$LIMIT_S" ]; }
# zoo_seconds NAME: what a zoo-ladder program took on an H100 (its data prepared, 2 runs alone, 12 at N = 2, 4, 10;
# results/2026-11-27-predict-study/logs), rounded up.
zoo_seconds() { case "$1" in gemm|membw) echo 120 ;; paced-infer) echo 135 ;; wlm-*) echo 145 ;; mnist-startup|mnist) echo 200 ;;
                mnist-rnn|vae) echo 215 ;; cuda-graphs) echo 270 ;; *) echo 270 ;; esac; }
# pack_step NAME PATH...: PATHs (under OUT_DIR/runs, and logs) into OUT_DIR/NAME.tar.xz at once, so that a
# command stopped later still returns what finished (the device tool returns at most 8 files, each at most 16 MiB:
# a bigger archive is cut into 15 MiB parts, NAME.tar.xz.part-aa, -ab, ...: cat NAME.tar.xz.part-* | tar -xJ).
pack_step() { local name="$1"; shift
              tar -cf - -C "$out" "$@" 2>/dev/null | xz -T0 -6 >"$out/$name.tar.xz" && (cd "$out" && rm -rf "$@")
              if [ "$(stat -c %s "$out/$name.tar.xz")" -gt $((15 * 1024 * 1024)) ]; then
                split -b 15m "$out/$name.tar.xz" "$out/$name.tar.xz.part-" && rm "$out/$name.tar.xz"
              fi; }

# zoo_metric_args NAME: a zoo program's --exec-metric (zoo/programs.json), with --exec-metric-kind latency where its
# unit is a request's latency (paced-infer: its throughput is the requests served), into the array `margs`; empty for
# a program timed by its profile.
zoo_metric_args() {
  mapfile -d '' -t margs < <(python3 -c 'import json, sys
for e in json.load(open("zoo/programs.json")):
    if e["name"] == sys.argv[1] and e["metric"]:
        a = ["--exec-metric", e["metric"]] + (["--exec-metric-kind", "latency"] if e["unit"] == "latency" else [])
        sys.stdout.write("".join(x + "\0" for x in a))' "$1")
}

# zoo_gate_args NAME: a zoo program's own start gate (zoo/programs.json's gate: paced-infer's wait:21, before its
# clock starts, results/2026-12-03-advise-lease5), as `--exec-gate POINT` into the array `gargs`; empty where it has
# none (the step's or advise's default).
zoo_gate_args() {
  mapfile -d '' -t gargs < <(python3 -c 'import json, sys
for e in json.load(open("zoo/programs.json")):
    if e["name"] == sys.argv[1] and e.get("gate"):
        sys.stdout.write("--exec-gate\0" + e["gate"] + "\0")' "$1")
}

# subject_args SUBJECT: the advise options naming SUBJECT (spin, membw, infer, mlp, seed001, seed001short,
# client, zoo-NAME: its metric and its own gate, zoo_metric_args and zoo_gate_args) into the array `what`; 1 for an
# unknown one. A zoo program's data is made first (untimed).
subject_args() {
  case "$1" in
    spin|membw) what=(--workload "$1") ;;
    infer) what=(--workload mlp-infer) ;;
    mlp) what=(--workload mlp -- --mlp-profile gpu-bound) ;;
    seed001) what=(--workload mlp -- --mlp-profile seed001) ;;
    seed001short) what=(--workload mlp -- --mlp-profile seed001 --mlp-layers 784,512,512,10 --mlp-host-us 500) ;;
    client) what=(--command "python3 scripts/examples/mnist_train.py" -- --exec-metric 'step_ms=([0-9.]+)') ;;
    zoo-*)  # a zoo program with its own step metric (zoo/programs.json)
      local p="${1#zoo-}"
      zoo/run.sh --prepare "$p" >"$out/prepare-$1.log" 2>&1
      zoo_metric_args "$p"
      zoo_gate_args "$p"
      what=(--command "zoo/run.sh $p")
      if [ "$(( ${#margs[@]} + ${#gargs[@]} ))" -gt 0 ]; then what+=(-- "${margs[@]}" "${gargs[@]}"); fi ;;
    *) return 1 ;;
  esac
}
