#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. GPU tests (ctest label `gpu`) skip
# themselves where no GPU is visible. Extra arguments go to ctest (e.g. -L gpu, -R mps).
#   BENCH_MPS_SKIP_SLURM=1 scripts/test.sh    skips the one test that installs and starts Slurm
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
cd "$build"
# Said before it happens: the Slurm test (tests/slurm/slurm_cluster_test.sh) brings up a private one-node
# cluster, installing slurmctld, slurmd, slurm-client and munge with apt-get first where they are missing.
if [ "${BENCH_MPS_SKIP_SLURM:-0}" = 1 ]; then
  echo "test.sh: slurm_job_array skipped (BENCH_MPS_SKIP_SLURM=1)" >&2
elif [ "$(id -u)" -eq 0 ]; then
  missing=""
  for c in slurmctld slurmd sbatch munged; do command -v "$c" >/dev/null || missing="$missing $c"; done
  if [ -n "$missing" ]; then
    echo "test.sh: the slurm_job_array test will install Slurm and munge with apt-get (missing:$missing)" \
      "and start a private one-node cluster as root, torn down after; BENCH_MPS_SKIP_SLURM=1 skips it" >&2
  else
    echo "test.sh: the slurm_job_array test starts a private one-node Slurm cluster as root, torn down" \
      "after; BENCH_MPS_SKIP_SLURM=1 skips it" >&2
  fi
else
  echo "test.sh: not root, so the slurm_job_array test will skip (a private Slurm cluster needs root)" >&2
fi
ctest --output-on-failure -j "$(nproc)" "$@"
