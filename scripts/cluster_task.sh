#!/usr/bin/env bash
# One bench_mps sweep for one task of a cluster scheduler, on the GPU the scheduler gave it: what the
# Slurm templates (scripts/slurm/) and the Kubernetes Jobs (scripts/k8s/) run.
#   cluster_task.sh bench_mps options...
# It writes $BENCH_MPS_RESULTS/<cluster>/<node>-<gpu>/, so that `bench_mps report
# $BENCH_MPS_RESULTS/<cluster>` compares every node and GPU (a folder that exists already gets
# -<job> appended). bench_mps itself measures CUDA's device 0, the first GPU of CUDA_VISIBLE_DEVICES
# as the scheduler set it, and names its UUID in meta.json: the folder only needs a unique name.
#   <cluster>  BENCH_MPS_CLUSTER, else Slurm's SLURM_CLUSTER_NAME, else "cluster"
#   <node>     NODE_NAME (Kubernetes: the downward API), else the short host name (Slurm)
#   <gpu>      Slurm: gpu<N>, N from SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES; elsewhere the GPU's UUID
#              prefix from nvidia-smi, else gpu<JOB_COMPLETION_INDEX> (Kubernetes Indexed Job)
# Settings: BENCH_MPS_ROOT (the checkout; default: the folder above this script), BENCH_MPS (the
# program; default $BENCH_MPS_ROOT/build/harness/bench_mps), BENCH_MPS_RESULTS (default
# $BENCH_MPS_ROOT/results).
set -euo pipefail
root="${BENCH_MPS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}"
bench="${BENCH_MPS:-$root/build/harness/bench_mps}"
[ -x "$bench" ] || { echo "cluster_task.sh: $bench not found: build it first (scripts/build.sh bench_mps bench_worker)" >&2; exit 3; }
cluster="${BENCH_MPS_CLUSTER:-${SLURM_CLUSTER_NAME:-cluster}}"
node="${NODE_NAME:-$(hostname -s)}"
if [ -n "${SLURM_JOB_ID:-}" ]; then
  gpu="${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-${SLURM_ARRAY_TASK_ID:-0}}}"
  gpu="gpu${gpu%%,*}"
  job="job$SLURM_JOB_ID"
else
  gpu="$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1 | cut -c1-12 || true)"
  [ -n "$gpu" ] || gpu="gpu${JOB_COMPLETION_INDEX:-0}"
  job="pod${JOB_COMPLETION_INDEX:-$$}"
fi
out="${BENCH_MPS_RESULTS:-$root/results}/$cluster/$node-$gpu"
[ -e "$out" ] && out="$out-$job"
mkdir -p "$(dirname "$out")"
echo "cluster_task.sh: $(date -u +%FT%TZ) node $node, CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}, results $out"
exec "$bench" "$@" --out "$out"
