# gputests: the GPU test programs only, run directly (build/tests/test_gpu_*: a slim carried build) -> OUT_DIR/gputests.log;
# prints the OK / failed / skipped counts, the failures, test_gpu_profile's "profile clock: ..." line (NVML and GPM
# over the steady part) and test_gpu_sweep's energy lines.

# The GPU test programs on their own (a carried build with only them, bench_mps and bench_worker).
rc=0; : >"$out/gputests.log"
for t in build/tests/test_gpu_workloads build/tests/test_gpu_sweep build/tests/test_gpu_mechanisms \
         build/tests/test_gpu_profile; do
  [ -x "$t" ] || { echo "gputests: $t missing"; rc=1; continue; }
  timeout 300 "$t" >>"$out/gputests.log" 2>&1 || rc=$?
done
# gtest names each failed or skipped test twice (as it ends, and in the closing list): count the first.
echo "gputests: rc=$rc $(grep -cE '^\[       OK \]' "$out/gputests.log") OK, $(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gputests.log") failed, $(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/gputests.log") skipped"
grep -E "^\[  FAILED  \] .* \([0-9]+ ms\)$|Failure" "$out/gputests.log" | head -10
[ "$rc" -eq 0 ] || step_failed "gputests (rc=$rc)"
grep -E "^clock: " "$out/gputests.log" | sed 's/^/  profile /'  # test_gpu_profile: NVML and GPM over the steady part
grep -E "occurrences, middle length|^units.csv: " "$out/gputests.log" | head -4 | sed 's/^/  /'  # test_gpu_profile: NVTX
grep -E "^energy: " "$out/gputests.log" | head -4 | sed 's/^/  /'  # test_gpu_sweep: NVML's energy counter  # test_gpu_profile: NVML and GPM over the steady part
