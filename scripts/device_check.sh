#!/usr/bin/env bash
# The whole GPU check in one go, for the device machine (one H100/H200, root, nothing installable),
# on a build carried from the build machine (see scripts/device_env.sh):
#   scripts/device_check.sh OUT_DIR STEP...
# Steps (each writes its output under OUT_DIR and prints a short line):
#   tests       ctest, all labels (GPU tests included)
#   gputests    the GPU test programs only, run directly (build/tests/test_gpu_*: a slim carried build);
#               prints test_gpu_profile's "profile clock: ..." line (NVML and GPM over the steady part)
#   bench       the Google Benchmark micro-benchmarks
#   reference   a default run: bench_mps --procs 1,4,10 -> OUT_DIR/reference
#   aa, aa2...  more default runs (A/A comparisons) -> OUT_DIR/<step>
#   spin110     a default run with 10% longer spin kernels -> OUT_DIR/spin110
#   interrupt   Ctrl-C in the middle of an MPS block, then SIGKILL + a new run, then --resume
#   fault       bench_mps --scenario fault --procs 4 -> OUT_DIR/fault
#   exec        the PyTorch reference client (scripts/examples/mnist_train.py) through exec, N=1,5,10,
#               time-sliced and MPS -> OUT_DIR/exec, and alone for 3 epochs -> OUT_DIR/util-exec
#   seed001     mlp --mlp-profile seed001 (the seed's point), N=1,5,10, time-sliced and MPS, 3 repeats
#               (REPEATS=k for more) -> OUT_DIR/seed001
#   dutycycle[:POINT,...]  scripts/duty_cycle.sh (those points, or all) -> OUT_DIR/dutycycle
#   calibrate   seed001 alone at several host works per step (UTIL_ONLY=1) -> OUT_DIR/dutycycle
#   rounds5, rounds1, rounds2, cap60, fresh, spin103, mlp105
#               default runs with --rounds 5 (one set of workers per configuration), --rounds 1 (fresh
#               processes for every repeat), rounds2 (--repeats 4 --rounds 2: two sets of two rounds), cap60 (--noise-time-cap 60
#               --max-repeats 16: what the noise target reaches with twice the time), fresh (--rounds 1 --settle 0.5: the sweep before issue 14),
#               a 3% longer spin kernel (--spin-us 103), and a 5% longer mlp step (--mlp-extra-us 5,
#               about 5% of a 100 us step) -> OUT_DIR/<step>
#   monitorcost mlp N=1, 10 one-round sets a mode, with NVML sampled every 100 ms and not sampled
#               (BENCH_MPS_MONITOR_MS=0), alternated twice -> OUT_DIR/runs/monitor-*; the rounds' spread
#   modes       spin in every in-process mode beside timeslice and mps, N=1,2,4 -> OUT_DIR/modes
#   filler      the filler alone at 30, 60 and 90% -> OUT_DIR/filler-<target>
#   membw       the memory-bound triad, timeslice and mps, N=1,2,4 -> OUT_DIR/membw
#   memlimit    a membw client over its MPS pinned memory limit (expect status mps_mem_limit) -> OUT_DIR/memlimit
#   profileclient  the PyTorch reference client alone with and without --profile-gpu, 3 alternated pairs
#               (the profiler's cost on its step time; its duty beside NVML's and GPM's over the run, and over
#               its steady part: the sweep's "copy 0: steady part ..." line, bench_mps profile's "over it, as
#               its run recorded: ..." line) -> OUT_DIR/client-*
#   conform     bench_mps conform: PASS / FAIL / SKIP / ERROR per MPS lever (<= 3 minutes) -> OUT_DIR/conform;
#               prints its table
#   interference  mlp-infer beside 3 fillers at 60%, timeslice, mps, mps+prio, mps:auto -> OUT_DIR/interference
#   pergpu      --device 0 (the GPU by its UUID, its own daemon) and --gpus all, spin N=1,2 -> OUT_DIR/device0, gpus
#   xray        bench_mps --scenario xray (N=1,2,4,10, time-sliced and MPS, 2 repeats) -> OUT_DIR/xray
#   regimes     bench_mps --scenario regimes (the X-ray, then the 5 x 5 grid at N=1,4,10) -> OUT_DIR/regimes;
#               regimes:quick a 3 x 2 grid at N=10, one repeat
#   twogpu      two GPUs of one host: a default sweep alone on GPU 0 -> OUT_DIR/lone; two independent default
#               sweeps at once, --device 0 and --device 1, each from its own shell (core claims) -> pair0, pair1;
#               then --gpus all with its fleet report -> gpus
#   execwarm    the PyTorch reference client at N=1, time-sliced and MPS, 3 repeats, default exec warm-up
#               -> OUT_DIR/execwarm (time-sliced and MPS should agree within 3%)
#   profile     --profile-gpu on the PyTorch-free duty workload (1 ms bursts at 50%, then 0.1 ms at 50%)
#               through exec, `bench_mps profile`'s summary, and the profiler's cost on the step time: the
#               same worker with and without the injection, 3 times each, alternated -> OUT_DIR/profile
#   advise:SUBJECT,...  bench_mps advise --ladder 1,2,4,10 on each subject: spin, mlp (gpu-bound), seed001,
#               seed001short (the example's own 784-512-512-10 net, 0.5 ms host work: short bursts), membw,
#               infer (mlp-infer), client (the PyTorch reference client, steps by --exec-metric); the first
#               measures the X-ray, the others read it -> OUT_DIR/advise-<subject>; prints the advice and the
#               model's error at N=4 and N=10
#   beside:A/B,...  bench_mps advise A --beside B for each pair (A as for advise:, B one of bench_mps's workloads;
#               BESIDE_DURATION, 3 s, B's --duration: cover A's run) -> OUT_DIR/runs/A-beside-B
#   profilecost the profiler's cost per step on a low-noise step of the client's shape (bench_worker's eager
#               seed001 loop, 784-512-512-10, no host work), 6 alternated pairs, and that cost scaled to the
#               client's step (scripts/profile_cost.py) -> OUT_DIR/runs/profilecost
#   profilevariants  the profiler's cost on the PyTorch client by variant (PROFILE_VARIANTS: plain, profiled,
#               activity, nowaits; callbacks, plain-nopin, profiled-nopin), PROFILE_ROUNDS rounds (3)
#               -> OUT_DIR/runs/variants
#   firstset    spin time-sliced N=1 in 4 one-round sets: cool, right after 20 s of mlp N=10 under MPS, after
#               30 s idle (throughput, power, SM clock per set) -> OUT_DIR/runs/firstset
#   calib001    mlp's seed001 loop alone with deeper and wider stacks of small layers, no host work: the
#               burst and busy share each gives -> OUT_DIR/calib001/<layers>
#   zoo-alone:NAMES|all  each zoo program (zoo/run.sh, zoo/programs.json) run once unprofiled (its data, the page
#               cache), then alone, profiled (--profile-gpu), time-sliced and under MPS, one run each ->
#               OUT_DIR/zoo/<name>/alone; prints each run's time and its profile's duty and step between host waits
#   zoo-ladder:NAMES|all  the same alone runs, then N = ZOO_PROCS (2,4,10) in both modes, ZOO_REPEATS (2) repeats,
#               profiled -> OUT_DIR/zoo/<name>/ladder; each copy's units measured there (bench_mps predict
#               --measure: units.csv) and, unless KEEP_PROFILES=1, the ladder's profiles then removed (they are
#               large; units.csv holds what the study needs)
# DEADLINE_S=N skips what would start N seconds after the script began; LIMIT_S=N skips a zoo program whose
# expected time would end past N; PACK_STEPS=1 packs the xray and each zoo program as it ends
# (OUT_DIR/<step>.tar.xz). ZOO_WARM=1: one whole unprofiled run of each zoo program first. Full logs go to OUT_DIR/*.log; the result folders are packed into OUT_DIR/results.tar.xz.part-* (15 MiB parts). It never
# changes the GPU's settings and checks that no MPS daemon is left after every step.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/scripts/device_env.sh"
out="$1"; shift
mkdir -p "$out/runs"
bench="$here/build/harness/bench_mps"
cd "$here"

