#!/usr/bin/env bash
# tests/zoo/check_zoo.sh: CPU-only checks of zoo/ (no GPU, torch or numpy needed; git and python3 are).
#   1. every file listed in zoo/pytorch-examples/SOURCE.md is byte-identical to pytorch/examples at the
#      recorded commit: its `git hash-object` equals the blob hash recorded there (no mirror needed), and
#      nothing unlisted sits beside them
#   2. `zoo/run.sh --list` prints exactly the names in zoo/programs.json (which is well-formed)
#   3. `zoo/run.sh nosuch` exits 2
#   4. zoo/make_data.py with tiny sizes: IDX headers (magic, counts, sizes), labels, the corpus files
#      and their token counts
#   5. two make_data.py runs at once into one folder: one complete, uncorrupted result, no leftovers
#   6. `bash -n` on run.sh, `python3 -m py_compile` on zoo/here/*.py and make_data.py (run last)
#   7. (before 6) with a fake python3 first on PATH: the command line run.sh builds for each program, that
#      its data is where the program looks, that its exit code comes back, that its work folder goes
# Run from anywhere: bash tests/zoo/check_zoo.sh. Exits non-zero with a message on the first failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
ZOO="$REPO/zoo"
T="$(mktemp -d "${TMPDIR:-/tmp}/check_zoo.XXXXXX")"
trap 'rm -rf "$T"' EXIT
trap 'rc=$?; [[ $- == *e* ]] && echo "check_zoo: FAIL: unexpected error (exit $rc) at line $LINENO" >&2' ERR
for v in $(compgen -v | grep '^ZOO_' || true); do unset "$v"; done  # the defaults are what is checked

fail() { echo "check_zoo: FAIL: $*" >&2; exit 1; }
pass() { echo "check_zoo: ok: $*"; }

# ------------------------------------------------------------------------- 1. unmodified sources
SRC="$ZOO/pytorch-examples/SOURCE.md"
[[ -f "$SRC" ]] || fail "$SRC is missing"
grep -q '77f55b912142e11fcfdf5b530231fb9c52f181e8' "$SRC" || fail "SOURCE.md does not name the commit"
grep -q 'https://github.com/pytorch/examples' "$SRC" || fail "SOURCE.md does not name the repository"
listed=0
declare -A LISTED=([SOURCE.md]=1)
while IFS='|' read -r _ path blob _; do
  path="$(echo "$path" | tr -d ' `')"; blob="$(echo "$blob" | tr -d ' ')"
  [[ "$blob" =~ ^[0-9a-f]{40}$ ]] || continue
  f="$ZOO/pytorch-examples/$path"
  [[ -f "$f" ]] || fail "listed file zoo/pytorch-examples/$path is missing"
  got="$(git hash-object --no-filters "$f")"
  [[ "$got" == "$blob" ]] || fail "zoo/pytorch-examples/$path was modified: blob $got, SOURCE.md records $blob"
  LISTED[$path]=1
  listed=$((listed + 1))
done < "$SRC"
[[ $listed -ge 7 ]] || fail "SOURCE.md lists $listed files with blob hashes, expected at least 7"
[[ -n "${LISTED[LICENSE]:-}" ]] || fail "the LICENSE is not listed in SOURCE.md"
while IFS= read -r -d '' f; do
  rel="${f#"$ZOO/pytorch-examples/"}"
  [[ -n "${LISTED[$rel]:-}" ]] || fail "zoo/pytorch-examples/$rel is not listed in SOURCE.md"
done < <(find "$ZOO/pytorch-examples" -type f -not -path '*/__pycache__/*' -print0)
pass "$listed files in zoo/pytorch-examples match their recorded blobs, none unlisted"

