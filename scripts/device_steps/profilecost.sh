# profilecost: the profiler's cost per step on a low-noise step of the client's shape (bench_worker's eager seed001
# loop, 784-512-512-10, no host work), 6 alternated pairs, and that cost scaled to the client's step
# (scripts/profile_cost.py) -> OUT_DIR/runs/profilecost.

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
python3 scripts/profile_cost.py "$out/runs/profilecost" --steps-per-task 938 --client-runs "$out/runs"
