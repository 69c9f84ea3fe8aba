#!/usr/bin/env bash
# A real one-node Slurm cluster, brought up and torn down by this test (Debian's slurmctld, slurmd and
# munge, started by hand: no systemd, everything in a private folder, its own ports). Two fake GPUs
# (gres gpu:2) and gres mps:200; a prolog that starts the site's MPS daemon for gres/mps jobs (the fake
# nvidia-cuda-mps-control), as a site's prolog would. It submits
#   - scripts/slurm/bench_mps.sbatch as a job array of two tasks, one per GPU, at once;
#   - scripts/slurm/bench_mps_gres_mps.sbatch with --gres=mps:50 (bench_mps --external-mps);
# with the cpu workload and the fake daemon, waits for them (bounded), checks each task's results
# folder under results/<cluster>/<node>-gpu<N>/, and renders the fleet report over them.
# Where the packages are missing and cannot be installed (not root, no apt) it skips with the reason
# (exit 77), except where CI=true: there a cluster that does not come up is a failure.
#   slurm_cluster_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
bench="$build/harness/bench_mps"
# Two free ports in a row (slurmctld's, slurmd's), not fixed ones: another run of this test on the machine (a
# second CI checkout) would otherwise meet this cluster's daemons. BENCH_MPS_SLURM_PORT names them.
free_port_pair() {
  python3 - <<'PY'
import socket
for _ in range(200):
    s = socket.socket()
    s.bind(("", 0))
    port = s.getsockname()[1]
    t = socket.socket()
    try:
        t.bind(("", port + 1))
    except OSError:
        continue
    finally:
        s.close()
        t.close()
    print(port)
    break
PY
}
ctl_port="${BENCH_MPS_SLURM_PORT:-$(free_port_pair)}"
[ -n "$ctl_port" ] || { echo "FAIL: no two free ports in a row for slurmctld and slurmd"; exit 1; }
export PATH="$PATH:/usr/sbin:/sbin"  # the daemons live there; a CI runner's PATH may lack them

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $* (CI=true: the Slurm cluster must run here)"; exit 1; fi
  echo "SKIP: $*"
  exit 77
}

if [ "${BENCH_MPS_SKIP_SLURM:-0}" = 1 ]; then echo "SKIP: BENCH_MPS_SKIP_SLURM=1 (asked not to install or start Slurm)"; exit 77; fi

# --- the packages ---
commands=(slurmctld slurmd sbatch squeue scontrol sinfo scancel munged)
missing_commands() { for c in "${commands[@]}"; do command -v "$c" >/dev/null || echo "$c"; done; }
if [ -n "$(missing_commands)" ]; then
  [ "$(id -u)" -eq 0 ] || skip "Slurm is not installed ($(missing_commands | tr '\n' ' ')) and installing it needs root"
  command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get to install it"
  echo "installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  apt_log="$(mktemp)"
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge; } \
      >"$apt_log" 2>&1; then
    tail -5 "$apt_log"
    rm -f "$apt_log"
    skip "apt-get could not install slurmctld slurmd slurm-client munge (log above)"
  fi
  rm -f "$apt_log"
  [ -z "$(missing_commands)" ] || skip "still missing after apt-get: $(missing_commands | tr '\n' ' ')"
fi
[ "$(id -u)" -eq 0 ] || skip "a private Slurm cluster runs its daemons as root here (SlurmUser=root); not root"
[ -x "$bench" ] || { echo "FAIL: $bench is not built"; exit 1; }

# --- a private folder, and everything started from here carries its name, so cleanup finds it all ---
work="$(mktemp -d /tmp/bench_mps_slurm.XXXXXX)"
chmod 755 "$work"
marker="BENCH_MPS_SLURM_TEST=$work"
pids=()
failed=0

