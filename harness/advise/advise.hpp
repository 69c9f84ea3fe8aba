#pragma once
// `bench_mps advise`: will MPS help this program, with how many copies and which limits?
//   1. the scheduler: a short time-slice X-ray (or --xray-from a folder that has one);
//   2. one copy alone, time-sliced: its regime point (a program's through --profile-gpu);
//   3. the model's prediction for N = 2 .. --max-procs, time-sliced and MPS;
//   4. a ladder of child sweeps, N = 1, 2, 4, ... (both modes, two worker sets each), stopping at the
//      knee (the best throughput rose by less than 5 %), at a broken --slo-p99-ms, at failures or at
//      the budget; then, while MPS's gain over time-slicing has an interval across +5 %, one more set
//      for the best cell of each mode (up to 8, within the budget);
//      then one copy alone again, one set per mode (sweeps/alone-last: the alone anchor's last draw, its time
//      kept aside from the ladder's and the added sets' budget);
//   5. mps:auto at the N advised, if MPS is advised and time is left (two sets);
// then advice.md, advice.json and plots/advice.png. Exit 0 with advice written, 1 when nothing ran.
#include "harness/advise/wing.hpp"

#include "harness/advise/advise_recommend.hpp"
#include "harness/advise/advise_spec.hpp"
#include "harness/plan/sweep_spec.hpp"

#include <string>
#include <vector>

namespace bench_mps::harness {

int run_advise(const AdviseSpec& spec);

/// `--redo DIR`: the prediction, checks and recommendation again from DIR/sweeps and DIR/advice.json's
/// settings and scheduler (after the model changed), advice.md, advice.json and the figure rewritten.
/// `basis`: decide on it instead of the stored --basis (stored then); empty: as stored.
int redo_advice(const std::string& dir, const std::string& basis = "", const std::string& job_length = "");

/// Why no more worker sets are run for an open verdict (`p.open()`), in words: the cap of kMaxSetsPerCell, or a
/// budget that would not hold one more round (a set of each, or of the one side cells_to_settle names:
/// `seconds_per_round`, with a margin; `budget` true); no words: run one more round.
struct NoMoreSets {
  std::string why;
  bool budget = false;  ///< the budget stops them (not the cap)
  bool empty() const { return why.empty(); }
  /// why, and where the budget stopped them and `kept_s` seconds were kept for one copy alone after the ladder
  /// (not settle's to use, so not counted in the seconds left), ", beyond the 40 s kept for ...": sets_end's words.
  std::string said(double kept_s) const;
};
NoMoreSets why_no_more_sets(const Pick& p, double seconds_left, double seconds_per_round);

/// The seconds a set (or a round of sets) of `seconds` is given room for: 1.5x and 5 s, as a child sweep's start and
/// its daemon's vary (a set that the budget cut short measures nothing).
inline double with_set_margin(double seconds) { return 1.5 * seconds + 5; }

/// Why a thread limit's sweep is not started ("" to start it): `need_s`, what the limit before it took (the first:
/// its worker sets at the ladder's pace; not finite or 0: no estimate), over the `seconds_left` of the budget. A
/// sweep the budget stops mid-way measures nothing and leaves a --resume hint for a folder advise never resumes.
std::string why_no_limit(double seconds_left, double need_s);

/// The best cells one more round of settling an open verdict adds a worker set to: both, or, where one side's sets
/// are too few for an interval (fewer than two; per unit, co-run) and the other's are not, that side alone, which
/// alone can give the interval (half the time of a set of each). None where nothing is open.
std::vector<const MeasuredCell*> cells_to_settle(const Pick& p);
/// A best cell in words: "MPS's best (N=10)".
std::string settle_side(const MeasuredCell& c);

/// The rungs: `spec.ladder` if given, else 1, 2, 4, ... below max_procs, then max_procs.
std::vector<int> ladder_rungs(const AdviseSpec& spec);

/// The workload the child sweeps run, checked the way a sweep checks its command line; UsageError for an
/// option after `--` that advise sets itself (it would contradict its plan).
SweepSpec advise_workload(const AdviseSpec& spec);

/// The options every child sweep of the ladder gets after its own: no settle, no noise target, and
/// `--device device_key` where one is named (empty: none).
std::vector<std::string> advise_common_args(const std::string& device_key);

/// Each child sweep's own arguments (ChildSweeps adds the common ones and --out): what run_advise runs, and
/// what a test parses as the sweep would (issue 36).
class AdviseChildArgs {
 public:
  /// `workload`: advise_workload(spec).
  AdviseChildArgs(const AdviseSpec& spec, const SweepSpec& workload);
  std::vector<std::string> xray() const;       ///< sweeps/xray: the time-slice X-ray
  std::vector<std::string> alone() const;      ///< sweeps/alone: one copy time-sliced (a program's profiled)
  std::vector<std::string> rung(int n) const;  ///< sweeps/ladder-<n>: both modes, kSetsPerRung sets
  std::vector<std::string> more(const std::string& mode, int n) const;  ///< one more set of a cell
  std::vector<std::string> alone_last() const;  ///< sweeps/alone-last: N=1, both modes, one set each
  std::vector<std::string> limit(const std::string& mode, int n) const;  ///< a thread limit's sweep at n
  /// The limits tried at n: mps:auto, then twice its share where that is under 100 %.
  static std::vector<Mode> limit_modes(int n);
  /// A program's start gate for the rungs, more sets and limits (`--exec-gate POINT`): where its alone run's
  /// steady part began (harness/sweep/exec_gate.hpp); none where the user gave --exec-gate after `--`.
  void set_gate(const std::string& point) { gate_ = point; }
  /// Profile the rungs, more sets and limits too (`--profile-gpu`): a program timed per step from its profiles
  /// (UnitChoice::profiled).
  void set_profiled(bool profiled) { profiled_ = profiled; }

 private:
  std::vector<std::string> with_workload(std::vector<std::string> args) const;
  /// with_workload for a sweep after the alone run: a program runs it without warm-ups (`--exec-warmups 0`).
  std::vector<std::string> after_alone(std::vector<std::string> args) const;
  std::vector<std::string> workload_;  ///< spec.workload_args()
  bool cpu_stand_in_;                  ///< --cpu-stand-in (the X-ray's stand-in)
  bool exec_;                          ///< a program: no warm-ups after the alone run, which is profiled
  bool stand_in_;                      ///< the workload's CPU stand-in (programs and the cpu workload need none)
  std::string gate_;                   ///< --exec-gate for the copies of a program ("" : the sweep's default)
  bool profiled_ = false;              ///< --profile-gpu on every sweep after the alone run's
  bool unit_range_ = false;            ///< --exec-unit-range after `--`: every sweep profiled (the range is read there)
};

/// `--beside B`'s one child sweep (the interference scenario): its own arguments, --device included.
/// UsageError for an option after `--` that advise sets itself.
std::vector<std::string> beside_args(const AdviseSpec& spec);

}  // namespace bench_mps::harness
