#include "harness/plan/sweep_spec.hpp"

#include <algorithm>

#include "harness/common/format.hpp"

namespace bench_mps::harness {

int warmup_tasks(const SweepSpec& spec, const std::string& workload) {
  return spec.warmup >= 0 ? spec.warmup : default_warmup_tasks(workload, spec.params);
}

RunLength run_length(const SweepSpec& spec, const std::string& workload) {
  if (workload == "exec") return {1, 0};  // the user's program runs once per worker and run
  if (spec.duration_s > 0) return {0, spec.duration_s};
  if (spec.tasks > 0) return {spec.tasks, 0};
  // Victims of the fault scenario run long enough to be measured well after the fault.
  if (spec.scenario == "fault") return {workload == "mlp" ? 500 : 100, 0};
  if (workload == "spin") return {30, 0};  // 30 x 100 launches x 100 us = 0.3 s alone, 3.2 s for 10 time-sliced
  // mlp runs for a time, not a count: a fixed count is 50 ms alone but 1.2 s for 10 time-sliced, and a
  // 50 ms run can lose 7% to one 15 ms hiccup of the machine. 0.5 s for every N keeps that below 2%.
  if (workload == "mlp" && spec.params.mlp.profile == kernels::MlpProfile::seed001) return {1, 0};  // one epoch
  if (workload == "mlp") return {0, 0.5};
  return {50, 0};  // cpu: 50 x 2 ms
}

std::string RunSpec::run_id() const {
  return "r" + std::to_string(repeat) + "-" + mode.name + "-" + workload + "-n" + std::to_string(procs) +
         (scenario.empty() ? "" : "-" + scenario);
}

std::vector<ModeBlock> plan_sweep(const SweepSpec& spec) {
  std::vector<int> procs = spec.procs;
  std::sort(procs.begin(), procs.end());
  std::vector<ModeBlock> blocks;
  int index = 0;
  for (int repeat = 1; repeat <= spec.repeats; ++repeat) {
    for (const Mode& mode : spec.modes) {
      ModeBlock block{mode, repeat, {}};
      for (const std::string& workload : spec.workloads) {
        for (int n : procs) {
          RunSpec run;
          run.repeat = repeat;
          run.workload = workload;
          run.params = workload_params_string(workload, spec.params);
          run.mode = mode;
          const RunLength length = run_length(spec, workload);
          run.tasks = length.tasks;
          run.duration_s = length.duration_s;
          if (spec.scenario != "fault") {
            run.index = index++;
            run.procs = n;
            block.runs.push_back(run);
            continue;
          }
          if (n < 2) continue;  // a fault scenario needs a victim and a faulter
          run.index = index++;
          run.procs = n - 1;
          run.scenario = "fault_baseline";
          block.runs.push_back(run);
          run.index = index++;
          run.procs = n;
          run.scenario = "fault";
          run.params += ";fault_delay_ms=" + fmt_num(spec.params.fault_delay_ms);
          block.runs.push_back(run);
        }
      }
      blocks.push_back(block);
    }
  }
  return blocks;
}

}  // namespace bench_mps::harness
