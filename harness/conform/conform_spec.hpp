#pragma once
// What `bench_mps conform` was asked to do.
#include "harness/conform/wing.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

struct ConformSpec {
  std::string out_dir;            ///< results folder (default results/<date>-<gpu>-conform)
  std::string device;             ///< --device, passed to every child sweep; empty: CUDA's device 0
  std::vector<std::string> only;  ///< lever ids to run; empty: all
  bool cpu_stand_in = false;      ///< CPU workers and the fake daemon's conventions in place of a GPU (tests)
  bool set_exclusive = false;     ///< the exclusive-process row may set the compute mode (restored after)
  double budget_s = 180;          ///< all child sweeps together; the rows left when it is spent are ERROR
  std::vector<std::string> argv;
};

}  // namespace bench_mps::harness
