#!/usr/bin/env python3
"""Offline check of the Kubernetes manifests in scripts/k8s (there is no cluster in CI).

    validate_manifests.py SOURCE_DIR BENCH_MPS

Each manifest must be an Indexed Job (batch/v1) with one pod per completion, each pod asking for
exactly one GPU (nvidia.com/gpu: 1, request equal to limit), its node's name from the downward API
and its results on a mounted volume, running a script of this repository as the image holds it
(scripts/k8s/Dockerfile copies the checkout to /opt/bench_mps). Every bench_mps option it passes
must be one `bench_mps --help` lists; the MPS-sharing variant must pass --external-mps and only
it. The Slurm templates' options are checked against --help the same way. Exit 0 when all holds,
1 with one line per problem, 77 (skipped) without PyYAML, unless CI=true (then a failure).
"""
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    if os.environ.get("CI") == "true":
        print("FAIL: PyYAML is missing (Debian: python3-yaml; scripts/setup.sh installs it)")
        sys.exit(1)
    print("SKIP: PyYAML is missing (Debian: python3-yaml; scripts/setup.sh installs it)")
    sys.exit(77)

IMAGE_ROOT = "/opt/bench_mps/"
GPU = "nvidia.com/gpu"


def bench_options(bench):
    """Every long option `bench_mps --help` names, e.g. {"--procs", "--external-mps", ...}."""
    out = subprocess.run([bench, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out))


def dockerfile_root(src):
    """The folder scripts/k8s/Dockerfile copies the checkout to."""
    text = open(os.path.join(src, "scripts", "k8s", "Dockerfile")).read()
    m = re.search(r"^COPY\s+\.\s+(\S+)\s*$", text, re.M)
    return (m.group(1).rstrip("/") + "/") if m else None


def check_job(name, doc, src, options, problems):
    def bad(what):
        problems.append(f"{name}: {what}")

    if doc.get("apiVersion") != "batch/v1" or doc.get("kind") != "Job":
        bad(f"apiVersion/kind is {doc.get('apiVersion')}/{doc.get('kind')}, not batch/v1/Job")
        return
    spec = doc.get("spec", {})
    if spec.get("completionMode") != "Indexed":
        bad("completionMode is not Indexed (one pod per GPU, each with its JOB_COMPLETION_INDEX)")
    completions, parallelism = spec.get("completions"), spec.get("parallelism", 1)
    if not isinstance(completions, int) or completions < 1:
        bad(f"completions {completions!r} is not a positive number of GPUs")
    elif not isinstance(parallelism, int) or not 1 <= parallelism <= completions:
        bad(f"parallelism {parallelism!r} is not in 1..completions ({completions})")
    if spec.get("backoffLimit") != 0:
        bad("backoffLimit is not 0: a failed sweep must not be rerun into a folder it half wrote")
    pod = spec.get("template", {}).get("spec", {})
    if pod.get("restartPolicy") != "Never":
        bad(f"restartPolicy is {pod.get('restartPolicy')!r}, not Never")
    containers = pod.get("containers", [])
    if len(containers) != 1:
        bad(f"{len(containers)} containers, not 1")
        return
    c = containers[0]
    res = c.get("resources", {})
    limit, request = res.get("limits", {}).get(GPU), res.get("requests", {}).get(GPU, res.get("limits", {}).get(GPU))
    if str(limit) != "1" or str(request) != "1":
        bad(f"{GPU} limit {limit!r} / request {request!r}: each pod must get exactly one GPU")
    if not c.get("image"):
        bad("no image")
    env = {e.get("name"): e for e in c.get("env", [])}
    node = env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    if node != "spec.nodeName":
        bad("NODE_NAME does not come from the downward API (fieldRef spec.nodeName)")
    mounts = {m.get("mountPath"): m.get("name") for m in c.get("volumeMounts", [])}
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    for path, vol in mounts.items():
        if vol not in volumes:
            bad(f"volumeMount {path} names volume {vol!r}, which the pod does not define")
    results = env.get("BENCH_MPS_RESULTS", {}).get("value")
    if not results or not any(results == p or results.startswith(p.rstrip("/") + "/") for p in mounts):
        bad(f"BENCH_MPS_RESULTS {results!r} is not on a mounted volume")
    command = c.get("command", [])
    root = dockerfile_root(src)
    if not command or not root or not command[0].startswith(root):
        bad(f"command {command!r} is not a script under {root} (where scripts/k8s/Dockerfile puts the checkout)")
    else:
        script = os.path.join(src, command[0][len(root):])
        if not os.path.isfile(script) or not os.access(script, os.X_OK):
            bad(f"command {command[0]} is {script} in the image, which is not an executable file of this checkout")
    args = c.get("args", [])
    for a in args:
        if a.startswith("--") and a.split("=", 1)[0] not in options:
            bad(f"bench_mps has no option {a.split('=', 1)[0]} (bench_mps --help)")
    external = "--external-mps" in args
    sharing = "mps-sharing" in name
    if external != sharing:
        bad("--external-mps belongs in the MPS-sharing variant, and only there")
    if sharing:
        if pod.get("nodeSelector", {}).get("nvidia.com/mps.capable") != "true":
            bad("the MPS-sharing variant must select nodes labelled nvidia.com/mps.capable=true")
        modes = args[args.index("--modes") + 1] if "--modes" in args else "mps"
        if "timeslice" in modes:
            bad("--external-mps with a timeslice mode: bench_mps refuses it")


def check_sbatch(path, options, problems):
    """The bench_mps options a Slurm template passes (its `set -- ...` defaults and its exec line)."""
    for line in open(path):
        if line.lstrip().startswith("#"):
            continue
        for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line):
            if opt not in options:
                problems.append(f"{os.path.basename(path)}: bench_mps has no option {opt}")


def main():
    src, bench = sys.argv[1], sys.argv[2]
    options = bench_options(bench)
    problems = []
    k8s = os.path.join(src, "scripts", "k8s")
    manifests = sorted(f for f in os.listdir(k8s) if f.endswith(".yaml"))
    if sorted(manifests) != ["bench_mps-indexed-job.yaml", "bench_mps-mps-sharing.yaml"]:
        problems.append(f"scripts/k8s holds {manifests}, not the Indexed Job and its MPS-sharing variant")
    images = set()
    for f in manifests:
        docs = [d for d in yaml.safe_load_all(open(os.path.join(k8s, f))) if d]
        if len(docs) != 1:
            problems.append(f"{f}: {len(docs)} documents, not one Job")
            continue
        check_job(f, docs[0], src, options, problems)
        for c in docs[0].get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            images.add(c.get("image"))
    if len(images) > 1:
        problems.append(f"the manifests name different images: {sorted(map(str, images))}")
    for f in ("bench_mps.sbatch", "bench_mps_gres_mps.sbatch"):
        check_sbatch(os.path.join(src, "scripts", "slurm", f), options, problems)
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"ok: {', '.join(manifests)} (and the Slurm templates' options)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
