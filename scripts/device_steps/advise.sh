# advise:SUBJECT,...: bench_mps advise --ladder 1,2,4,10 (ADVISE_LADDER; a program's ADVISE_EXEC_LADDER, 1,2,4), --budget
# ADVISE_BUDGET (300), on each subject (lib.sh's subject_args: spin, mlp, seed001, seed001short, membw, infer, client,
# zoo-NAME); the first measures the X-ray, the others read it -> OUT_DIR/advise-<subject>; prints the advice and the
# model's error at N=4 and N=10. ADVISE_EXEC_LADDER=default: advise's own ladder (no --ladder); ADVISE_ARGS: more advise
# options (words, e.g. "--basis unit"); ADVISE_PACK=1: each subject's folder and log packed at once (pack_step);
# ADVISE_DROP_PROFILES=1: the copies' profiles removed after advise measured them (units.csv), one copy alone's kept.

IFS=, read -r -a subjects <<<"${step#advise:}"
xray_from=()
for subject in "${subjects[@]}"; do
  if past_deadline; then echo "advise $subject: skipped (DEADLINE_S=$DEADLINE_S reached)"; continue; fi
  subject_args "$subject" || { echo "advise: unknown subject $subject"; step_failed "advise: unknown subject $subject"; continue; }
  start=$(date +%s)
  # "${what[@]}" last: it may end with `--` and the workload's own options.
  ladder="${ADVISE_LADDER:-1,2,4,10}"  # programs (a run of seconds each): ADVISE_EXEC_LADDER, 1,2,4
  case "$subject" in client|zoo-*) ladder="${ADVISE_EXEC_LADDER:-1,2,4}" ;; esac
  ladder_args=(--ladder "$ladder")
  [ "$ladder" = default ] && ladder_args=()
  read -r -a more_args <<<"${ADVISE_ARGS:-}"
  "$bench" advise "${ladder_args[@]}" --budget "${ADVISE_BUDGET:-300}" "${more_args[@]}" "${xray_from[@]}" \
    --out "$out/runs/advise-$subject" "${what[@]}" >"$out/advise-$subject.log" 2>&1
  arc=$?
  echo "advise $subject: rc=$arc in $(( $(date +%s) - start )) s"
  [ "$arc" -eq 0 ] || step_failed "advise $subject (rc=$arc)"
  grep -v '^\[' "$out/advise-$subject.log" | sed 's/^/  /'
  python3 - "$out/runs/advise-$subject/advice.json" <<'PY' | sed 's/^/  /'
import json, sys
a = json.load(open(sys.argv[1]))
print("alone:", {k: a["alone"][k] for k in ("unit", "unit_ms", "step_ms", "burst_ms", "kernel_ms", "duty", "footprint")})
num = lambda v: "-" if v is None else "%.3f" % v  # a cell not co-run has no measured throughput per unit
for c in a["checks"]:
    print("N={procs} {mode}: predicted {predicted} (low {low}) measured {measured} error {error}".format(
        procs=c["procs"], mode=c["mode"], predicted=num(c["predicted"]), low=num(c["predicted_low"]),
        measured=num(c["measured"]), error="-" if c["error"] is None else "%+.1f%%" % (100 * c["error"])))
print("ladder end:", a["ladder_end"], "| sets added:", a.get("sets_end") or "-")
print("one copy alone again after the ladder:", a.get("alone_last", "-"))
d = a.get("decision", {})
iv = lambda r: "-" if not r or r.get("ratio") is None else "%.3f (%s-%s)" % (r["ratio"], "-" if r["lo"] is None else "%.3f" % r["lo"], "-" if r["hi"] is None else "%.3f" % r["hi"])
print("decision: verdict", a["recommendation"]["verdict"], "basis", d.get("basis"), "| MPS/TS", iv(d.get("mps_over_timeslice")), "| one copy MPS speed", iv(d.get("one_copy_mps_speed")))
print("unit from profiles:", a.get("advise", {}).get("unit_from_profiles"), "|", a["alone"].get("unit_basis", ""))
for c in a["ladder"]:
    print("  N={procs} {mode}: sets {n} (co-run {cr}) ok {ok} unit {u} run {r} run_s {rs} startup_s {st} J/unit {e}".format(n=len(c.get("sets", [])), cr=c.get("co_run_sets", "-"), u=c["throughput"], r=c.get("throughput_run"), rs=c.get("run_s"), st=c.get("startup_s"), e=c.get("energy_per_unit_j"), **{k: c[k] for k in ("procs", "mode", "ok")}))
PY
  check_clean "advise $subject"
  [ -d "$out/runs/advise-$subject/sweeps/xray" ] && xray_from=(--xray-from "$out/runs/advise-$subject/sweeps/xray")
  if [ "${ADVISE_DROP_PROFILES:-0}" = 1 ]; then  # units.csv keeps each sweep's units; one copy alone's profile stays
    find "$out/runs/advise-$subject/sweeps" -mindepth 2 -maxdepth 2 -name profiles -type d -not -path '*/alone/*' \
      -exec rm -rf {} +
  fi
  if [ "${ADVISE_PACK:-0}" = 1 ]; then
    cp -r "$out/runs/advise-$subject/sweeps/xray" "$out/xray-kept" 2>/dev/null && xray_from=(--xray-from "$out/xray-kept")
    pack_step "advise-$subject" "runs/advise-$subject" "advise-$subject.log"
  fi
done
