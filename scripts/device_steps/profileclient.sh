# profileclient: the PyTorch reference client alone with and without --profile-gpu, 3 alternated pairs -> OUT_DIR/client-*:
# the profiler's cost on its step time; its duty beside NVML's and GPM's over the run, and over its steady part (the
# sweep's "copy 0: steady part ..." line, bench_mps profile's "over it, as its run recorded: ..." line).

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
"$bench" profile "$out/runs/client-profiled-1/profiles" | sed 's/^/  /'
