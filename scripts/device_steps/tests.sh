# tests: ctest, all labels (GPU tests included), on the carried build -> OUT_DIR/tests.log; prints ctest's count
# of tests passed and failed, its list of failed tests and the skipped ones.

(cd build && ctest --output-on-failure -j 4 >"$out/tests.log" 2>&1)
echo "tests: rc=$? $(grep -E 'tests passed|tests failed' "$out/tests.log")"
grep -E "^\s+[0-9]+ - " "$out/tests.log" | head -20
grep -E "Skipped|Not Run" "$out/tests.log" | head -5