live_mps() { ps -eo stat=,comm= | awk '$1 !~ /^Z/ && $2 ~ /^nvidia-cuda-mps/' | wc -l; }
check_clean() {
  local n; n=$(live_mps)
  echo "  live nvidia-cuda-mps processes after $1: $n"
  [ "$n" -eq 0 ] || ps -eo pid,stat,comm,args | grep -i "[n]vidia-cuda-mps"
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
# command stopped later still returns what finished (the device tool returns at most 8 files).
pack_step() { local name="$1"; shift
              tar -cf - -C "$out" "$@" 2>/dev/null | xz -T0 -6 >"$out/$name.tar.xz" && (cd "$out" && rm -rf "$@"); }

# subject_args SUBJECT: the advise options naming SUBJECT (spin, membw, infer, mlp, seed001, seed001short,
# client, zoo-NAME) into the array `what`; 1 for an unknown one. A zoo program's data is made first (untimed).
subject_args() {
  case "$1" in
    spin|membw) what=(--workload "$1") ;;
    infer) what=(--workload mlp-infer) ;;
    mlp) what=(--workload mlp -- --mlp-profile gpu-bound) ;;
    seed001) what=(--workload mlp -- --mlp-profile seed001) ;;
    seed001short) what=(--workload mlp -- --mlp-profile seed001 --mlp-layers 784,512,512,10 --mlp-host-us 500) ;;
    client) what=(--command "python3 scripts/examples/mnist_train.py" -- --exec-metric 'step_ms=([0-9.]+)') ;;
    zoo-*)  # a zoo program with its own step metric (zoo/programs.json)
      local p="${1#zoo-}" metric
      zoo/run.sh --prepare "$p" >"$out/prepare-$1.log" 2>&1
      metric=$(python3 -c 'import json,sys
for e in json.load(open("zoo/programs.json")):
    if e["name"] == sys.argv[1]: print(e["metric"] or "")' "$p")
      what=(--command "zoo/run.sh $p"); [ -n "$metric" ] && what+=(-- --exec-metric "$metric") ;;
    *) return 1 ;;
  esac
}

nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.max.sm,memory.total --format=csv,noheader | sed 's/^/GPU: /'
check_clean "start"
for step in "$@"; do
  if past_deadline; then echo "$step: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  t0=$(date +%s)
  case "$step" in
    tests)
      (cd build && ctest --output-on-failure -j 4 >"$out/tests.log" 2>&1)
      echo "tests: rc=$? $(grep -E 'tests passed|tests failed' "$out/tests.log")"
      grep -E "^\s+[0-9]+ - " "$out/tests.log" | head -20
      grep -E "Skipped|Not Run" "$out/tests.log" | head -5 ;;
    gputests)
      # The GPU test programs on their own (a carried build with only them, bench_mps and bench_worker).
      rc=0; : >"$out/gputests.log"
      for t in build/tests/test_gpu_workloads build/tests/test_gpu_sweep build/tests/test_gpu_mechanisms \
               build/tests/test_gpu_profile; do
        [ -x "$t" ] || { echo "gputests: $t missing"; rc=1; continue; }
        timeout 300 "$t" >>"$out/gputests.log" 2>&1 || rc=$?
      done
      # gtest names each failed or skipped test twice (as it ends, and in the closing list): count the first.
      echo "gputests: rc=$rc $(grep -cE '^\[       OK \]' "$out/gputests.log") OK, $(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log") failed, $(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/gputests.log") skipped"
      grep -E "^\[  FAILED  \] .* \([0-9]+ ms\)$|Failure" "$out/gputests.log" | head -10
      grep -E "^clock: " "$out/gputests.log" | sed 's/^/  profile /'  # test_gpu_profile: NVML and GPM over the steady part
      grep -E "^energy: " "$out/gputests.log" | head -4 | sed 's/^/  /' ;;  # test_gpu_sweep: NVML's energy counter  # test_gpu_profile: NVML and GPM over the steady part
    bench)
      build/bench/bench_workloads --benchmark_min_time=0.2 --benchmark_out="$out/bench.json" \
        --benchmark_out_format=json >"$out/bench.log" 2>&1
      echo "bench: rc=$?"; grep -E "^BM_" "$out/bench.log" ;;
    reference|aa*|spin110|spin103|mlp105|rounds5|rounds1|rounds2|cap60|fresh)
      extra=()
      case "$step" in
        spin110) extra=(--spin-us 110) ;;
        spin103) extra=(--spin-us 103) ;;
        mlp105) extra=(--mlp-extra-us 5) ;;
        rounds5) extra=(--rounds 5) ;;
        rounds1) extra=(--rounds 1) ;;
        rounds2) extra=(--repeats 4 --rounds 2) ;;
        cap60) extra=(--noise-time-cap 60 --max-repeats 16) ;;
        fresh) extra=(--rounds 1 --settle 0.5) ;;
      esac
      start=$(date +%s.%N)
      BENCH_MPS_NO_BUILD=1 scripts/run.sh --procs 1,4,10 --out "$out/runs/$step" "${extra[@]}" >"$out/$step.log" 2>&1
      echo "$step: scripts/run.sh --procs 1,4,10 ${extra[*]} -> rc=$? in $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
      grep -E "^report:|^sweep:" "$out/$step.log"
      sed -n '/^workload/,/^$/p' "$out/$step.log"
      # The reference it is meant to match (README): the same plan on an H100, compared on the worker sets.
      if [ "$step" = reference ] && [ -d results/2026-11-24-h100-80gb-hbm3 ]; then
        "$bench" compare results/2026-11-24-h100-80gb-hbm3 "$out/runs/$step" --md "$out/runs/$step-compare.md" \
          >"$out/$step-compare.log" 2>&1
        echo "  compare against results/2026-11-24-h100-80gb-hbm3: rc=$?"
        grep -E "pairs:|^bench_mps:" "$out/$step-compare.log" | head -3 | sed 's/^/  /'
        grep -E "\| (FASTER|SLOWER|UNSURE) " "$out/$step-compare.log" | head -8 | sed 's/^/  /'
      fi ;;
    monitorcost)
      # Does NVML's sampling (every 100 ms during a sweep) disturb mlp at N=1? 10 one-round sets a mode,
      # sampled and not (BENCH_MPS_MONITOR_MS=0), alternated twice; per sweep the rounds' throughput.
      for i in 1 2; do
        for ms in 100 0; do
          BENCH_MPS_MONITOR_MS=$ms build/harness/bench_mps --workloads mlp --procs 1 --repeats 10 --rounds 1 \
            --noise-target 0 --out "$out/runs/monitor-$ms-$i" >"$out/monitor-$ms-$i.log" 2>&1
          echo "monitorcost $ms ms #$i: rc=$?"
        done
      done
      python3 - "$out/runs" <<'PY'
import csv, glob, os, statistics as st, sys
for d in sorted(glob.glob(os.path.join(sys.argv[1], "monitor-*"))):
    rows = list(csv.DictReader(open(os.path.join(d, "summary.csv"))))
    for mode in ("timeslice", "mps"):
        v = [float(r["throughput_tasks_per_s"]) for r in rows if r["mode"] == mode and r["status"] == "ok"]
        if len(v) < 2: continue
        best = max(v)
        print("monitorcost %s %s: %d rounds, mean %.1f/s, sd %.2f%%, %d more than 1%% below the best" % (
            os.path.basename(d), mode, len(v), st.mean(v), 100 * st.stdev(v) / st.mean(v), sum(1 for x in v if x < 0.99 * best)))
