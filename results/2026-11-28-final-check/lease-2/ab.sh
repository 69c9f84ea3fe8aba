set -u
rm -rf build && mv .device/build build && mv .device/old old
mkdir -p $OUT/ab
nvidia-smi --query-gpu=uuid,temperature.gpu --format=csv,noheader
for i in 1 2; do
  for b in old new; do
    exe=old/harness/bench_mps; [ $b = new ] && exe=build/harness/bench_mps
    s=$(date +%s); $exe --procs 1,4,10 --out $OUT/ab/$b$i > $OUT/ab/$b$i.log 2>&1; echo "$b$i rc=$? in $(( $(date +%s) - s )) s"
    grep "^sweep:" $OUT/ab/$b$i.log
  done
done
for p in "results/2026-11-27-h100-80gb-hbm3 ab/old1" "results/2026-11-27-h100-80gb-hbm3 ab/new1" "results/2026-11-27-h100-80gb-hbm3 ab/old2" "results/2026-11-27-h100-80gb-hbm3 ab/new2" "ab/old1 ab/new1" "ab/old2 ab/new2" "ab/old1 ab/old2" "ab/new1 ab/new2"; do
  set -- $p; base=$1; [ "${base#ab}" != "$base" ] && base=$OUT/$base
  build/harness/bench_mps compare $base $OUT/$2 --out $OUT/ab/cmp-$(basename $1)-vs-$(basename $2) --allow-different-gpu > /dev/null 2>&1
  echo "$1 vs $2: $(grep -h '^\*\*Summary' $OUT/ab/cmp-$(basename $1)-vs-$(basename $2)/comparison.md | cut -c1-80)"
  grep -h "SLOWER\|FASTER" $OUT/ab/cmp-$(basename $1)-vs-$(basename $2)/comparison.md | grep "^|" | cut -c1-110
done
echo "live mps: $(pgrep -c nvidia-cuda-mps || true)"