# ------------------------------------------------------------------ 2. --list against programs.json
python3 - "$ZOO/programs.json" > "$T/json_names" <<'EOF' || fail "zoo/programs.json is not well-formed (see above)"
import json, re, sys
progs = json.load(open(sys.argv[1]))
assert isinstance(progs, list) and progs, "not a non-empty array"
keys = {"name", "shape", "origin", "command", "unit", "metric", "gate"}
for p in progs:
    assert set(p) == keys, "%r: keys %s, expected %s" % (p.get("name"), sorted(p), sorted(keys))
    assert p["command"] == "zoo/run.sh " + p["name"], "%s: command %r" % (p["name"], p["command"])
    assert p["unit"] in ("step", "latency"), "%s: unit %r" % (p["name"], p["unit"])
    o = p["origin"]
    assert o.startswith("pytorch/examples@77f55b912142e11fcfdf5b530231fb9c52f181e8:") or \
        o.startswith("written here: zoo/here/"), "%s: origin %r" % (p["name"], o)
    if p["metric"] is not None:
        assert re.compile(p["metric"]).groups == 1, "%s: metric needs one capture group" % p["name"]
    assert (p["unit"] == "latency") == (p["metric"] is not None), "%s: latency needs a metric" % p["name"]
    g = p["gate"]  # its own start gate for the device steps (null: theirs); a point --exec-gate takes
    assert g is None or g in ("steady", "first-kernel", "off") or re.fullmatch(r"wait:[1-9][0-9]*", g), \
        "%s: gate %r" % (p["name"], g)
names = [p["name"] for p in progs]
assert len(set(names)) == len(names), "duplicate names"
print("\n".join(names))
EOF
(cd "$T" && "$ZOO/run.sh" --list) > "$T/list_names" || fail "zoo/run.sh --list exited $?"
diff -u "$T/json_names" "$T/list_names" >&2 || fail "zoo/run.sh --list differs from the names in zoo/programs.json"
pass "zoo/run.sh --list matches programs.json ($(wc -l < "$T/list_names") programs)"

# ------------------------------------------------------------------------------ 3. unknown name
set +e
(cd "$T" && "$ZOO/run.sh" nosuch) > "$T/nosuch.out" 2> "$T/nosuch.err"; rc=$?
set -e
[[ $rc == 2 ]] || fail "zoo/run.sh nosuch exited $rc, expected 2"
[[ $(wc -l < "$T/nosuch.err") == 1 ]] || fail "zoo/run.sh nosuch wrote $(wc -l < "$T/nosuch.err") lines on stderr, expected 1"
pass "zoo/run.sh nosuch exits 2 with one line on stderr"

# --------------------------------------------------------------------------------- 4. data maker
CHECK_DATA="$T/check_data.py"
cat > "$CHECK_DATA" <<'EOF'
import json, os, struct, sys
kind, out = sys.argv[1], sys.argv[2]
if kind == "mnist":
    ntrain, ntest = int(sys.argv[3]), int(sys.argv[4])
    raw = os.path.join(out, "MNIST", "raw")
    for prefix, n in (("train", ntrain), ("t10k", ntest)):
        img = open(os.path.join(raw, prefix + "-images-idx3-ubyte"), "rb").read()
        lab = open(os.path.join(raw, prefix + "-labels-idx1-ubyte"), "rb").read()
        assert struct.unpack(">IIII", img[:16]) == (0x00000803, n, 28, 28), "%s images header %r" % (prefix, img[:16])
        assert len(img) == 16 + n * 784, "%s images: %d bytes, expected %d" % (prefix, len(img), 16 + n * 784)
        assert struct.unpack(">II", lab[:8]) == (0x00000801, n), "%s labels header %r" % (prefix, lab[:8])
        assert len(lab) == 8 + n, "%s labels: %d bytes" % (prefix, len(lab))
        counts = [lab[8:].count(c) for c in range(10)]
        assert sum(counts) == n and min(counts) >= 2, "%s labels not all in 0..9 or a class has < 2: %r" % (prefix, counts)
        assert len(set(img[16:16 + 784 * 10])) > 20, "%s images look constant" % prefix
    assert not [f for f in os.listdir(raw) if f.endswith(".gz")], "unexpected .gz files"
