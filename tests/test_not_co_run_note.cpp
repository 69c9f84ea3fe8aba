// predict --measure's note on the runs that did not co-run: how far apart their copies' steady parts lay and how
// much of its run each copy kept its CPU busy (harness/predict/not_co_run_note).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/predict/not_co_run_note.hpp"

namespace bench_mps::testing {
namespace {

using harness::MeasuredUnit;
using harness::UnitBasis;
using harness::WorkerRecord;

MeasuredUnit copy(const std::string& run_id, int procs, int worker, UnitBasis basis, double steady_s) {
  MeasuredUnit u;
  u.run_id = run_id;
  u.procs = procs;
  u.worker = worker;
  u.basis = basis;
  u.steady_s = steady_s;
  return u;
}

WorkerRecord row(const std::string& run_id, int worker, const std::string& facts) {
  WorkerRecord r;
  r.run_id = run_id;
  r.worker = worker;
  r.facts = facts;
  return r;
}

TEST(NotCoRunNote, SaysHowFarApartTheCopiesEndedAndHowBusyTheyKeptTheirCores) {
  const std::vector<MeasuredUnit> units = {
      copy("r1-mps-exec-n1", 1, 0, UnitBasis::common_window, 1.0),  // alone: not a run of N copies
      copy("r1-mps-exec-n2", 2, 0, UnitBasis::common_window, 1.0),  // co-run: no part of the note
      copy("r1-mps-exec-n2", 2, 1, UnitBasis::common_window, 1.1),
      copy("r1-mps-exec-n4", 4, 0, UnitBasis::not_co_run, 1.0),  // 2.00x apart, CPU 0.95 and 0.99
      copy("r1-mps-exec-n4", 4, 1, UnitBasis::not_co_run, 2.0),
      copy("r2-mps-exec-n4", 4, 0, UnitBasis::not_co_run, 1.5),  // 1.20x apart, no CPU facts
      copy("r2-mps-exec-n4", 4, 1, UnitBasis::not_co_run, 1.25),
      copy("r2-mps-exec-n4", 4, 2, UnitBasis::not_co_run, std::nan("")),
  };
  const std::vector<WorkerRecord> rows = {
      row("r1-mps-exec-n4", 0, "completion_s=10;cpu_user_s=9;cpu_system_s=0.5"),
      row("r1-mps-exec-n4", 1, "completion_s=20;cpu_user_s=19.6;cpu_system_s=0.2"),
      row("r2-mps-exec-n4", 0, "completion_s=10"),
  };
  const harness::NotCoRunNote note = harness::not_co_run_note(units, rows);
  EXPECT_EQ(note.runs, 2);
  ASSERT_EQ(note.parting.size(), 2u);
  EXPECT_DOUBLE_EQ(note.parting[0], 2.0);
  EXPECT_DOUBLE_EQ(note.parting[1], 1.2);
  ASSERT_EQ(note.cpu_share.size(), 1u);
  EXPECT_DOUBLE_EQ(note.cpu_share[0], 0.97);  // the median of 0.95 and 0.99
  EXPECT_EQ(harness::not_co_run_line(note),
            "not co-run (N >= 2): 2 runs; their copies' steady parts lay 1.20x-2.00x apart, median 1.60x (longest "
            "over shortest); the median copy of each kept its CPU busy for 0.97 of its run (cpu_user_s + "
            "cpu_system_s over completion_s; spinning on the GPU counts as busy; 1 without those facts): copies "
            "bound by their cores part as the cores' speeds do, which the host sets on a VM (docs/SWEEP.md)");
}

TEST(NotCoRunNote, ACopyThatWaitedIsSaidSoAndAnOlderSweepHasNoCpuFacts) {
  const std::vector<MeasuredUnit> units = {copy("r1-timeslice-exec-n2", 2, 0, UnitBasis::not_co_run, 1.0),
                                           copy("r1-timeslice-exec-n2", 2, 1, UnitBasis::not_co_run, 1.3)};
  const std::vector<WorkerRecord> busy_half = {
      row("r1-timeslice-exec-n2", 0, "completion_s=10;cpu_user_s=4;cpu_system_s=1"),
      row("r1-timeslice-exec-n2", 1, "completion_s=10;cpu_user_s=5;cpu_system_s=0")};
  EXPECT_EQ(harness::not_co_run_line(harness::not_co_run_note(units, busy_half)),
            "not co-run (N >= 2): 1 run; their copies' steady parts lay 1.30x apart (longest over shortest); the "
            "median copy of each kept its CPU busy for 0.50 of its run (cpu_user_s + "
            "cpu_system_s over completion_s; spinning on the GPU counts as busy): in 1 of them the median copy "
            "kept it busy under 0.9 of its run, and waited (for the GPU, data or a clock) for the rest");
  EXPECT_EQ(harness::not_co_run_line(harness::not_co_run_note(units, {})),
            "not co-run (N >= 2): 1 run; their copies' steady parts lay 1.30x apart (longest over shortest); their "
            "copies' CPU use is not in runs.csv (an exec sweep of before 2026-12-04)");
  // Every run co-ran: no note.
  EXPECT_EQ(harness::not_co_run_line(
                harness::not_co_run_note({copy("r1-mps-exec-n2", 2, 0, UnitBasis::common_window, 1.0)}, {})),
            "");
}

}  // namespace
}  // namespace bench_mps::testing
