#!/usr/bin/env bash
# The whole GPU check in one go, for the device machine (one H100/H200, root, nothing installable),
# on a build carried from the build machine (see scripts/device_env.sh):
#   scripts/device_check.sh OUT_DIR STEP...
# Steps (each writes its output under OUT_DIR and prints a short line; each is a file scripts/device_steps/<name>.sh
# that says more, and the case below names the file of each step):
#   tests       ctest, all labels (GPU tests included)
#   gputests    the GPU test programs only, run directly (build/tests/test_gpu_*: a slim carried build)
#   bench       the Google Benchmark micro-benchmarks
#   reference   a default run: bench_mps --procs 1,4,10 -> OUT_DIR/reference
#   aa, aa2...  more default runs (A/A comparisons) -> OUT_DIR/<step>
#   spin110     a default run with 10% longer spin kernels -> OUT_DIR/spin110
#   interrupt   Ctrl-C in the middle of an MPS block, then SIGKILL + a new run, then --resume
#   fault       bench_mps --scenario fault --procs 4 -> OUT_DIR/fault
#   exec        the PyTorch reference client through exec, N=1,5,10, time-sliced and MPS -> OUT_DIR/exec, util-exec
#   seed001     mlp --mlp-profile seed001 (the seed's point), N=1,5,10, time-sliced and MPS -> OUT_DIR/seed001
#   dutycycle[:POINT,...]  scripts/duty_cycle.sh (those points, or all) -> OUT_DIR/dutycycle
#   calibrate   seed001 alone at several host works per step (UTIL_ONLY=1) -> OUT_DIR/dutycycle
#   rounds5, rounds1, rounds2, cap60, fresh, spin103, mlp105  default runs with one lever changed -> OUT_DIR/<step>
#   monitorcost mlp N=1 with NVML sampled every 100 ms and not sampled, alternated -> OUT_DIR/runs/monitor-*
#   modes       spin in every in-process mode beside timeslice and mps, N=1,2,4 -> OUT_DIR/modes
#   filler      the filler alone at 30, 60 and 90% -> OUT_DIR/filler-<target>
#   membw       the memory-bound triad, timeslice and mps, N=1,2,4 -> OUT_DIR/membw
#   memlimit    a membw client over its MPS pinned memory limit (expect status mps_mem_limit) -> OUT_DIR/memlimit
#   profileclient  the PyTorch reference client alone with and without --profile-gpu, 3 alternated pairs -> OUT_DIR/client-*
#   conform     bench_mps conform: PASS / FAIL / SKIP / ERROR per MPS lever (<= 3 minutes) -> OUT_DIR/conform
#   interference  mlp-infer beside 3 fillers at 60%, timeslice, mps, mps+prio, mps:auto -> OUT_DIR/interference
#   pergpu      --device 0 (the GPU by its UUID, its own daemon) and --gpus all, spin N=1,2 -> OUT_DIR/device0, gpus
#   xray        bench_mps --scenario xray (N=1,2,4,10, time-sliced and MPS, 2 repeats) -> OUT_DIR/xray
#   regimes     bench_mps --scenario regimes -> OUT_DIR/regimes; regimes:quick a 3 x 2 grid at N=10, one repeat
#   twogpu      two GPUs of one host: a default sweep alone, two at once, then --gpus all -> OUT_DIR/lone, pair0, pair1, gpus
#   execwarm    the PyTorch reference client at N=1, time-sliced and MPS, 3 repeats -> OUT_DIR/execwarm
#   profile     --profile-gpu on the PyTorch-free duty workload, and the profiler's cost on its step -> OUT_DIR/profile-*
#   advise:SUBJECT,...  bench_mps advise on each subject (spin, mlp, seed001, seed001short, membw, infer, client,
#               zoo-NAME) -> OUT_DIR/advise-<subject>
#   beside:A/B,...  bench_mps advise A --beside B for each pair -> OUT_DIR/runs/A-beside-B
#   profilecost the profiler's cost per step on a low-noise step of the client's shape -> OUT_DIR/runs/profilecost
#   profilevariants  the profiler's cost on the PyTorch client by variant (PROFILE_VARIANTS) -> OUT_DIR/runs/variants
#   firstset    spin time-sliced N=1 in 4 one-round sets: cool, after load, after 30 s idle -> OUT_DIR/runs/firstset
#   calib001    mlp's seed001 loop alone with deeper and wider stacks of small layers -> OUT_DIR/calib001/<layers>
#   zoo-alone:NAMES|all  each zoo program alone, profiled, time-sliced and under MPS -> OUT_DIR/zoo/<name>/alone
#   zoo-ladder:NAMES|all  the same, then N = ZOO_PROCS (2,4,10) in both modes -> OUT_DIR/zoo/<name>/ladder
#   cupticost   what the gate's CUPTI callbacks leave per CUDA call once it opened: bench_cupti_after_gate's four
#               states, CUPTICOST_ROUNDS (5) alternated rounds -> OUT_DIR/cupticost
#   gatecost[:NAMES]  the gate's cost on one copy alone (gemm, cuda-graphs): steady against off (GATECOST_ARMS: also keep, detach), 3 pairs -> OUT_DIR/gatecost
#   cpurate     scripts/host_calibration/cpu_rate_probe.py: a Python loop on each core alone, all at once, in pairs
#               (no GPU) -> OUT_DIR/runs/cpurate
#   hostcal[:KINDS]  the host calibration: host_loop.py launch and cpu, N = 1,2,4,10, both modes, gated -> OUT_DIR/hostcal
#   mpscal[:KINDS]  the MPS contention calibration: worker_shape.sh fma16, fma66, fma1056, tiny132, mem16, mem0 (or
#               contention_loop.py's gemmS, streamM), N = 1,2,4,10, MPS, gated, profiled -> OUT_DIR/runs/mpscal
#   pin[:NAMES]   host placement: zoo programs (mnist) at N = 1,4, both modes, gated, pinned and --no-pin (PIN_PLACEMENTS:
#               also coresK, --cores-per-worker K) -> OUT_DIR/pin/<name>
#   study[:NAMES]  the pre-registered study (cuda-graphs): the X-ray, then each program's gated ladder (N = 1,2,4,10,
#               both modes, 2 repeats) with its units and its prediction scored -> OUT_DIR/study/<name>
#   unitrange   --exec-unit-range on a PyTorch program marking its training steps with NVTX (N = 1,2,4, both modes),
#               measured by the range and by the steps' lengths -> OUT_DIR/unitrange/{marked,lengths}
#   rangecost   the NVTX range's cost on a step: tests/programs/nvtx_steps alone under the profiler, without and with
#               --exec-unit-range's environment, 8 alternated pairs -> OUT_DIR/rangecost
#   gate[:NAMES]  the start gate: zoo programs (gemm) at N = 1,2,4, both modes, --exec-gate steady and off -> OUT_DIR/gate/<name>
# DEADLINE_S=N skips what would start N seconds after the script began; LIMIT_S=N skips a zoo program whose
# expected time would end past N; PACK_STEPS=1 packs the xray and each zoo program as it ends
# (OUT_DIR/<step>.tar.xz). ZOO_WARM=1: one whole unprofiled run of each zoo program first. Full logs go to OUT_DIR/*.log; the result folders are packed into OUT_DIR/results.tar.xz.part-* (15 MiB parts; results-2.tar.xz.part-* and on for a later call with the same OUT_DIR). It never
# changes the GPU's settings and checks that no MPS daemon is left after every step. Exit status: 1 where a step
# said it failed (lib.sh's step_failed: gputests, advise, gate, an unknown step, MPS processes left), named at the
# end after everything is packed; else 0.
set -uo pipefail
# A reader that stops early (`| head`, a dropped connection) must not end the check before it packs what it measured:
# with SIGPIPE ignored, a write to a closed stdout fails and the script goes on (results/2026-12-04-cpu-rate lost a
# probe that way).
trap '' PIPE
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/scripts/device_env.sh"
out="$1"; shift
mkdir -p "$out/runs"
bench="$here/build/harness/bench_mps"
cd "$here"
steps_dir="$here/scripts/device_steps"
# live_mps, check_clean, past_deadline (DEADLINE_S, counted from here), fits (LIMIT_S), zoo_seconds, pack_step, subject_args
source "$steps_dir/lib.sh"

