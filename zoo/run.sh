#!/usr/bin/env bash
# zoo/run.sh NAME [ARGS...]   runs the zoo program NAME (ARGS are appended to its command line)
# zoo/run.sh --list           prints the names, one per line
# zoo/run.sh --prepare NAME   makes NAME's data (if it needs any) and exits: nothing is run
#
# The zoo: real PyTorch programs that bench_mps runs as workloads, e.g.
#   bench_mps --workloads exec --command 'zoo/run.sh mnist' --procs 1,4 --profile-gpu
# See zoo/README.md: what each program is, the data it needs (made here, never downloaded), the private
# work folder each copy runs in, and the ZOO_* variables that set its length.
#
# Works from any CWD; uses python3 from PATH. Programs that need no data and write nothing are exec'd
# (their exit code and signals pass straight through). The others run as a child of this shell in a
# private work folder, removed when they end: the child's exit code is this script's, and a SIGTERM,
# SIGINT or SIGHUP to this shell is passed on to the child (SIGTERM) before the folder goes.
set -euo pipefail

ZOO="$(cd "$(dirname "$0")" && pwd)"
EX="$ZOO/pytorch-examples"
HERE="$ZOO/here"
NAMES=(mnist mnist-startup mnist-rnn vae wlm-transformer wlm-lstm gemm membw paced-infer cuda-graphs
       dcgan siamese mnist-ff ddp-single-gpu batched-infer amp-train)

die() { echo "zoo/run.sh: $*" >&2; exit 2; }