PY
      ;;
    modes)
      "$bench" --workloads spin --modes timeslice,mps,streams,threads,green --procs 1,2,4 --repeats 3 \
        --out "$out/runs/modes" >"$out/modes.log" 2>&1
      echo "modes: rc=$?"; sed -n '/^workload/,/^$/p' "$out/modes.log"
      python3 scripts/show_columns.py "$out/runs/modes/runs.csv" run_id worker sm_count_seen task_mean_ms --where repeat=1 \
        | grep -E "green|streams|threads" | sed 's/^/  /' ;;
    filler)
      for t in 30 60 90; do
        "$bench" --workloads filler --filler-target "$t" --procs 1 --modes timeslice --repeats 1 \
          --out "$out/runs/filler-$t" >"$out/filler-$t.log" 2>&1
        echo "filler $t%: rc=$? gpu_util_mean gpu_util_samples gpm_sm_util: $(python3 scripts/show_columns.py \
          "$out/runs/filler-$t/summary.csv" gpu_util_mean gpu_util_samples gpm_sm_util) facts: $(python3 \
          scripts/show_columns.py "$out/runs/filler-$t/runs.csv" facts)"
      done ;;
    membw)
      "$bench" --workloads membw --modes timeslice,mps --procs 1,2,4 --repeats 3 --out "$out/runs/membw" >"$out/membw.log" 2>&1
      echo "membw: rc=$?"; sed -n '/^workload/,/^$/p' "$out/membw.log"
      python3 scripts/show_columns.py "$out/runs/membw/runs.csv" run_id worker facts --where repeat=1 | sed 's/^/  /'
      python3 scripts/show_columns.py "$out/runs/membw/summary.csv" run_id gpm_dram_bw_util gpm_sm_util --where repeat=1 | sed 's/^/  /' ;;
    memlimit)
      "$bench" --workloads membw --membw-mib 1024 --modes mps+mem=2G --procs 1 --repeats 1 --timeout 60 \
        --out "$out/runs/memlimit" >"$out/memlimit.log" 2>&1
      echo "memlimit: rc=$? (expect 1) $(python3 scripts/show_columns.py "$out/runs/memlimit/summary.csv" status reason)" ;;
    conform)
      start=$(date +%s)
      "$bench" conform --out "$out/runs/conform" >"$out/conform.log" 2>&1
      echo "conform: rc=$? (0 every row PASS or SKIP, 1 a FAIL or ERROR) in $(( $(date +%s) - start )) s"
      sed -n '/^| lever/,/^$/p' "$out/conform.log" ;;
    advise:*)
      IFS=, read -r -a subjects <<<"${step#advise:}"
      xray_from=()
      for subject in "${subjects[@]}"; do
        if past_deadline; then echo "advise $subject: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
        subject_args "$subject" || { echo "advise: unknown subject $subject"; continue; }
        start=$(date +%s)
        # "${what[@]}" last: it may end with `--` and the workload's own options.
        ladder="${ADVISE_LADDER:-1,2,4,10}"  # programs (a run of seconds each): ADVISE_EXEC_LADDER, 1,2,4
        case "$subject" in client|zoo-*) ladder="${ADVISE_EXEC_LADDER:-1,2,4}" ;; esac
        "$bench" advise --ladder "$ladder" --budget "${ADVISE_BUDGET:-300}" "${xray_from[@]}" \
          --out "$out/runs/advise-$subject" "${what[@]}" >"$out/advise-$subject.log" 2>&1
        echo "advise $subject: rc=$? in $(( $(date +%s) - start )) s"
        grep -v '^\[' "$out/advise-$subject.log" | sed 's/^/  /'
        python3 - "$out/runs/advise-$subject/advice.json" <<'PY' | sed 's/^/  /'
import json, sys
a = json.load(open(sys.argv[1]))
print("alone:", {k: a["alone"][k] for k in ("unit", "unit_ms", "step_ms", "burst_ms", "kernel_ms", "duty", "footprint")})
for c in a["checks"]:
    print("N={procs} {mode}: predicted {predicted:.3f} (low {low}) measured {measured:.3f} error {error}".format(
        low="-" if c["predicted_low"] is None else "%.3f" % c["predicted_low"],
        error="-" if c["error"] is None else "%+.1f%%" % (100 * c["error"]), **{k: c[k] for k in ("procs", "mode", "predicted", "measured")}))
print("ladder end:", a["ladder_end"], "| sets added:", a.get("sets_end") or "-")
d = a.get("decision", {})
iv = lambda r: "-" if not r or r.get("ratio") is None else "%.3f (%s-%s)" % (r["ratio"], "-" if r["lo"] is None else "%.3f" % r["lo"], "-" if r["hi"] is None else "%.3f" % r["hi"])
print("decision: verdict", a["recommendation"]["verdict"], "basis", d.get("basis"), "| MPS/TS", iv(d.get("mps_over_timeslice")), "| one copy MPS speed", iv(d.get("one_copy_mps_speed")))
for c in a["ladder"]:
    print("  N={procs} {mode}: sets {n} ok {ok} unit {u} run {r} run_s {rs} startup_s {st} J/unit {e}".format(n=len(c.get("sets", [])), u=c["throughput"], r=c.get("throughput_run"), rs=c.get("run_s"), st=c.get("startup_s"), e=c.get("energy_per_unit_j"), **{k: c[k] for k in ("procs", "mode", "ok")}))
