# dutycycle[:POINT,...]: scripts/duty_cycle.sh (those points, or all) -> OUT_DIR/dutycycle: how much MPS buys as a
# function of how busy one process keeps the GPU (scripts/plot_duty_cycle.py plots it).

case "$step" in
  dutycycle)
    scripts/duty_cycle.sh "$out/runs/dutycycle" ;;
  dutycycle:*)
    IFS=, read -r -a pts <<<"${step#dutycycle:}"
    scripts/duty_cycle.sh "$out/runs/dutycycle" "${pts[@]}" ;;
esac
