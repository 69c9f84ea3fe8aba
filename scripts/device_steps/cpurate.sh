# cpurate: scripts/host_calibration/cpu_rate_probe.py (issue 42: what sets a pinned copy's rate): a Python loop on
# each of CPURATE_CORES (1-15) alone, all at once, every pair at once, then alone again; no GPU, no MPS daemon ->
# OUT_DIR/runs/cpurate/probe.csv, and the machine it ran on (host.txt: the GPU, lscpu, the kernel, /proc/uptime, steal
# in /proc/stat before and after); prints the probe's report.
d="$out/runs/cpurate"; mkdir -p "$d"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; uname -r; lscpu
  echo "uptime: $(cat /proc/uptime)"; echo "before: $(grep '^cpu ' /proc/stat)"; } >"$d/host.txt" 2>&1
s0=$(date +%s)
python3 scripts/host_calibration/cpu_rate_probe.py run "$d/probe.csv" --cores "${CPURATE_CORES:-1-15}" \
  --alone-s "${CPURATE_ALONE_S:-1}" --together-s "${CPURATE_TOGETHER_S:-10}" --pair-s "${CPURATE_PAIR_S:-0.3}" \
  >"$out/cpurate.log" 2>&1
echo "cpurate: rc=$? in $(( $(date +%s) - s0 )) s"
echo "after: $(grep '^cpu ' /proc/stat)" >>"$d/host.txt"
grep -E '^(GPU|Model name|Hypervisor|Thread|Core|Socket|NUMA node\(s\))' "$d/host.txt" | sed 's/^/  /'
python3 scripts/host_calibration/cpu_rate_probe.py report "$d/probe.csv" 2>&1 | tee -a "$out/cpurate.log" | sed 's/^/  /'
