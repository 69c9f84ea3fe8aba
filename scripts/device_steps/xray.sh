# xray: bench_mps --scenario xray (N=1,2,4,10, time-sliced and MPS, 2 repeats) -> OUT_DIR/xray; prints the X-ray and
# its busy, turns and gaps facts; PACK_STEPS=1 packs it at once (OUT_DIR/xray.tar.xz).

"$bench" --scenario xray --out "$out/runs/xray" >"$out/xray.log" 2>&1
echo "xray: rc=$?"; sed -n '/^time-slice X-ray/,/^$/p' "$out/xray.log"
python3 scripts/show_columns.py "$out/runs/xray/runs.csv" run_id worker facts --where repeat=1 | grep -E "n4-xray_busy|n1-xray_turns" \
  | head -6 | sed 's/^/  /'
python3 scripts/show_columns.py "$out/runs/xray/runs.csv" run_id facts --where worker=0 | grep -E "xray_gaps" \
  | sed 's/^/  /'
[ "${PACK_STEPS:-0}" = 1 ] && pack_step xray runs/xray xray.log
