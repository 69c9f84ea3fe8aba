# beside:A/B,...: bench_mps advise A --beside B for each pair (A as for advise:, B one of bench_mps's workloads;
# BESIDE_DURATION, 3 s, B's --duration: cover A's run; BESIDE_BUDGET, else ADVISE_BUDGET, 300) -> OUT_DIR/runs/A-beside-B;
# prints advise's lines and beside.md's table.

# beside:A/B,...: bench_mps advise A --beside B (A a subject as for advise:, without options of its own;
# B one of bench_mps's workloads); BESIDE_DURATION (s, default 3) is B's --duration, to cover A's run; BESIDE_BUDGET its --budget (ADVISE_BUDGET).
IFS=, read -r -a pairs <<<"${step#beside:}"
for pair in "${pairs[@]}"; do
  if past_deadline; then echo "beside $pair: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  a="${pair%%/*}"; b="${pair#*/}"; tag="${a}-beside-${b}"
  subject_args "$a" || { echo "beside: unknown subject $a"; continue; }
  what=("${what[@]:0:2}")  # A's name only: the options after `--` are the pair's sweep's
  start=$(date +%s)
  "$bench" advise "${what[@]}" --beside "$b" --budget "${BESIDE_BUDGET:-${ADVISE_BUDGET:-300}}" --out "$out/runs/$tag" \
    -- --duration "${BESIDE_DURATION:-3}" >"$out/$tag.log" 2>&1
  echo "beside $pair: rc=$? in $(( $(date +%s) - start )) s"
  grep -v '^\[' "$out/$tag.log" | sed 's/^/  /'
  [ -f "$out/runs/$tag/beside.md" ] && sed -n '/^|/p' "$out/runs/$tag/beside.md" | sed 's/^/  /'
done