if [[ $# -lt 1 ]]; then
  echo "usage: zoo/run.sh NAME [ARGS...] | zoo/run.sh --list" >&2
  exit 2
fi
PREPARE=0
case "$1" in
  --list) printf '%s\n' "${NAMES[@]}"; exit 0 ;;
  --prepare) PREPARE=1; shift; [[ $# -ge 1 ]] || die "--prepare needs a program's name" ;;
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
NAME="$1"; shift
known=0
for n in "${NAMES[@]}"; do [[ "$n" == "$NAME" ]] && known=1; done
[[ $known == 1 ]] || die "unknown program '$NAME' (zoo/run.sh --list names them)"

# Python writes no __pycache__ into zoo/ (N copies start at once; the repository stays clean).
export PYTHONDONTWRITEBYTECODE=1

# ----------------------------------------------------------------------------------- sizes (ZOO_*)
setnum() {  # setnum OUT VAR DEFAULT: OUT=the variable's value if set, else DEFAULT (a positive integer)
  local v="${!2:-$3}"
  [[ "$v" =~ ^[0-9]+$ && "$v" -gt 0 ]] || die "$2 must be a positive integer (got '$v')"
  printf -v "$1" '%s' "$v"
}
TMPROOT="${TMPDIR:-/tmp}"
DATA="${ZOO_DATA:-$TMPROOT/bench_mps-zoo-data-$(id -u)}"

# ------------------------------------------------------------------------- data, made once, safely
mnist_root() {  # sets ROOT to the MNIST dataset root (holding MNIST/raw), made if missing
  local train test
  setnum train ZOO_MNIST_TRAIN 8000; setnum test ZOO_MNIST_TEST 1000
  ROOT="$DATA/mnist-n$train-t$test"
  [[ -d "$ROOT" ]] || python3 "$ZOO/make_data.py" mnist --out "$ROOT" --train "$train" --test "$test" >&2 \
    || die "could not make the MNIST data in $ROOT"
}
corpus_dir() {  # sets CORPUS to the word-level corpus folder (train/valid/test.txt), made if missing
  local tokens vocab
  setnum tokens ZOO_WLM_TOKENS 200000; setnum vocab ZOO_WLM_VOCAB 10000
  CORPUS="$DATA/corpus-n$tokens-v$vocab"
  [[ -d "$CORPUS" ]] || python3 "$ZOO/make_data.py" corpus --out "$CORPUS" --tokens "$tokens" --vocab "$vocab" >&2 \
    || die "could not make the corpus in $CORPUS"
}

# ------------------------------------------------------------------------ the private work folder
# WORK/run is the program's CWD; WORK/data -> the MNIST root (the examples read '../data').
# WORK/.owner holds this shell's pid: a folder whose owner is gone (killed with SIGKILL, no trap ran)
# is removed by the next run.sh.
sweep_stale() {
  local d pid
  for d in "$TMPROOT"/bench_mps-zoo-work-*; do
    [[ -f "$d/.owner" ]] || continue
    pid=$(cat "$d/.owner" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    [[ "$(stat -c %u "$d" 2>/dev/null)" == "$(id -u)" ]] || continue
    kill -0 "$pid" 2>/dev/null || rm -rf "$d"
  done
}
new_work() {
  sweep_stale
  WORK=$(mktemp -d "$TMPROOT/bench_mps-zoo-work-$NAME.XXXXXX")
  echo $$ > "$WORK/.owner"
  mkdir "$WORK/run"
}

# Runs "$@" as a child in $WORK/run; forwards TERM/INT/HUP to it as SIGTERM; removes $WORK when it
# ends; exits with its exit code.
CHILD=""
TERMED=0
run_child() {
  local rc
  cd "$WORK/run"
  trap 'TERMED=1; [[ -n "$CHILD" ]] && kill -TERM "$CHILD" 2>/dev/null; true' TERM INT HUP
  "$@" &
  CHILD=$!
  [[ $TERMED == 1 ]] && kill -TERM "$CHILD" 2>/dev/null  # a signal came before $CHILD was known
  set +e
  wait "$CHILD"; rc=$?
  while kill -0 "$CHILD" 2>/dev/null; do wait "$CHILD"; rc=$?; done  # a trap interrupted the wait
  set -e
  trap - TERM INT HUP
  cd /
  rm -rf "$WORK"
  exit "$rc"
}

PY=python3
case "$NAME" in
  mnist|mnist-startup|mnist-rnn|vae|siamese|mnist-ff)
    mnist_root
    [[ $PREPARE == 1 ]] && exit 0
    setnum test ZOO_MNIST_TEST 1000
    [[ "$NAME" != vae || $test -ge 128 ]] \
      || die "vae needs ZOO_MNIST_TEST >= 128 (it views its first test batch as 128 images)"
    new_work
    ln -s "$ROOT" "$WORK/data"   # they read '../data' from WORK/run (mnist-ff './data': linked there too)
    case "$NAME" in
      mnist)         run_child $PY "$EX/mnist/main.py" --epochs 1 "$@" ;;
      mnist-startup) run_child $PY "$EX/mnist/main.py" --dry-run --epochs 1 "$@" ;;
      mnist-rnn)     run_child $PY "$EX/mnist_rnn/main.py" --epochs 1 --accel "$@" ;;
      vae)           mkdir "$WORK/run/results"   # it saves its images into results/
                     run_child $PY "$EX/vae/main.py" --epochs 1 "$@" ;;
      siamese)       run_child $PY "$EX/siamese_network/main.py" --epochs 1 "$@" ;;
      mnist-ff)      ln -s "$ROOT" "$WORK/run/data"
                     setnum epochs ZOO_FF_EPOCHS 300
                     run_child $PY "$EX/mnist_forward_forward/main.py" --epochs "$epochs" "$@" ;;
    esac ;;
  wlm-transformer|wlm-lstm)
    corpus_dir
    [[ $PREPARE == 1 ]] && exit 0
    new_work
    if [[ "$NAME" == wlm-transformer ]]; then model=(--model Transformer --lr 5); else model=(--model LSTM); fi
    run_child $PY "$EX/word_language_model/main.py" "${model[@]}" --epochs 1 --accel --data "$CORPUS" \
      --save "$WORK/model.pt" "$@" ;;
  dcgan|ddp-single-gpu)  # no data (random images, random tensors made on the fly); they write files
    [[ $PREPARE == 1 ]] && exit 0
    new_work
    if [[ "$NAME" == dcgan ]]; then
      setnum epochs ZOO_DCGAN_EPOCHS 2
      run_child $PY "$EX/dcgan/main.py" --dataset fake --niter "$epochs" --accel --outf "$WORK/out" "$@"
    else  # single_gpu.py saves checkpoint.pt into its CWD every SAVE_EVERY epochs (from epoch 0)
      setnum epochs ZOO_DDP_EPOCHS 20
      run_child $PY "$EX/distributed/ddp-tutorial-series/single_gpu.py" "$epochs" 1000 "$@"
    fi ;;
  gemm|membw|paced-infer|cuda-graphs|batched-infer|amp-train) [[ $PREPARE == 1 ]] && exit 0 ;;&  # no data
  gemm)
    setnum iters ZOO_GEMM_ITERS 3000; setnum n ZOO_GEMM_N 4096
    exec $PY "$HERE/gemm.py" --iters "$iters" --n "$n" "$@" ;;
  membw)
    setnum iters ZOO_MEMBW_ITERS 600
    exec $PY "$HERE/membw.py" --iters "$iters" "$@" ;;
  paced-infer)
    setnum requests ZOO_INFER_REQUESTS 1200; setnum rate ZOO_INFER_RATE 400
    exec $PY "$HERE/paced_infer.py" --requests "$requests" --rate "$rate" "$@" ;;
  cuda-graphs)
    setnum iters ZOO_GRAPHS_ITERS 1500
    exec $PY "$HERE/cuda_graphs.py" --iters "$iters" "$@" ;;
  batched-infer)
    setnum iters ZOO_INFER_BATCHES 2000
    exec $PY "$HERE/batched_infer.py" --iters "$iters" "$@" ;;
  amp-train)
    setnum iters ZOO_AMP_ITERS 600
    exec $PY "$HERE/amp_train.py" --iters "$iters" "$@" ;;
esac
