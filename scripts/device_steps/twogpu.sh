# twogpu: two GPUs of one host: a default sweep alone on GPU 0 -> OUT_DIR/lone; two independent default sweeps at
# once, --device 0 and --device 1, each from its own shell (core claims) -> pair0, pair1; then --gpus all with its
# fleet report -> gpus.

default_sweep() {  # NAME, then options
  local name="$1"; shift
  BENCH_MPS_NO_BUILD=1 scripts/run.sh --procs 1,4,10 --out "$out/runs/$name" "$@" >"$out/$name.log" 2>&1
  echo "twogpu $name: rc=$? $(grep -E '^sweep:' "$out/$name.log")"
}
cores() { python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cpus']; print('workers', c['workers'], 'harness', c['harness'], 'claimed_by_others', len(c.get('claimed_by_others', [])), 'shared', c.get('shared_with_other_sweeps'))" "$1"; }
default_sweep lone --device 0
echo "  lone cores: $(cores "$out/runs/lone/meta.json")"
default_sweep pair0 --device 0 & p0=$!
default_sweep pair1 --device 1
wait "$p0"
echo "  pair0 cores: $(cores "$out/runs/pair0/meta.json")"
echo "  pair1 cores: $(cores "$out/runs/pair1/meta.json")"
grep -h "warning" "$out/pair0.log" "$out/pair1.log" | sed 's/^/  /'
default_sweep gpus --gpus all
tail -4 "$out/gpus.log" | sed 's/^/  /'
