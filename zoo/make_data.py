#!/usr/bin/env python3
"""Synthetic data for the zoo's programs, made here: nothing is ever downloaded.

Python standard library only (no numpy, no torch), so it runs, and is tested, on a machine without
either. Two kinds of data set, each written into its own folder OUT:

  make_data.py mnist  --out OUT --train N --test M [--seed S]
      OUT/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte: the four raw MNIST files in the exact
      IDX format torchvision's datasets.MNIST reads (big-endian magic 0x00000803 with dims n,28,28 for
      images, 0x00000801 with n for labels, then unsigned bytes). Each image is a class-dependent
      blob (its place and shape set by the label) with noise and a small random shift: random but
      learnable. Labels are balanced (each class gets n//10 or n//10+1 images, shuffled), so every class
      has images in both sets (siamese_network's sampler needs two per class). The dataset root to give
      torchvision is OUT (torchvision looks in OUT/MNIST/raw).

  make_data.py corpus --out OUT --tokens N [--eval-tokens M] [--vocab V] [--seed S]
      OUT/{train,valid,test}.txt: a word-level corpus for word_language_model/data.py, which splits
      each line on whitespace and appends '<eos>' itself. Words come from a synthetic vocabulary of V
      words drawn with a Zipf-like law (weight 1/rank), lines hold 20 to 40 words. N counts the tokens
      data.py makes of train.txt (words plus one '<eos>' per line) and is met exactly; valid.txt and
      test.txt hold M tokens each (default N//10, at least 1000).

Made once, safely, when copies race: the data is built in a temporary folder beside OUT and renamed
into place (rename is atomic: OUT either does not exist or is complete), under an flock on OUT.lock so
that one copy builds while the others wait; a copy that finds OUT already there uses it. Deterministic
for a given seed and sizes. OUT/MANIFEST.json records what was made.
"""
import argparse
import errno
import fcntl
import json
import math
import os
import random
import shutil
import struct
import sys
import tempfile
import time

IMAGE_MAGIC = 0x00000803  # IDX: unsigned byte, 3 dimensions
LABEL_MAGIC = 0x00000801  # IDX: unsigned byte, 1 dimension
SIDE = 28
PIXELS = SIDE * SIDE
VARIANTS = 64  # pre-drawn noisy images per class; each image is one of them, shifted


# --------------------------------------------------------------------------------------------- MNIST

def _class_variants(rng):
    """VARIANTS noisy 28x28 images (bytes) per class: a blob whose centre and spread depend on the
    class, jittered by up to 2 pixels, plus uniform noise."""
    variants = []
    for c in range(10):
        angle = 2 * math.pi * c / 10
        cx = 14 + 6 * math.cos(angle)
        cy = 14 + 6 * math.sin(angle)
        sx = 2.0 + 0.35 * c          # the spread along x grows with the class,
        sy = 5.5 - 0.35 * c          # along y it shrinks: blobs differ in shape as well as place
        per_class = []
        for _ in range(VARIANTS):
            jx = cx + rng.uniform(-2, 2)
            jy = cy + rng.uniform(-2, 2)
            img = bytearray(PIXELS)
            for y in range(SIDE):
                dy = (y - jy) / sy
                row = y * SIDE
                for x in range(SIDE):
                    dx = (x - jx) / sx
                    v = 235.0 * math.exp(-0.5 * (dx * dx + dy * dy)) + rng.uniform(0, 30)
                    img[row + x] = min(255, int(v))
            per_class.append(bytes(img))
        variants.append(per_class)
    return variants


def _balanced_labels(n, rng):
    labels = [i % 10 for i in range(n)]
    rng.shuffle(labels)
    return labels


def _images(labels, variants, rng):
    out = bytearray()
    for lab in labels:
        img = variants[lab][rng.randrange(VARIANTS)]
        k = rng.choice((-2, -1, 0, 1, 2)) + SIDE * rng.choice((-1, 0, 1))  # a small shift (wrapping)
        out += img[k:] + img[:k] if k else img
    return bytes(out)


def write_idx_images(path, labels, variants, rng):
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", IMAGE_MAGIC, len(labels), SIDE, SIDE))
        f.write(_images(labels, variants, rng))


def write_idx_labels(path, labels):
    with open(path, "wb") as f:
        f.write(struct.pack(">II", LABEL_MAGIC, len(labels)))
        f.write(bytes(labels))


def build_mnist(tmp, args):
    rng = random.Random(args.seed)
    raw = os.path.join(tmp, "MNIST", "raw")
    os.makedirs(raw)
    variants = _class_variants(rng)
    for prefix, n in (("train", args.train), ("t10k", args.test)):
        labels = _balanced_labels(n, rng)
        write_idx_images(os.path.join(raw, prefix + "-images-idx3-ubyte"), labels, variants, rng)
        write_idx_labels(os.path.join(raw, prefix + "-labels-idx1-ubyte"), labels)
    return {"kind": "mnist", "train": args.train, "test": args.test, "seed": args.seed}


