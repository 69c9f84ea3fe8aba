# calibrate: seed001 alone at several host works per step, 0 to 300 us (scripts/duty_cycle.sh with UTIL_ONLY=1: the
# utilisation sweeps only) -> OUT_DIR/dutycycle.

UTIL_ONLY=1 scripts/duty_cycle.sh "$out/runs/dutycycle" seed001:0 seed001:25 seed001:50 seed001:75 \
  seed001:100 seed001:150 seed001:200 seed001:300
