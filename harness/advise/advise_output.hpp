#pragma once
// advise's results: advice.json (versioned, every number behind the advice), advice.md (the advice in
// plain words, the tables of predicted and measured throughput) and plots/advice.png (predicted
// and measured throughput against N, both modes; scripts/plot_report.py draws it).
#include "harness/advise/wing.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/advise/advise_job.hpp"
#include "harness/advise/advise_model.hpp"
#include "harness/advise/advise_recommend.hpp"
#include "harness/results/profile_window.hpp"

namespace bench_mps::harness {

/// 2: `limits` (a list) in place of `limited`; 3: worker sets per cell, both bases, intervals, energy
inline constexpr int kAdviceFormatVersion = 3;
inline constexpr const char* kAdviceJsonFile = "advice.json";

/// Why the ladder stopped, as a kind (its words are Advice::ladder_end): every rung ran; the ladder decided to
/// stop (the knee, the p99 target, a rung with no ok run); or it was stopped early: a signal, the budget, a
/// rung's sweep that failed or that the machine stopped, an error. advice.json stores it (`ladder_end_kind`).
enum class LadderEnd { complete, decided, signal, budget, sweep_failed, sweep_stopped, error };
const char* ladder_end_word(LadderEnd e);
std::optional<LadderEnd> parse_ladder_end(const std::string& word);
/// Stopped before the ladder had its say: the advice says so first.
bool stopped_early(LadderEnd e);
/// The kind of a folder stored before advice.json held it (format 3 and older), from its words as advise then
/// wrote them; nothing else reads the words.
LadderEnd ladder_end_of_stored_words(const std::string& words);

/// The first word of an Advice's sets_end where the sets added decided the verdict.
inline constexpr std::string_view kSetsEndDecided = "decided";

struct Advice {
  nlohmann::json meta;  ///< the machine and invocation (make_machine_meta) and advise's settings
  std::string subject;  ///< "exec: python3 train.py", "mlp (profile=gpu-bound;...)"
  AloneFacts alone;
  std::optional<ProfileWindow> alone_window;  ///< NVML and GPM over its profile's steady part, where recorded
  SchedulerFacts scheduler;
  std::string scheduler_source;  ///< the X-ray's folder
  std::vector<PredictedCell> predicted;
  std::vector<MeasuredCell> ladder;  ///< time-sliced and MPS, per rung
  std::vector<MeasuredCell> limits;  ///< the advised N under mps:auto, then a larger percentage, as far as run
  BasisChoice basis;                 ///< which throughput decides, and why
  double check_tolerance_pct = NAN;  ///< --check-metric's tolerance (NaN: no check)
  std::string sets_end;              ///< why the sets added to settle the verdict stopped ("" : none were needed)
  /// Whether sets_end says the added sets decided it: it starts with kSetsEndDecided (the words are what advice.json
  /// stores, so the one prefix both writes and reads them).
  bool sets_end_decided() const { return sets_end.rfind(kSetsEndDecided, 0) == 0; }
  /// One copy alone again after the ladder (sweeps/alone-last, kAloneLastFolder): whether it ran (its sets are then
  /// the N=1 cells' last), and where it did not, why ("" with ran false: an advise of before 4f055cb6).
  bool alone_last_ran = false;
  std::string alone_last_skipped;
  std::string ladder_end;  ///< why the ladder stopped, in words
  LadderEnd ladder_end_kind = LadderEnd::complete;
  int ladder_exit = 0;  ///< a rung's sweep that stopped for the machine (3: MPS unavailable, ...); 0: none
  /// A child sweep that left no runs, not for the budget nor a signal nor the machine: a step failed (exit 1), though
  /// the advice written stands on what ran. Not stored: advise --redo exits as its verdict does.
  bool step_failed = false;
  Recommendation recommendation;
  double seconds = 0;
  std::string figure_note;  ///< why the figure is missing (empty: drawn)
};

nlohmann::json advice_json(const Advice& a);
/// --job-length as stored in advice.json's settings (meta "advise"."job_length"); nullopt where none.
std::optional<JobLength> asked_job_length(const nlohmann::json& meta);
/// Whether the ladder was timed per step from its copies' profiles (meta "advise"."unit_from_profiles" true).
bool timed_from_profiles(const nlohmann::json& meta);
/// A stored advice.json less what advice_json derived (format 1's `limited` too): Advice::meta again.
nlohmann::json advice_meta(nlohmann::json stored);
std::string advice_markdown(const Advice& a);
/// advice.json and advice.md, atomically; then the figure (a missing plotting Python is said in
/// advice.md, not an error).
void write_advice(const std::filesystem::path& out, Advice& a);

/// The checks at N (time-sliced and MPS) as "N=4: time-sliced +3.1 %, MPS -12 %", "" if none.
std::string errors_at(const std::vector<Check>& checks, int procs);

// Shared by advice.json (advise_output.cpp) and advice.md (advice_markdown.cpp):
/// One copy alone again after the ladder, in words: its drift on the deciding basis (alone_drift), or why it did not
/// run; "" for an advice of before it was run.
std::string alone_last_words(const Advice& a);
/// One unit alone, time-sliced: the ladder's N=1 (every ratio's basis), else the alone run's.
double basis_unit_ms(const Advice& a);
/// A prediction's time per unit (the model's loss on the basis, over its mode's scale); `upper`: the bracket's
/// other end.
double predicted_unit_ms(const Advice& a, const PredictedCell& p, bool upper = false);
/// Whether advice.md and advice.json state longer jobs: a program timed per step (its start-up apart), or a
/// length asked for.
bool states_jobs(const Advice& a);
/// Each stated job length's verdict (the command as given, 10x and 100x, the length asked), none where
/// states_jobs is false.
std::vector<JobVerdict> job_verdicts(const Advice& a);

}  // namespace bench_mps::harness