nvidia-smi --query-gpu=name,uuid,driver_version,compute_mode,clocks.max.sm,memory.total --format=csv,noheader | sed 's/^/GPU: /'
check_clean "start"
for step_asked in "$@"; do
  step="$step_asked"
  if past_deadline; then echo "$step: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  step_t0=$(date +%s)
  # The step's file, sourced: it sees $out, $bench, $here, $step (advise:spin,mlp whole) and lib.sh's helpers.
  case "$step" in
    tests|gputests|bench|cupticost|monitorcost|modes|filler|membw|memlimit|conform|pergpu) step_file="$step" ;;
    interference|interrupt|fault|exec|seed001|calibrate|xray|twogpu|execwarm) step_file="$step" ;;
    profile|profileclient|profilecost|profilevariants|firstset|calib001) step_file="$step" ;;
    reference|aa*|spin110|spin103|mlp105|rounds5|rounds1|rounds2|cap60|fresh) step_file=reference ;;
    dutycycle|dutycycle:*) step_file=dutycycle ;;
    regimes|regimes:*) step_file=regimes ;;
    advise:*) step_file=advise ;;
    beside:*) step_file=beside ;;
    zoo-alone:*|zoo-ladder:*) step_file=zoo ;;
    gate|gate:*) step_file=gate ;;
    gatecost|gatecost:*) step_file=gatecost ;;
    hostcal|hostcal:*) step_file=hostcal ;;
    mpscal|mpscal:*) step_file=mpscal ;;
    pin|pin:*) step_file=pin ;;
    study|study:*) step_file=study ;;
    unitrange|rangecost|cpurate) step_file="$step" ;;
    *) step_file=""; echo "unknown step $step"; step_failed "unknown step $step" ;;
  esac
  # shellcheck source=/dev/null
  [ -z "$step_file" ] || source "$steps_dir/$step_file.sh"
  # Said by the name asked and the time read before it: a sourced step may set variables of its own.
  echo "  [$step_asked took $(( $(date +%s) - step_t0 )) s]"
  check_clean "$step_asked"
