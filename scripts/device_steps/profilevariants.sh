# profilevariants: the profiler's cost on the PyTorch client by variant (PROFILE_VARIANTS: plain, profiled, activity,
# nowaits; callbacks, plain-nopin, profiled-nopin), PROFILE_ROUNDS rounds (3) -> OUT_DIR/runs/variants.

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
