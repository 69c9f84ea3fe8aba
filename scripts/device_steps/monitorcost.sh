# monitorcost: mlp N=1, 10 one-round sets a mode, with NVML sampled every 100 ms and not sampled (BENCH_MPS_MONITOR_MS=0),
# alternated twice -> OUT_DIR/runs/monitor-*; prints the rounds' spread per sweep and mode.

# Does NVML's sampling (every 100 ms during a sweep) disturb mlp at N=1? 10 one-round sets a mode,
# sampled and not (BENCH_MPS_MONITOR_MS=0), alternated twice; per sweep the rounds' throughput.
for i in 1 2; do
  for ms in 100 0; do
    BENCH_MPS_MONITOR_MS=$ms build/harness/bench_mps --workloads mlp --procs 1 --repeats 10 --rounds 1 \
      --noise-target 0 --out "$out/runs/monitor-$ms-$i" >"$out/monitor-$ms-$i.log" 2>&1
    echo "monitorcost $ms ms #$i: rc=$?"
  done
done
python3 - "$out/runs" <<'PY'
import csv, glob, os, statistics as st, sys
for d in sorted(glob.glob(os.path.join(sys.argv[1], "monitor-*"))):
    rows = list(csv.DictReader(open(os.path.join(d, "summary.csv"))))
    for mode in ("timeslice", "mps"):
        v = [float(r["throughput_tasks_per_s"]) for r in rows if r["mode"] == mode and r["status"] == "ok"]
        if len(v) < 2: continue
        best = max(v)
        print("monitorcost %s %s: %d rounds, mean %.1f/s, sd %.2f%%, %d more than 1%% below the best" % (
            os.path.basename(d), mode, len(v), st.mean(v), 100 * st.stdev(v) / st.mean(v), sum(1 for x in v if x < 0.99 * best)))
PY
