#!/usr/bin/env bash
# Where does run-to-run noise of the mlp workload come from? Runs one standalone bench_worker at a
# time (no harness), 5 processes per condition: eager or graph launch, pinned to a core or not, with
# or without an NVML poller like the harness's monitor. Prints each process's mean step time, the
# spread of those means, and the range of 100-step chunk medians. See docs/NOISE.md. Device machine
# only; never changes the GPU's settings.
#   scripts/noise_probe.sh OUT_DIR [TASKS]
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/scripts/device_env.sh"
out="$1"; tasks="${2:-2000}"
mkdir -p "$out"
worker="$here/build/harness/bench_worker"
runs=5

one() {  # one() LABEL PREFIX... : runs the worker once under PREFIX, appends its TASK lines to a file
  local label="$1"; shift
  local f="$out/$label.$(date +%s%N).tasks"
  echo GO | "$@" "$worker" --workload mlp --tasks "$tasks" "${WORKER_EXTRA[@]}" | grep '^TASK' >"$f"
}
poll() {  # poll QUERY: an nvidia-smi poller at 100 ms in the background, like the harness's monitor
  nvidia-smi --query-gpu="$1" --format=csv,noheader -lms 100 >/dev/null 2>&1 &
  echo $!
}
series() {  # series LABEL QUERY|- PREFIX...
  local label="$1" query="$2"; shift 2
  local p=""
  [ "$query" != - ] && p=$(poll "$query") && sleep 0.3
  for _ in $(seq $runs); do one "$label" "$@"; done
  [ -n "$p" ] && kill "$p" && wait "$p" 2>/dev/null
}

WORKER_EXTRA=(--mlp-launch eager)
series eager          -                                                taskset -c 2
series eager_unpinned -                                                env
series eager_polled   utilization.gpu,clocks.sm,memory.used,power.draw taskset -c 2
WORKER_EXTRA=(--mlp-launch graph)
series graph          -                                                taskset -c 2
series graph_unpinned -                                                env
series graph_polled   utilization.gpu,clocks.sm,memory.used,power.draw taskset -c 2

python3 - "$out" <<'PY'
import glob, os, statistics as st, sys, collections
groups = collections.OrderedDict()
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.tasks")), key=os.path.getmtime):
    d = [(int(b) - int(a)) / 1e3 for _, a, b in (l.split() for l in open(f))]
    if not d: continue
    chunks = [st.median(d[i:i + 100]) for i in range(0, len(d), 100)]
    groups.setdefault(os.path.basename(f).split(".")[0], []).append((st.mean(d), min(chunks), max(chunks)))
print(f"{'condition':14} {'step mean us per process':48} {'spread':>7} {'chunk med min..max us':>22}")
for k, v in groups.items():
    means = [m for m, _, _ in v]
    spread = (max(means) - min(means)) / st.median(means) * 100
    print(f"{k:14} {' '.join(f'{m:7.1f}' for m in means):48} {spread:6.1f}% "
          f"{min(c for _, c, _ in v):9.1f}..{max(c for _, _, c in v):.1f}")
PY
rm -f "$out"/*.tasks
