#!/usr/bin/env bash
# The duty-cycle map: how much MPS buys as a function of how busy one process keeps the GPU.
#   scripts/duty_cycle.sh OUT_DIR [POINT ...]
# POINT is seed001:<host us per step> (mlp's seed001 profile: the seed's PyTorch loop in C++), gpubound
# (mlp's default, one CUDA graph per step) or spin (seed 000's busy kernel). Default: seed001:0
# seed001:100 seed001:300 seed001:1000 seed001:3000 gpubound spin. Each point is two sweeps:
#   OUT_DIR/util-<point>  one process alone, time-sliced, >= ~3 s so that NVML reads a steady
#                         utilisation: the x axis
#   OUT_DIR/<point>       N = 1 and 10, time-sliced and MPS, 3 repeats: the y axes
# With UTIL_ONLY=1 only the first. The PyTorch reference client's folders (exec, util-exec: see
# scripts/device_check.sh) go on the same plot: python3 scripts/plot_duty_cycle.py OUT_DIR [MORE_DIRS...]
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bench="${BENCH_MPS:-$here/build/harness/bench_mps}"
out="$1"; shift
points=("$@"); [ ${#points[@]} -eq 0 ] && points=(seed001:0 seed001:100 seed001:300 seed001:1000 seed001:3000 gpubound spin)
mkdir -p "$out"
common=(--procs 1,10 --modes timeslice,mps --repeats 3)
sweep() {
  local name="$1"; shift
  local t0; t0=$(date +%s)
  "$bench" "$@" --out "$out/$name" >"$out/$name.log" 2>&1
  local rc=$?
  local util; util=$(python3 scripts/show_columns.py "$out/$name/summary.csv" gpu_util_mean 2>/dev/null | head -1)
  echo "  $name: rc=$rc in $(( $(date +%s) - t0 )) s${util:+, gpu_util_mean of the first run $util}"
}
for p in "${points[@]}"; do
  case "$p" in
    seed001:*)
      h="${p#seed001:}"
      # epochs for ~3 s alone: a step is roughly the host work plus ~250 us
      epochs=$(awk -v h="$h" 'BEGIN { t = 938 * (h + 250) * 1e-6; n = int(3 / t) + 1; print (n < 2 ? 2 : n) }')
      args=(--workloads mlp --mlp-profile seed001 --mlp-host-us "$h")
      sweep "util-seed001-h$h" "${args[@]}" --procs 1 --modes timeslice --repeats 1 --tasks "$epochs"
      [ "${UTIL_ONLY:-0}" = 1 ] || sweep "seed001-h$h" "${args[@]}" "${common[@]}" ;;
    gpubound)
      sweep util-gpubound --workloads mlp --procs 1 --modes timeslice --repeats 1 --duration 3
      [ "${UTIL_ONLY:-0}" = 1 ] || sweep gpubound --workloads mlp "${common[@]}" ;;
    spin)
      sweep util-spin --workloads spin --procs 1 --modes timeslice --repeats 1 --tasks 300
      [ "${UTIL_ONLY:-0}" = 1 ] || sweep spin --workloads spin "${common[@]}" ;;
    *) echo "duty_cycle.sh: unknown point '$p' (seed001:<us>, gpubound, spin)" >&2; exit 2 ;;
  esac
done