# -------------------------------------------------------------------------------------------- corpus

_CONSONANTS = "bcdfghjklmnprstvwxyz"  # 20 consonants
_VOWELS = "aeiou"
_SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]  # 100 syllables


def word(i):
    """The i-th word of the vocabulary: i written in base 100 with one syllable per digit (unique)."""
    s = ""
    while True:
        i, d = divmod(i, 100)
        s = _SYLLABLES[d] + s
        if i == 0:
            return s


def write_corpus_file(path, tokens, words, cum, rng):
    """Lines of 20 to 40 words until `tokens` tokens (words plus one '<eos>' per line) are written."""
    left = tokens
    with open(path, "w", encoding="utf8") as f:
        while left > 0:
            n = min(rng.randint(20, 40), left - 1)
            if n < 1:  # one token left: a line of one word is two tokens; end with an empty line,
                n = 0  # which data.py reads as '<eos>' alone
            f.write(" ".join(rng.choices(words, cum_weights=cum, k=n)) + "\n")
            left -= n + 1


def build_corpus(tmp, args):
    rng = random.Random(args.seed)
    words = [word(i) for i in range(args.vocab)]
    cum, total = [], 0.0
    for r in range(args.vocab):
        total += 1.0 / (r + 1)
        cum.append(total)
    eval_tokens = args.eval_tokens if args.eval_tokens else max(1000, args.tokens // 10)
    for name, n in (("train.txt", args.tokens), ("valid.txt", eval_tokens), ("test.txt", eval_tokens)):
        write_corpus_file(os.path.join(tmp, name), n, words, cum, rng)
    return {"kind": "corpus", "tokens": args.tokens, "eval_tokens": eval_tokens, "vocab": args.vocab,
            "seed": args.seed}


# ---------------------------------------------------------------------------------- made once, safely

def publish(out, build, args):
    """Builds into a temporary folder beside `out` and renames it to `out`, under an flock; returns
    True if this call made it, False if it was there already (made by another copy)."""
    out = os.path.abspath(out)
    if os.path.isdir(out):
        return False
    parent, base = os.path.split(out)
    os.makedirs(parent, exist_ok=True)
    with open(out + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(out):  # another copy made it while we waited
            return False
        for stale in os.listdir(parent):  # under the lock, any half-built folder of ours is a crash's
            if stale.startswith(base + ".tmp-"):
                shutil.rmtree(os.path.join(parent, stale), ignore_errors=True)
        tmp = tempfile.mkdtemp(prefix=base + ".tmp-", dir=parent)
        try:
            t0 = time.time()
            manifest = build(tmp, args)
            manifest["made_in_s"] = round(time.time() - t0, 3)
            with open(os.path.join(tmp, "MANIFEST.json"), "w") as f:
                json.dump(manifest, f, indent=1, sort_keys=True)
                f.write("\n")
            os.chmod(tmp, 0o755)
            try:
                os.rename(tmp, out)
            except OSError as e:  # only if someone made `out` without the lock: use theirs
                if e.errno in (errno.EEXIST, errno.ENOTEMPTY) and os.path.isdir(out):
                    return False
                raise
            return True
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = p.add_subparsers(dest="kind", required=True)
    m = sub.add_parser("mnist", help="synthetic MNIST raw IDX files")
    m.add_argument("--out", required=True, help="the dataset root (gets MNIST/raw/...)")
    m.add_argument("--train", type=int, default=25600, help="training images (default 25600)")
    m.add_argument("--test", type=int, default=1000, help="test images (default 1000)")
    m.add_argument("--seed", type=int, default=1)
    c = sub.add_parser("corpus", help="word-level text corpus (train/valid/test.txt)")
    c.add_argument("--out", required=True, help="the corpus folder")
    c.add_argument("--tokens", type=int, default=400000, help="tokens in train.txt (default 400000)")
    c.add_argument("--eval-tokens", type=int, default=0, help="tokens in valid.txt and test.txt each "
                   "(default tokens//10, at least 1000)")
    c.add_argument("--vocab", type=int, default=10000, help="vocabulary size (default 10000)")
    c.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    if args.kind == "mnist":
        if args.train < 20 or args.test < 20:
            p.error("mnist needs at least 20 training and 20 test images (two per class)")
        build = build_mnist
    else:
        if args.tokens < 100 or args.vocab < 1 or (args.eval_tokens and args.eval_tokens < 100):
            p.error("corpus needs --tokens >= 100, --eval-tokens 0 or >= 100 and --vocab >= 1")
        build = build_corpus
    made = publish(args.out, build, args)
    print("make_data.py: %s %s" % ("made" if made else "found", os.path.abspath(args.out)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