PY
        [ -d "$out/runs/advise-$subject/sweeps/xray" ] && xray_from=(--xray-from "$out/runs/advise-$subject/sweeps/xray")
      done ;;
    beside:*)
      # beside:A/B,...: bench_mps advise A --beside B (A a subject as for advise:, without options of its own;
      # B one of bench_mps's workloads); BESIDE_DURATION (s, default 3) is B's --duration, to cover A's run.
      IFS=, read -r -a pairs <<<"${step#beside:}"
      for pair in "${pairs[@]}"; do
        if past_deadline; then echo "beside $pair: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
        a="${pair%%/*}"; b="${pair#*/}"; tag="${a}-beside-${b}"
        subject_args "$a" || { echo "beside: unknown subject $a"; continue; }
        what=("${what[@]:0:2}")  # A's name only: the options after `--` are the pair's sweep's
        start=$(date +%s)
        "$bench" advise "${what[@]}" --beside "$b" --budget "${ADVISE_BUDGET:-300}" --out "$out/runs/$tag" \
          -- --duration "${BESIDE_DURATION:-3}" >"$out/$tag.log" 2>&1
        echo "beside $pair: rc=$? in $(( $(date +%s) - start )) s"
        grep -v '^\[' "$out/$tag.log" | sed 's/^/  /'
        [ -f "$out/runs/$tag/beside.md" ] && sed -n '/^|/p' "$out/runs/$tag/beside.md" | sed 's/^/  /'
      done ;;
    pergpu)
      "$bench" --device 0 --workloads spin --modes timeslice,mps --procs 1,2 --repeats 1 --tasks 10 \
        --out "$out/runs/device0" >"$out/device0.log" 2>&1
      echo "pergpu: --device 0 -> rc=$? $(python3 scripts/show_columns.py "$out/runs/device0/summary.csv" run_id status | tr '\n' ' ')"
      BENCH_MPS_NO_BUILD=1 scripts/run.sh --gpus all --workloads spin --modes timeslice,mps --procs 1,2 --repeats 1 --tasks 10 \
        --out "$out/runs/gpus" >"$out/gpus.log" 2>&1
      echo "pergpu: --gpus all -> rc=$?"; tail -5 "$out/gpus.log" | sed 's/^/  /' ;;
    interference)
      "$bench" --scenario interference --procs 4 --modes timeslice,mps,mps+prio,mps:auto --repeats "${REPEATS:-3}" \
        --out "$out/runs/interference" >"$out/interference.log" 2>&1
      echo "interference: rc=$?"
      python3 scripts/show_columns.py "$out/runs/interference/summary.csv" run_id status fg_latency_p50_ms fg_latency_p99_ms \
        fg_p99_vs_alone fg_throughput_vs_alone bg_throughput_kept gpu_util_mean | sed 's/^/  /' ;;
    interrupt)
      log="$out/interrupt.log"; dir="$out/runs/interrupt"
      "$bench" --procs 1,4 --repeats 2 --out "$dir" >"$log" 2>&1 &
      pid=$!
      # wait until the first MPS run of the sweep has started (its daemon is up), then Ctrl-C
      for _ in $(seq 600); do grep -q "r1-timeslice-mlp-n4" "$log" && [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
      sleep 0.5; kill -INT "$pid"; wait "$pid"; echo "interrupt: SIGINT -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1))"
      check_clean "SIGINT"
      "$bench" --resume "$dir" >>"$log" 2>&1 &
      pid=$!
      for _ in $(seq 600); do [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
      sleep 1; kill -KILL "$pid"; wait "$pid"; echo "interrupt: SIGKILL -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1)) live daemons=$(live_mps)"
      "$bench" --resume "$dir" >>"$log" 2>&1
      echo "interrupt: --resume -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1)) (expect 16)"
      grep -E "left behind|resume:|already recorded" "$log" | sed 's/^/  /' ;;
    fault)
      "$bench" --scenario fault --procs 4 --out "$out/runs/fault" >"$out/fault.log" 2>&1
      echo "fault: rc=$?"; sed -n '/^fault isolation/,$p' "$out/fault.log" ;;
    exec)
      client="python3 scripts/examples/mnist_train.py"
      "$bench" --workloads exec --command "$client --epochs 3" --exec-metric 'step_ms=([0-9.]+)' --procs 1 \
        --modes timeslice --repeats 1 --out "$out/runs/util-exec" >"$out/util-exec.log" 2>&1
      echo "exec (alone, 3 epochs): rc=$?"
      "$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1,5,10 \
        --modes timeslice,mps --repeats 3 --out "$out/runs/exec" >"$out/exec.log" 2>&1
      echo "exec: rc=$?"; sed -n '/^workload/,/^$/p' "$out/exec.log"
      grep -ho "mps_proof=[a-z_]*" "$out/runs/exec/runs.csv" | sort | uniq -c ;;
    seed001)
      # The seed's point (docs/SEED001.md), its basis: N copies' completion against one copy alone.
      "$bench" --workloads mlp --mlp-profile seed001 --procs 1,5,10 --modes timeslice,mps --repeats "${REPEATS:-3}" \
        --out "$out/runs/seed001" >"$out/seed001.log" 2>&1
      echo "seed001: rc=$?"; sed -n '/^workload/,/^$/p' "$out/seed001.log"
      python3 scripts/show_columns.py "$out/runs/seed001/summary.csv" run_id makespan_s burst_ms gpu_busy_share gpu_util_mean \
        gpm_sm_util --where procs=1 | sed 's/^/  /' ;;
    dutycycle)
      scripts/duty_cycle.sh "$out/runs/dutycycle" ;;
    dutycycle:*)
      IFS=, read -r -a pts <<<"${step#dutycycle:}"
      scripts/duty_cycle.sh "$out/runs/dutycycle" "${pts[@]}" ;;
    calibrate)
      UTIL_ONLY=1 scripts/duty_cycle.sh "$out/runs/dutycycle" seed001:0 seed001:25 seed001:50 seed001:75 \
        seed001:100 seed001:150 seed001:200 seed001:300 ;;
    xray)
      "$bench" --scenario xray --out "$out/runs/xray" >"$out/xray.log" 2>&1
      echo "xray: rc=$?"; sed -n '/^time-slice X-ray/,/^$/p' "$out/xray.log"
      python3 scripts/show_columns.py "$out/runs/xray/runs.csv" run_id worker facts --where repeat=1 | grep -E "n4-xray_busy|n1-xray_turns" \
        | head -6 | sed 's/^/  /'
      python3 scripts/show_columns.py "$out/runs/xray/runs.csv" run_id facts --where worker=0 | grep -E "xray_gaps" \
        | sed 's/^/  /'
      [ "${PACK_STEPS:-0}" = 1 ] && pack_step xray runs/xray xray.log ;;
    regimes|regimes:*)
      extra=()
      [ "$step" = "regimes:quick" ] && extra=(--procs 10 --regime-bursts-ms 0.1,1,10 --regime-duties 25,75 --repeats 1)
      "$bench" --scenario regimes "${extra[@]}" --out "$out/runs/regimes" >"$out/regimes.log" 2>&1
      echo "regimes: rc=$?"; sed -n '/^time-slice X-ray/,$p' "$out/regimes.log" ;;
    twogpu)
      default_sweep() {  # NAME, then options
        local name="$1"; shift
        BENCH_MPS_NO_BUILD=1 scripts/run.sh --procs 1,4,10 --out "$out/runs/$name" "$@" >"$out/$name.log" 2>&1
        echo "twogpu $name: rc=$? $(grep -E '^sweep:' "$out/$name.log")"
      }
      cores() { python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cpus']; print('workers', c['workers'], 'harness', c['harness'], 'claimed_by_others', len(c.get('claimed_by_others', [])), 'shared', c.get('shared_with_other_sweeps'))" "$1"; }
      default_sweep lone --device 0
      echo "  lone cores: $(cores "$out/runs/lone/meta.json")"
      default_sweep pair0 --device 0 & p0=$!
      default_sweep pair1 --device 1
      wait "$p0"
      echo "  pair0 cores: $(cores "$out/runs/pair0/meta.json")"
      echo "  pair1 cores: $(cores "$out/runs/pair1/meta.json")"
      grep -h "warning" "$out/pair0.log" "$out/pair1.log" | sed 's/^/  /'
      default_sweep gpus --gpus all
      tail -4 "$out/gpus.log" | sed 's/^/  /' ;;
    execwarm)
      client="python3 scripts/examples/mnist_train.py"
      "$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1 \
        --modes timeslice,mps --repeats 3 --out "$out/runs/execwarm" >"$out/execwarm.log" 2>&1
      echo "execwarm: rc=$?"; sed -n '/^workload/,/^$/p' "$out/execwarm.log"
      grep -E "warm-up|slower" "$out/execwarm.log" | sed 's/^/  /'
      python3 scripts/show_columns.py "$out/runs/execwarm/summary.csv" run_id status makespan_s | sed 's/^/  /' ;;
    profile)
      lib="$here/build/harness/libbench_mps_profiler.so"
      step_ms() { python3 -c "import json,sys
d=[json.loads(l[5:]) for l in sys.stdin if l.startswith('DONE ')]
print('%.4f' % (d[0]['elapsed_s'] * 1e3 / d[0]['tasks']) if d else 'none')"; }
      mkdir -p "$out/runs/profile-direct"
      for point in 1000:2000 100:10000; do  # burst us : steps
        duty="$here/build/harness/bench_worker --workload duty --duty-burst-us ${point%:*} --duty-host-us ${point%:*} --tasks ${point#*:} --warmup 5"
        "$bench" --workloads exec --command "echo GO | $duty" --profile-gpu --procs 1 --modes timeslice --repeats 1 \
          --exec-warmups 0 --out "$out/runs/profile-${point%:*}us" >"$out/profile-${point%:*}us.log" 2>&1
        echo "profile ${point%:*} us bursts at 50%: rc=$?"
        "$bench" profile "$out/runs/profile-${point%:*}us/profiles" | sed 's/^/  /'
        for i in 1 2 3; do
          plain=$(echo GO | $duty | step_ms)
          prof=$(echo GO | CUDA_INJECTION64_PATH="$lib" BENCH_MPS_PROFILE_DIR="$out/runs/profile-direct" $duty | step_ms)
          echo "  step time without / with the profiler: $plain / $prof ms"
        done
      done ;;
    profileclient)
      # The PyTorch reference client alone, with and without --profile-gpu, alternated (3 each): the
      # profiler's cost on its step time, and its duty and bursts beside NVML's and GPM's over the run.
      client="python3 scripts/examples/mnist_train.py"
      for i in 1 2 3; do
        for prof in plain profiled; do
          flag=(); [ "$prof" = profiled ] && flag=(--profile-gpu)
          "$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1 --modes timeslice \
            --repeats 1 --exec-warmups 1 "${flag[@]}" --out "$out/runs/client-$prof-$i" >"$out/client-$prof-$i.log" 2>&1
          echo "client $prof $i: rc=$? $(python3 scripts/show_columns.py "$out/runs/client-$prof-$i/runs.csv" facts | tr ';' '\n' | grep -E '^(step_mean_ms|step_p50_ms|completion_s|profile_duty|profile_burst_p50_ms|profile_fill|profile_nvml_util|profile_nvml_samples|profile_gpm_sm_util|profile_gpm_periods)=' | tr '\n' ' ') $(python3 scripts/show_columns.py "$out/runs/client-$prof-$i/summary.csv" gpu_util_mean gpm_sm_util | tr '\n' ' ')"
          [ "$prof" = profiled ] && grep -h '^  copy 0: steady part' "$out/client-$prof-$i.log" | sed 's/^ */  sweep: /'
        done
      done
      "$bench" profile "$out/runs/client-profiled-1/profiles" | sed 's/^/  /' ;;
    profilecost)
      # The profiler's cost per step, measured where the step's own noise is small: bench_worker's eager
      # seed001 loop with the example's 784-512-512-10 net and no host work (each step ~30 small kernels and
      # a loss read: the PyTorch client's step's records without its Python), 6 alternated pairs, run
      # directly (no harness). scripts/profile_cost.py sets the extra time per step beside the records
      # per step, and scales it to the client's step (its records per step and step time from the
      # profileclient step's runs when they are in OUT_DIR).
      lib="$here/build/harness/libbench_mps_profiler.so"
      w="$here/build/harness/bench_worker --workload mlp --mlp-profile seed001 --mlp-layers 784,512,512,10 --mlp-host-us 0 --tasks 3 --warmup 1"
      # Both on one core of their own (taskset; the profiler's buffer thread shares it), as the harness
      # pins a worker: unpinned, the plain runs of lease D spread 170-213 us a step.
      core=$(( $(nproc) - 1 ))
      for i in 1 2 3 4 5 6; do
        mkdir -p "$out/runs/profilecost/profiled-$i"
        echo GO | taskset -c "$core" $w >"$out/runs/profilecost/plain-$i.out" 2>"$out/profilecost-plain-$i.log"
        echo GO | CUDA_INJECTION64_PATH="$lib" BENCH_MPS_PROFILE_DIR="$out/runs/profilecost/profiled-$i" taskset -c "$core" $w \
          >"$out/runs/profilecost/profiled-$i.out" 2>"$out/profilecost-profiled-$i.log"
      done
      python3 scripts/profile_cost.py "$out/runs/profilecost" --steps-per-task 938 --client-runs "$out/runs" ;;
    profilevariants)
      # Where the profiler's cost on the PyTorch client comes from: one untimed run of the client, then 3
      # rounds of the variants in PROFILE_VARIANTS (default: plain profiled activity nowaits), one copy
      # time-sliced, no exec warm-up: plain; profiled (the default: host waits from CUPTI callbacks on the
      # synchronising calls); activity (host waits from CUPTI's synchronisation records,
      # BENCH_MPS_PROFILE_WAITS=activity); callbacks (=callbacks, the default named); nowaits (none, =0);
      # plain-nopin and profiled-nopin (--no-pin: the copy and CUPTI's buffer thread not held to one core).
      # Prints each run's step p50 and, per variant, the median.
      client="python3 scripts/examples/mnist_train.py"
      python3 scripts/examples/mnist_train.py >"$out/profilevariants-cold.log" 2>&1
      for i in $(seq "${PROFILE_ROUNDS:-3}"); do
        for v in ${PROFILE_VARIANTS:-plain profiled activity nowaits}; do
          flag=(); envs=()
          case "$v" in profiled*|nowaits|callbacks|activity) flag+=(--profile-gpu) ;; esac
          case "$v" in *nopin) flag+=(--no-pin) ;; esac
          [ "$v" = nowaits ] && envs=(BENCH_MPS_PROFILE_WAITS=0)
          [ "$v" = callbacks ] && envs=(BENCH_MPS_PROFILE_WAITS=callbacks)
          [ "$v" = activity ] && envs=(BENCH_MPS_PROFILE_WAITS=activity)
          env "${envs[@]}" "$bench" --workloads exec --command "$client" --exec-metric 'step_ms=([0-9.]+)' --procs 1 \
            --modes timeslice --repeats 1 --exec-warmups 0 "${flag[@]}" --out "$out/runs/variants/$v-$i" \
            >"$out/profilevariants-$v-$i.log" 2>&1
          echo "variant $v $i: rc=$? $(python3 scripts/show_columns.py "$out/runs/variants/$v-$i/runs.csv" facts | tr ';' '\n' | grep -E '^(step_p50_ms|step_mean_ms|profile_host_waits)=' | tr '\n' ' ')"
        done
      done
      python3 scripts/profile_cost.py --variants "$out/runs/variants"
      ;;
    firstset)
      # Why a sweep's first set of spin time-sliced N=1 can run ~1 % faster than later ones: spin N=1 alone
      # in 4 sets of one round on a cool GPU, then right after 20 s of mlp at N=10 under MPS, then after
      # 30 s idle; each set's throughput, mean power and SM clock (NVML) -> OUT_DIR/runs/firstset/*
      spin_sets() {
        "$bench" --workloads spin --procs 1 --modes timeslice --repeats 4 --rounds 1 --noise-target 0 \
          --out "$out/runs/firstset/$1" >"$out/firstset-$1.log" 2>&1
        echo "firstset $1: rc=$? $(python3 - "$out/runs/firstset/$1" <<'PY'
import csv, os, statistics, sys
d = sys.argv[1]
tl = list(csv.DictReader(open(os.path.join(d, "timeline.csv"))))
out = []
for r in csv.DictReader(open(os.path.join(d, "summary.csv"))):
    s = [t for t in tl if t["run_id"] == r["run_id"]]
    pw = statistics.mean(float(t["power_w"]) for t in s) if s else float("nan")
    clk = statistics.mean(float(t["sm_clock_mhz"]) for t in s) if s else float("nan")
    out.append(f"{float(r['throughput_tasks_per_s']):.3f}/s {pw:.0f} W {clk:.0f} MHz")
print("; ".join(out))
PY
)"
      }
      spin_sets cool
      "$bench" --workloads mlp --procs 10 --modes mps --repeats 1 --duration 20 --noise-target 0 \
        --out "$out/runs/firstset/heat" >"$out/firstset-heat.log" 2>&1
      echo "firstset heat (mlp N=10 MPS, 20 s): rc=$?"
      spin_sets after-load
      sleep 30
      spin_sets after-30s-idle ;;
    calib001)
      # seed001's step with deeper or wider stacks of small layers, alone, no host work: the burst each gives.
      stack() { printf '784,'; printf "$1,%.0s" $(seq "$2"); printf '10'; }  # 784, then W x D hidden layers, then 10
      for wd in 512x2 512x48 512x72 1024x16 1024x32; do
        "$bench" --workloads mlp --mlp-profile seed001 --mlp-layers "$(stack "${wd%x*}" "${wd#*x}")" --mlp-host-us 0 \
          --mlp-steps-per-task 200 --procs 1 --modes timeslice --repeats 1 --tasks 2 --out "$out/runs/calib001/$wd" \
          >"$out/calib001-$wd.log" 2>&1
        echo "calib001 $wd: rc=$? $(python3 scripts/show_columns.py "$out/runs/calib001/$wd/summary.csv" task_mean_ms \
          burst_ms gpu_busy_share gpu_util_mean | tr '\n' ' ')"
      done ;;
    zoo-alone:*|zoo-ladder:*)
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
        metric=$(python3 -c 'import json,sys
for e in json.load(open("zoo/programs.json")):
    if e["name"] == sys.argv[1]: print(e["metric"] or "")' "$p")
        margs=(); [ -n "$metric" ] && margs=(--exec-metric "$metric")
        d="$out/runs/zoo/$p"; mkdir -p "$d"
        s0=$(date +%s)
        zoo/run.sh --prepare "$p" >"$out/zoo-$p-warm.log" 2>&1  # its data, made once (untimed)
        [ -n "${ZOO_WARM:-}" ] && zoo/run.sh "$p" >>"$out/zoo-$p-warm.log" 2>&1  # and one whole run, unprofiled
        echo "zoo $p prepared: rc=$? in $(( $(date +%s) - s0 )) s"
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
      done ;;
    *) echo "unknown step $step" ;;
  esac
  echo "  [$step took $(( $(date +%s) - t0 )) s]"
  check_clean "$step"
done
# Everything in one archive (the device tool brings back at most 8 files of 16 MiB): result folders and
# logs, xz-compressed and cut into 15 MiB parts (cat results.tar.xz.part-* | tar -xJ).
pack() { mkdir -p "$out/runs/logs" && mv "$out"/*.log "$out"/*.json "$out/runs/logs/" 2>/dev/null
         local z=(xz -T0 -6) ext=xz
         command -v xz >/dev/null || { z=(gzip -6); ext=gz; }
         tar -cf - -C "$out/runs" . | "${z[@]}" | split -b 15m - "$out/results.tar.$ext.part-" && rm -rf "$out/runs"
         ls -l "$out"/results.tar.*.part-* | awk '{print "packed: " $NF " " $5 " bytes"}'; }
pack
