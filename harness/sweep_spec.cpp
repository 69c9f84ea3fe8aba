#include "harness/sweep_spec.hpp"

#include <algorithm>

#include "harness/format.hpp"

namespace bench_mps::harness {

long default_tasks(const std::string& workload, const std::string& scenario) {
  // Victims of the fault scenario run long enough to be measured well after the fault.
  if (scenario == "fault") return workload == "mlp" ? 5000 : 100;
  if (workload == "spin") return 30;   // 30 x 100 launches x 100 us = 0.3 s alone
  if (workload == "mlp") return 500;   // 500 steps: about 0.06 s alone on an H200, 1.1 s for 10 time-sliced
  return 50;                           // cpu: 50 x 2 ms
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
          run.tasks = spec.duration_s > 0 ? 0 : (spec.tasks > 0 ? spec.tasks : default_tasks(workload, spec.scenario));
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
