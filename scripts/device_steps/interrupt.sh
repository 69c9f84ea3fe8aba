# interrupt: Ctrl-C in the middle of an MPS block, then SIGKILL + a new run, then --resume -> OUT_DIR/interrupt;
# prints the rows recorded and the MPS processes left after each (expect 16 planned rows at the end, plus the
# repeats --noise-target added, and no daemon left).

log="$out/interrupt.log"; dir="$out/runs/interrupt"
"$bench" --procs 1,4 --repeats 2 --out "$dir" >"$log" 2>&1 &
pid=$!
# wait until the first MPS run of the sweep has started (its daemon is up), then Ctrl-C
for _ in $(seq 600); do grep -q "r1-timeslice-mlp-n4" "$log" && [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
sleep 0.5; kill -INT "$pid"; wait "$pid"; echo "interrupt: SIGINT -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1))"
check_clean "SIGINT"
"$bench" --resume "$dir" >>"$log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(live_mps)" -gt 0 ] && break; sleep 0.1; done
sleep 1; kill -KILL "$pid"; wait "$pid"; echo "interrupt: SIGKILL -> rc=$? rows=$(($(wc -l <"$dir/summary.csv") - 1)) live daemons=$(live_mps)"
"$bench" --resume "$dir" >>"$log" 2>&1
rc=$?
# The default sweep chases a noise target on a GPU: 16 planned runs, then the repeats it added (meta.json's noise).
added=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("noise", {}).get("added_runs", 0))' \
  "$dir/meta.json" 2>/dev/null || echo "?")
echo "interrupt: --resume -> rc=$rc rows=$(($(wc -l <"$dir/summary.csv") - 1)) (expect 16 planned + $added added for the noise target)"
grep -E "left behind|resume:|already recorded" "$log" | sed 's/^/  /'