dump_logs() {
  for f in "$work"/log/* "$work"/*.out; do
    [ -f "$f" ] || continue
    echo "----- $f (last 30 lines)"
    tail -30 "$f"
  done
}
fail() {
  echo "FAIL: $*"
  failed=1
  dump_logs
  exit 1
}
# Processes whose environment holds our marker: the daemons' children, the jobs, their MPS daemons.
marked_processes() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "$marker" && echo "${p#/proc/}"
  done
}
cleanup() {
  trap - EXIT INT TERM
  [ -n "${SLURM_CONF:-}" ] && [ -n "${jobs_submitted:-}" ] && scancel $jobs_submitted 2>/dev/null
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in $(marked_processes); do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  left="$(marked_processes | tr '\n' ' ')"
  if [ -n "$left" ]; then echo "FAIL: processes left behind: $left"; failed=1; fi
  if [ "$failed" = 0 ] || [ -z "${BENCH_MPS_KEEP_SLURM_TEST:-}" ]; then rm -rf "$work"; else echo "kept $work"; fi
  [ "$failed" = 0 ] || exit 1
}
trap cleanup EXIT
trap 'fail "interrupted"' INT TERM

mkdir -p "$work"/{state,spool,log,results,tmp,mps}
host="$(hostname -s)"

# --- munge: a key of our own, a socket of our own ---
head -c 1024 /dev/urandom >"$work/munge.key"
chmod 400 "$work/munge.key"
env "$marker" munged -F --force --key-file="$work/munge.key" --socket="$work/munge.sock" \
  --pid-file="$work/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munged.seed" \
  >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$work/munge.sock" ] && break; sleep 0.05; done
[ -S "$work/munge.sock" ] || skip "munged did not start: $(tail -2 "$work/log/munged.out" | tr '\n' ' ')"

# --- the site's prolog and epilog: an MPS daemon for every gres/mps job (the fake one here) ---
cat >"$work/prolog.sh" <<PROLOG
#!/bin/bash
env >"$work/log/prolog-\$SLURM_JOB_ID.env"
[ -n "\${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" ] || exit 0
export $marker CUDA_MPS_PIPE_DIRECTORY="$work/mps/pipe" CUDA_MPS_LOG_DIRECTORY="$work/mps/log" FAKE_MPS_JOURNAL="$work/mps/journal"
mkdir -p "$work/mps/pipe" "$work/mps/log"
exec "$src/tests/fakes/nvidia-cuda-mps-control" -d
PROLOG
cat >"$work/epilog.sh" <<EPILOG
#!/bin/bash
[ -e "$work/mps/pipe/control" ] || exit 0
echo quit | CUDA_MPS_PIPE_DIRECTORY="$work/mps/pipe" FAKE_MPS_JOURNAL="$work/mps/journal" "$src/tests/fakes/nvidia-cuda-mps-control"
EPILOG
chmod +x "$work/prolog.sh" "$work/epilog.sh"

# --- slurm.conf, gres.conf: one node, two stand-in GPUs (gres needs character devices: /dev/null) ---
ln -s /dev/null "$work/gpu0"
ln -s /dev/null "$work/gpu1"
cat >"$work/slurm.conf" <<CONF
ClusterName=benchci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
SlurmctldPort=$ctl_port
SlurmdPort=$((ctl_port + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu,mps
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
Prolog=$work/prolog.sh
Epilog=$work/epilog.sh
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:2,mps:200 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$work/gres.conf" <<GRES
Name=gpu File=$work/gpu[0-1]
Name=mps Count=200 File=$work/gpu[0-1]
GRES
export SLURM_CONF="$work/slurm.conf"
env "$marker" slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
ctld=$!
pids+=($ctld)
env "$marker" slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
slurmd_pid=$!
pids+=($slurmd_pid)
state=""
for _ in $(seq 300); do
  # A daemon that exited (its port taken, say) is a cluster that will not come up: said at once, not after 30 s.
  kill -0 "$ctld" 2>/dev/null || { dump_logs; skip "slurmctld exited while starting (port $ctl_port; its log above)"; }
  kill -0 "$slurmd_pid" 2>/dev/null || { dump_logs; skip "slurmd exited while starting (port $((ctl_port + 1)); its log above)"; }
  state="$(sinfo -h -N -n "$host" -o %T 2>/dev/null)"
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || { dump_logs; skip "the one-node cluster did not come up (node state '${state:-none}' after 30 s)"; }
echo "cluster up: $(sinfo -h -N -o '%N %T %G')"

# --- the jobs: the cpu workload, the fake daemon on PATH, results under $work/results ---
job_env=("$marker" "PATH=$src/tests/fakes:$PATH" "BENCH_MPS_ROOT=$src" "BENCH_MPS=$bench"
         "BENCH_MPS_RESULTS=$work/results" "TMPDIR=$work/tmp")
sweep=(--workloads cpu --cpu-task-us 500 --tasks 5 --settle 0 --repeats 3 --procs 1,2)
array_job="$(env "${job_env[@]}" FAKE_MPS_JOURNAL="$work/array.journal" \
  sbatch --parsable --array=0-1 --cpus-per-task=1 --chdir="$work" --output="$work/array-%a.out" \
  "$src/scripts/slurm/bench_mps.sbatch" "${sweep[@]}" --modes timeslice,mps)" || fail "sbatch of the job array failed"
# After the array (a GPU is gres gpu or gres mps, never both at once), on one of the same GPUs.
mps_job="$(env "${job_env[@]}" FAKE_MPS_JOURNAL="$work/mps/journal" CUDA_MPS_PIPE_DIRECTORY="$work/mps/pipe" \
  sbatch --parsable --array=0 --gres=mps:50 --cpus-per-task=1 --chdir="$work" --output="$work/mps-%a.out" \
  --dependency="afterany:$array_job" \
  "$src/scripts/slurm/bench_mps_gres_mps.sbatch" "${sweep[@]}")" || fail "sbatch of the gres/mps job failed"
jobs_submitted="$array_job $mps_job"
echo "submitted job array $array_job (gres gpu:1 per task) and gres/mps job $mps_job"

# Bounded wait: every task leaves the queue, or 120 s pass.
for _ in $(seq 1200); do
  [ -z "$(squeue -h -j "$array_job,$mps_job" 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h -j "$array_job,$mps_job")" ] || fail "jobs still queued or running after 120 s: $(squeue -h -j "$array_job,$mps_job")"
for f in "$work"/array-*.out "$work"/mps-*.out; do echo "----- $f"; cat "$f"; done

# --- checks ---
states="$(scontrol -o show job "$array_job" | grep -o 'JobState=[A-Z]* .*ExitCode=[0-9:]*' | sed 's/ .*ExitCode=/ /')"
[ "$(grep -c 'JobState=COMPLETED 0:0' <<<"$states")" = 2 ] || fail "the array's tasks did not both complete with 0: $states"
mps_state="$(scontrol -o show job "$mps_job" | grep -o 'JobState=[A-Z]*')"
[ "$mps_state" = JobState=COMPLETED ] || fail "the gres/mps job: $mps_state"

fleet="$work/results/benchci"
for gpu in 0 1; do
  dir="$fleet/$host-gpu$gpu"
  [ -f "$dir/summary.csv" ] || fail "no results in $dir"
  ok="$(grep -c ',ok,' "$dir/summary.csv")"
  [ "$ok" = 12 ] || fail "$dir: $ok of 12 runs ok"
  grep -q "\"key\": \"$gpu\"" "$dir/meta.json" || fail "$dir/meta.json does not name device $gpu"
done
# The two tasks ran at once (one per GPU): each one's daemon was up while the other's ran.
overlap="$(python3 - "$fleet/$host-gpu0/meta.json" "$fleet/$host-gpu1/meta.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print("yes" if a["started_utc"] <= b["finished_utc"] and b["started_utc"] <= a["finished_utc"] else "no")
PY
)"
echo "array tasks overlapped in time: $overlap"
mps_dir="$(ls -d "$fleet/$host"-gpu*-job* 2>/dev/null | head -1)"
[ -n "$mps_dir" ] && [ -f "$mps_dir/summary.csv" ] || fail "no results of the gres/mps job under $fleet"
[ "$(grep -c ',external-mps,50,.*,ok,' "$mps_dir/summary.csv")" = 6 ] ||
  fail "$mps_dir: expected 6 ok external-mps rows at 50%: $(cat "$mps_dir/summary.csv")"
# The site's daemon: started once, by the prolog, in its pipe folder; asked by bench_mps; quit by the epilog.
[ "$(grep -c ' start -d ' "$work/mps/journal")" = 1 ] && grep -q " start -d pipe=$work/mps/pipe " "$work/mps/journal" &&
  grep -q "cmd get_server_list" "$work/mps/journal" && grep -q "cmd quit" "$work/mps/journal" ||
  fail "the site's daemon was not used as the prolog and epilog left it: $(cat "$work/mps/journal")"

"$bench" report "$fleet" >"$work/log/report.out" 2>&1 || fail "bench_mps report $fleet: $(cat "$work/log/report.out")"
cat "$work/log/report.out"
report="$fleet/report.md"
grep -q "^# Fleet report: benchci" "$report" || fail "no fleet report title"
grep -q "^3 results folders of [0-9]* GPU(s) by UUID\( and [0-9]* CPU stand-in device(s)\)\{0,1\}, from 1 host" "$report" || fail "the report does not count 3 folders: $(head -3 "$report")"
for gpu in 0 1; do grep -q "| $host-gpu$gpu |" "$report" || fail "the report lacks $host-gpu$gpu"; done
grep -q "external daemon" "$report" || fail "the report does not say which folder used the site's daemon"
grep -q "unreadable\|could not be read" "$work/log/report.out" && grep -q ", 0 unreadable" "$work/log/report.out" ||
  fail "a folder could not be read: $(cat "$work/log/report.out")"
echo "PASS: job array ($array_job) and gres/mps job ($mps_job) ran; fleet report $report"