else:
    tokens, tol = int(sys.argv[3]), 0.05
    for name in ("train.txt", "valid.txt", "test.txt"):
        n = lines = 0
        for line in open(os.path.join(out, name), encoding="utf8"):
            n += len(line.split()) + 1  # word_language_model/data.py adds '<eos>' per line
            lines += 1
            assert "<eos>" not in line, "%s holds '<eos>' itself" % name
        want = tokens if name == "train.txt" else max(1000, tokens // 10)
        assert abs(n - want) <= tol * want, "%s: %d tokens, expected about %d" % (name, n, want)
        assert lines > 1, "%s: %d lines" % (name, lines)
m = json.load(open(os.path.join(out, "MANIFEST.json")))
assert m["kind"] == kind, m
print("ok")
EOF
python3 "$ZOO/make_data.py" mnist --out "$T/d/mnist" --train 100 --test 30 2> "$T/md.err" \
  || { cat "$T/md.err" >&2; fail "make_data.py mnist failed"; }
python3 "$CHECK_DATA" mnist "$T/d/mnist" 100 30 > /dev/null || fail "the synthetic MNIST files are wrong (see above)"
python3 "$ZOO/make_data.py" corpus --out "$T/d/corpus" --tokens 5000 --vocab 300 2> "$T/md.err" \
  || { cat "$T/md.err" >&2; fail "make_data.py corpus failed"; }
python3 "$CHECK_DATA" corpus "$T/d/corpus" 5000 > /dev/null || fail "the synthetic corpus is wrong (see above)"
before="$(cat "$T/d/mnist/MNIST/raw/"* | cksum)"
python3 "$ZOO/make_data.py" mnist --out "$T/d/mnist" --train 100 --test 30 2> "$T/md.err" || fail "a second make_data.py run failed"
grep -q found "$T/md.err" || fail "a second make_data.py run did not reuse the folder: $(cat "$T/md.err")"
[[ "$(cat "$T/d/mnist/MNIST/raw/"* | cksum)" == "$before" ]] || fail "a second make_data.py run changed the data"
pass "make_data.py: IDX headers, labels and corpus token counts right; a second run reuses the folder"

# -------------------------------------------------------------------- 5. two makers at once, one folder
for kind in mnist corpus; do
  if [[ $kind == mnist ]]; then args=(--train 2000 --test 200); check=(2000 200); else args=(--tokens 60000 --vocab 2000); check=(60000); fi
  python3 "$ZOO/make_data.py" $kind --out "$T/ref-$kind" "${args[@]}" 2> /dev/null || fail "make_data.py $kind (reference) failed"
  python3 "$ZOO/make_data.py" $kind --out "$T/race/$kind" "${args[@]}" 2> "$T/race-a.err" & a=$!
  python3 "$ZOO/make_data.py" $kind --out "$T/race/$kind" "${args[@]}" 2> "$T/race-b.err" & b=$!
  wait $a || fail "racing make_data.py $kind (a) failed: $(cat "$T/race-a.err")"
  wait $b || fail "racing make_data.py $kind (b) failed: $(cat "$T/race-b.err")"
  made=$(cat "$T/race-a.err" "$T/race-b.err" | grep -c ': made ' || true)
  [[ $made == 1 ]] || fail "racing make_data.py $kind: $made of 2 copies made the data, expected 1"
  python3 "$CHECK_DATA" $kind "$T/race/$kind" "${check[@]}" > /dev/null || fail "racing make_data.py $kind: result incomplete (see above)"
  diff -r -x MANIFEST.json "$T/ref-$kind" "$T/race/$kind" > /dev/null || fail "racing make_data.py $kind: result differs from a lone run"
  left=$(find "$T/race" -maxdepth 1 -name "$kind.tmp-*" | wc -l)
  [[ $left == 0 ]] || fail "racing make_data.py $kind left $left temporary folders"
done
pass "two make_data.py at once: one made it, the other used it; complete, identical to a lone run, no leftovers"

# ------------------------------------------- 7. run.sh's command lines and work folders (a fake python3)
# A python3 first on PATH that passes make_data.py to the real one, and for a program records its CWD,
# its arguments and whether its data is where it looks, then exits 7: run.sh must pass the 7 on, and
# remove the work folder.
mkdir -p "$T/bin" "$T/tmp"
cat > "$T/bin/python3" <<'EOF'
#!/usr/bin/env bash
case "$1" in */make_data.py) exec "$REAL_PYTHON3" "$@" ;; esac
{
  echo "cwd=$PWD"
  echo "args=$*"
  [[ -f ../data/MNIST/raw/train-images-idx3-ubyte ]] && echo "mnist=../data"
  [[ -f ./data/MNIST/raw/t10k-labels-idx1-ubyte ]] && echo "mnist=./data"
  [[ -d results ]] && echo "results=yes"
  prev=""; for a in "$@"; do [[ $prev == --data && -f $a/train.txt && -f $a/valid.txt && -f $a/test.txt ]] && echo "corpus=yes"; prev=$a; done
} > "$FAKE_LOG"
exit 7
EOF
chmod +x "$T/bin/python3"
declare -A WANT=(
  [mnist]="EX/mnist/main.py --epochs 1|mnist=../data"
  [mnist-startup]="EX/mnist/main.py --dry-run --epochs 1|mnist=../data"
  [mnist-rnn]="EX/mnist_rnn/main.py --epochs 1 --accel|mnist=../data"
  [vae]="EX/vae/main.py --epochs 1|mnist=../data results=yes"
  [wlm-transformer]="EX/word_language_model/main.py --model Transformer --lr 5 --epochs 1 --accel --data DATA/corpus-n3000-v100 --save WORK/model.pt|corpus=yes"
  [wlm-lstm]="EX/word_language_model/main.py --model LSTM --epochs 1 --accel --data DATA/corpus-n3000-v100 --save WORK/model.pt|corpus=yes"
  [gemm]="HERE/gemm.py --iters 3000 --n 4096|"
  [membw]="HERE/membw.py --iters 600|"
  [paced-infer]="HERE/paced_infer.py --requests 1200 --rate 400|"
  [cuda-graphs]="HERE/cuda_graphs.py --iters 1500|"
  [dcgan]="EX/dcgan/main.py --dataset fake --niter 2 --accel --outf WORK/out|"
  [siamese]="EX/siamese_network/main.py --epochs 1|mnist=../data"
  [mnist-ff]="EX/mnist_forward_forward/main.py --epochs 300|mnist=../data mnist=./data"
  [ddp-single-gpu]="EX/distributed/ddp-tutorial-series/single_gpu.py 20 1000|"
  [batched-infer]="HERE/batched_infer.py --iters 2000|"
  [amp-train]="HERE/amp_train.py --iters 600|"
)
for name in $("$ZOO/run.sh" --list); do
  [[ -n "${WANT[$name]:-}" ]] || fail "check 7 has no expectation for program $name"
  set +e
  (cd "$T" && env -u ZOO_DATA PATH="$T/bin:$PATH" REAL_PYTHON3="$(command -v python3)" TMPDIR="$T/tmp" \
     FAKE_LOG="$T/fake.$name" ZOO_MNIST_TRAIN=200 ZOO_MNIST_TEST=200 ZOO_WLM_TOKENS=3000 ZOO_WLM_VOCAB=100 \
     "$ZOO/run.sh" "$name" > "$T/run.$name.out" 2>&1); rc=$?
  set -e
  [[ $rc == 7 ]] || fail "zoo/run.sh $name exited $rc, expected the program's 7: $(tail -3 "$T/run.$name.out")"
  cwd="$(sed -n 's/^cwd=//p' "$T/fake.$name")"
  work="$(dirname "$cwd")"
  data="$T/tmp/bench_mps-zoo-data-$(id -u)"
  args="$(sed -n 's/^args=//p' "$T/fake.$name")"
  args="${args//"$ZOO/pytorch-examples"/EX}"; args="${args//"$ZOO/here"/HERE}"
  args="${args//"$data"/DATA}"; args="${args//"$work"/WORK}"
  have="$( (grep -v '^cwd=\|^args=' "$T/fake.$name" || true) | tr '\n' ' ' | sed 's/ $//')"
  [[ "$args|$have" == "${WANT[$name]}" ]] \
    || fail "zoo/run.sh $name ran '$args' finding '$have', expected '${WANT[$name]}'"
  if [[ "${WANT[$name]}" == EX/* ]]; then
    [[ "$cwd" == "$T/tmp/bench_mps-zoo-work-$name."*/run ]] || fail "zoo/run.sh $name ran in $cwd, not a private work folder"
    [[ ! -e "$work" ]] || fail "zoo/run.sh $name left its work folder $work"
  fi
done
pass "run.sh: each program's command line and data as expected, its exit code passed on, work folders removed"

# ---------------------------------------------------------------------------------- 6. syntax
bash -n "$ZOO/run.sh" || fail "bash -n zoo/run.sh"
for f in "$ZOO"/here/*.py "$ZOO/make_data.py"; do
  PYTHONPYCACHEPREFIX="$T/pycache" python3 -m py_compile "$f" || fail "python3 -m py_compile ${f#"$REPO/"}"
done
pass "bash -n run.sh; py_compile $(ls "$ZOO"/here/*.py | wc -l) programs in zoo/here and make_data.py"
echo "check_zoo: all checks passed"
