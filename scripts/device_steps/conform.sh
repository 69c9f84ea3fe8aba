# conform: bench_mps conform: PASS / FAIL / SKIP / ERROR per MPS lever (<= 3 minutes) -> OUT_DIR/conform;
# prints its table.

start=$(date +%s)
"$bench" conform --out "$out/runs/conform" >"$out/conform.log" 2>&1
echo "conform: rc=$? (0 every row PASS or SKIP, 1 a FAIL or ERROR) in $(( $(date +%s) - start )) s"
sed -n '/^| lever/,/^$/p' "$out/conform.log"
