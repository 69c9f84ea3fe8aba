# cpurate: scripts/host_calibration/cpu_rate_probe.py (issue 42: what sets a pinned copy's rate): a Python loop on
# each of CPURATE_CORES (1-15) alone, all at once, every pair at once, then alone again; no GPU, no MPS daemon ->
# OUT_DIR/runs/cpurate/probe.csv; prints the probe's report.
d="$out/runs/cpurate"; mkdir -p "$d"
s0=$(date +%s)
python3 scripts/host_calibration/cpu_rate_probe.py run "$d/probe.csv" --cores "${CPURATE_CORES:-1-15}" \
  --alone-s "${CPURATE_ALONE_S:-1}" --together-s "${CPURATE_TOGETHER_S:-10}" --pair-s "${CPURATE_PAIR_S:-0.3}" \
  >"$out/cpurate.log" 2>&1
echo "cpurate: rc=$? in $(( $(date +%s) - s0 )) s"
python3 scripts/host_calibration/cpu_rate_probe.py report "$d/probe.csv" 2>&1 | tee -a "$out/cpurate.log" | sed 's/^/  /'
