# regimes: bench_mps --scenario regimes (the X-ray, then the 5 x 5 grid at N=1,4,10) -> OUT_DIR/regimes;
# regimes:quick a 3 x 2 grid at N=10, one repeat. Prints its output from the X-ray on.

extra=()
[ "$step" = "regimes:quick" ] && extra=(--procs 10 --regime-bursts-ms 0.1,1,10 --regime-duties 25,75 --repeats 1)
"$bench" --scenario regimes "${extra[@]}" --out "$out/runs/regimes" >"$out/regimes.log" 2>&1
echo "regimes: rc=$?"; sed -n '/^time-slice X-ray/,$p' "$out/regimes.log"
