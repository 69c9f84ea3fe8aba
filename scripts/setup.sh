#!/usr/bin/env bash
# Installs the distro packages bench_mps needs (Debian/Ubuntu, apt) if any is missing, checks the CUDA
# toolkit, and configures the build folder (default: build/, or $BENCH_MPS_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BENCH_MPS_BUILD_DIR:-$root/build}"

packages=(cmake make g++ git libboost-dev libboost-filesystem-dev libcli11-dev nlohmann-json3-dev
          libgtest-dev libbenchmark-dev libfccp-dev zlib1g-dev python3 python3-matplotlib python3-yaml clang-format clang-tidy)
missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13/bin; do [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break; done
fi
command -v nvcc >/dev/null || { echo "setup: nvcc not found: install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads)" >&2; exit 3; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" >/dev/null
  echo "setup: configured $build"
fi
