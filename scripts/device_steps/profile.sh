# profile: --profile-gpu on the PyTorch-free duty workload (1 ms bursts at 50%, then 0.1 ms at 50%) through exec,
# `bench_mps profile`'s summary, and the profiler's cost on the step time: the same worker with and without the
# injection, 3 times each, alternated -> OUT_DIR/profile-*.

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
done
