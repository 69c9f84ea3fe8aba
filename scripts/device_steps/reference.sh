# reference, aa*, spin110, spin103, mlp105, rounds5, rounds1, rounds2, cap60, fresh: a default run (scripts/run.sh
# --procs 1,4,10) -> OUT_DIR/<step>: reference (then compared with $REFERENCE, by default results/2026-11-27-h100-80gb-hbm3)
# (A/A) as it is; spin110 / spin103 10% / 3% longer spin kernels, mlp105 a 5% longer mlp step, rounds5 / rounds1 --rounds
# 5 / 1, rounds2 --repeats 4 --rounds 2, cap60 --noise-time-cap 60 --max-repeats 16, fresh --rounds 1 --settle 0.5 (issue 14).

extra=()
case "$step" in
  spin110) extra=(--spin-us 110) ;;
  spin103) extra=(--spin-us 103) ;;
  mlp105) extra=(--mlp-extra-us 5) ;;
  rounds5) extra=(--rounds 5) ;;
  rounds1) extra=(--rounds 1) ;;
  rounds2) extra=(--repeats 4 --rounds 2) ;;
  cap60) extra=(--noise-time-cap 60 --max-repeats 16) ;;
  fresh) extra=(--rounds 1 --settle 0.5) ;;
esac
start=$(date +%s.%N)
BENCH_MPS_NO_BUILD=1 scripts/run.sh --procs 1,4,10 --out "$out/runs/$step" "${extra[@]}" >"$out/$step.log" 2>&1
echo "$step: scripts/run.sh --procs 1,4,10 ${extra[*]} -> rc=$? in $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
grep -E "^report:|^sweep:" "$out/$step.log"
sed -n '/^workload/,/^$/p' "$out/$step.log"
# The reference it is meant to match (README): the same plan on an H100, compared on the worker sets.
reference_dir="${REFERENCE:-results/2026-11-27-h100-80gb-hbm3}"
if [ "$step" = reference ] && [ -d "$reference_dir" ]; then
  "$bench" compare "$reference_dir" "$out/runs/$step" --md "$out/runs/$step-compare.md" \
    >"$out/$step-compare.log" 2>&1
  echo "  compare against $reference_dir: rc=$?"
  grep -E "pairs:|^bench_mps:" "$out/$step-compare.log" | head -3 | sed 's/^/  /'
  grep -E "\| (FASTER|SLOWER|UNSURE) " "$out/$step-compare.log" | head -8 | sed 's/^/  /'
fi
