# calib001: mlp's seed001 loop alone with deeper and wider stacks of small layers, no host work: the burst and busy
# share each gives -> OUT_DIR/calib001/<layers>.

# seed001's step with deeper or wider stacks of small layers, alone, no host work: the burst each gives.
stack() { printf '784,'; printf "$1,%.0s" $(seq "$2"); printf '10'; }  # 784, then W x D hidden layers, then 10
for wd in 512x2 512x48 512x72 1024x16 1024x32; do
  "$bench" --workloads mlp --mlp-profile seed001 --mlp-layers "$(stack "${wd%x*}" "${wd#*x}")" --mlp-host-us 0 \
    --mlp-steps-per-task 200 --procs 1 --modes timeslice --repeats 1 --tasks 2 --out "$out/runs/calib001/$wd" \
    >"$out/calib001-$wd.log" 2>&1
  echo "calib001 $wd: rc=$? $(python3 scripts/show_columns.py "$out/runs/calib001/$wd/summary.csv" task_mean_ms \
    burst_ms gpu_busy_share gpu_util_mean | tr '\n' ' ')"
done