done
# Everything in one archive (the device tool brings back at most 8 files of 16 MiB): result folders and
# logs, xz-compressed and cut into 15 MiB parts (cat results.tar.xz.part-* | tar -xJ).
# A second call with the same OUT_DIR packs into results-2.tar..., never over the first call's parts.
pack() { mkdir -p "$out/runs/logs" && mv "$out"/*.log "$out"/*.json "$out/runs/logs/" 2>/dev/null
         local z=(xz -T0 -6) ext=xz name=results k=1
         command -v xz >/dev/null || { z=(gzip -6); ext=gz; }
         while compgen -G "$out/$name.tar.*.part-*" >/dev/null; do k=$((k + 1)); name="results-$k"; done
         tar -cf - -C "$out/runs" . | "${z[@]}" | split -b 15m - "$out/$name.tar.$ext.part-" && rm -rf "$out/runs"
         ls -l "$out/$name".tar.*.part-* | awk '{print "packed: " $NF " " $5 " bytes"}'; }
pack
# Exit 1 where a step said it failed (step_failed: gputests, advise, gate, an unknown step, MPS processes left):
# what ran is packed above all the same; other steps print their rc and are read from their lines.
if [ "${#failed_steps[@]}" -gt 0 ]; then
  printf 'device_check: failed: %s\n' "${failed_steps[@]}"
  exit 1
fi
