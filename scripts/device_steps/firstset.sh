# firstset: spin time-sliced N=1 in 4 one-round sets: cool, right after 20 s of mlp N=10 under MPS, after 30 s idle
# (throughput, power, SM clock per set) -> OUT_DIR/runs/firstset.

# Why a sweep's first set of spin time-sliced N=1 can run ~1 % faster than later ones: spin N=1 alone
# in 4 sets of one round on a cool GPU, then right after 20 s of mlp at N=10 under MPS, then after
# 30 s idle; each set's throughput, mean power and SM clock (NVML) -> OUT_DIR/runs/firstset/*
spin_sets() {
  "$bench" --workloads spin --procs 1 --modes timeslice --repeats 4 --rounds 1 --noise-target 0 \
    --out "$out/runs/firstset/$1" >"$out/firstset-$1.log" 2>&1
  echo "firstset $1: rc=$? $(python3 - "$out/runs/firstset/$1" <<'PY'
import csv, os, statistics, sys
d = sys.argv[1]
tl = list(csv.DictReader(open(os.path.join(d, "timeline.csv"))))
out = []
for r in csv.DictReader(open(os.path.join(d, "summary.csv"))):
    s = [t for t in tl if t["run_id"] == r["run_id"]]
    pw = statistics.mean(float(t["power_w"]) for t in s) if s else float("nan")
    clk = statistics.mean(float(t["sm_clock_mhz"]) for t in s) if s else float("nan")
    out.append(f"{float(r['throughput_tasks_per_s']):.3f}/s {pw:.0f} W {clk:.0f} MHz")
print("; ".join(out))
PY
)"
}
spin_sets cool
"$bench" --workloads mlp --procs 10 --modes mps --repeats 1 --duration 20 --noise-target 0 \
  --out "$out/runs/firstset/heat" >"$out/firstset-heat.log" 2>&1
echo "firstset heat (mlp N=10 MPS, 20 s): rc=$?"
spin_sets after-load
sleep 30
spin_sets after-30s-idle
