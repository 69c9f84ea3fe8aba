// `bench_mps advise`: its arithmetic on fake ladders (what it predicts, how far a prediction is from a
// rung, which mode and N it picks, when it takes mps:auto), one copy read back from a profile recorded
// on an H100, and the command end to end on the CPU stand-ins with the fake MPS daemon: a ladder that
// stops at the knee, advice.md / advice.json written, bad input refused with one line and exit 2.
#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <iostream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "harness/advise/advise.hpp"
#include "harness/advise/advise_beside.hpp"
#include "harness/advise/advise_job.hpp"
#include "harness/advise/advise_ladder.hpp"
#include "harness/advise/advise_output.hpp"
#include "harness/advise/advise_recommend.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/common/stats.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/tools/child_sweeps.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "tests/sweep_fixture.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

/// An H100's scheduler as its X-ray measured it (docs/REGIMES.md).
SchedulerFacts h100() { return {2.09, 0.128, 0.138}; }

AloneFacts alone_at(double step_ms, double burst_ms, double footprint) {
  AloneFacts a;
  a.source = AloneSource::events;
  a.unit = LadderUnit::task;
  a.unit_ms = step_ms;
  a.point = {step_ms, burst_ms, burst_ms, footprint};
  a.duty = burst_ms / step_ms;
  return a;
}

/// A cell of worker sets whose unit times lie `spread` apart around `unit_ms` (three sets: -spread/2, 0, +spread/2).
MeasuredCell cell(int n, const std::string& mode, double unit_ms, double p99_ms = NAN, bool ok = true,
                  double spread = 0.01, int sets = 3) {
  MeasuredCell c;
  c.procs = n;
  c.mode = parse_mode(mode);
  for (int i = 0; i < sets; ++i) {
    SetMeasurement s;
    s.ok = ok;
    s.unit_ms = unit_ms * (1 + spread * (sets == 1 ? 0 : (static_cast<double>(i) / (sets - 1) - 0.5)));
    s.per_s = n * 1000 / s.unit_ms;  // closed loop: each copy starts its next unit when one ends
    s.run_per_s = s.per_s;
    s.run_s = 1;
    s.p99_ms = std::isnan(p99_ms) ? unit_ms * 1.1 : p99_ms;
    if (!ok) s.problem = "crashed: worker 0 exited with 1";
    c.add(s);
  }
  return c;
}

/// Every set of `c` served `per_s` units per second (a paced program), on both bases.
void serve(MeasuredCell& c, double per_s) {
  std::vector<SetMeasurement> sets = c.sets;
  c.sets.clear();
  for (SetMeasurement& s : sets) {
    s.per_s = s.run_per_s = per_s;
    c.add(s);
  }
}

/// A ladder from the per-unit time at each N: {N, time-sliced ms, MPS ms}.
std::vector<MeasuredCell> ladder(const std::vector<std::array<double, 3>>& rows) {
  std::vector<MeasuredCell> cells;
  for (const auto& r : rows) {
    cells.push_back(cell(static_cast<int>(r[0]), "timeslice", r[1]));
    cells.push_back(cell(static_cast<int>(r[0]), "mps", r[2]));
  }
  set_losses(cells);
  return cells;
}

TEST(AdviseModel, ABusyKernelOfFewBlocksIsPredictedToTakeTurnsTimeSlicedAndRunSideBySideUnderMps) {
  const auto p = predict_ladder(alone_at(10.0, 9.98, 0.03), h100(), 10);
  ASSERT_EQ(p.size(), 18u);  // N = 2..10, two modes
  const PredictedCell* ts = find_predicted(p, ModeKind::timeslice, 4);
  const PredictedCell* mps = find_predicted(p, ModeKind::mps, 4);
  ASSERT_TRUE(ts && mps);
  EXPECT_NEAR(ts->throughput_low(), 4 * 10.0 / (10.0 - 9.98 + 4 * (9.98 + 0.138 + 4 * 0.128)), 1e-9);
  EXPECT_GT(ts->prediction.loss, 3.9);
  EXPECT_DOUBLE_EQ(mps->prediction.loss, 1.0);
  EXPECT_DOUBLE_EQ(mps->throughput(), 4.0);
  EXPECT_DOUBLE_EQ(find_predicted(p, ModeKind::mps, 10)->throughput(), 10.0);
}

TEST(AdviseModel, AProgramWithHostWaitsGetsABracketBetweenATurnPerWaitAndATurnPerIdleGap) {
  // The PyTorch client's shape: a 2.7 ms step with one host wait and 0.13 ms of kernels, which idle gaps
  // cut into 7 bursts of 0.019 ms every 0.38 ms.
  AloneFacts a = alone_at(2.7, 0.4, 0.05);
  a.point.kernel_ms = 0.13;
  a.gap_point = RegimePoint{0.38, 0.0186, 0.0186, 0.05};
  const auto p = predict_ladder(a, h100(), 10);
  const PredictedCell* ts = find_predicted(p, ModeKind::timeslice, 10);
  ASSERT_TRUE(ts);
  EXPECT_DOUBLE_EQ(ts->prediction.loss, 1.0);  // a turn per wait: 10 x 0.268 ms fits in 2.7 ms
  EXPECT_NEAR(ts->prediction.upper, 10 * (0.0186 + 0.138) / 0.38, 1e-9);
  EXPECT_NEAR(ts->throughput_low(), 10 / ts->prediction.upper, 1e-12);
  EXPECT_NE(ts->prediction.why.find("per idle gap"), std::string::npos) << ts->prediction.why;
  EXPECT_TRUE(std::isnan(find_predicted(p, ModeKind::mps, 10)->prediction.upper));  // MPS: no bracket
}

TEST(AdviseModel, NothingIsPredictedForAWorkloadOffTheMap) {
  AloneFacts a = alone_at(10, 1, 0.5);
  a.problem = "it records no GPU burst";
  EXPECT_TRUE(predict_ladder(a, h100(), 10).empty());
}

TEST(AdviseModel, AnErrorIsPredictedOverMeasuredAndZeroInsideABracket) {
  Check c{4, ModeKind::mps, 4.0, 4.0, 3.2};
  EXPECT_NEAR(c.error(), 0.25, 1e-12);
  Check bracket{4, ModeKind::timeslice, 2.0, 1.0, 1.5};
  EXPECT_EQ(bracket.error(), 0);
  Check below{4, ModeKind::timeslice, 2.0, 1.0, 0.8};
  EXPECT_NEAR(below.error(), 0.25, 1e-12);  // from the bracket's nearer end
  Check none{4, ModeKind::mps, NAN, NAN, 3.0};
  EXPECT_TRUE(std::isnan(none.error()));
}

// Issue 45 item 5: a simulated prediction carries its phase draws' interval; a check says whether the measurement
// lies inside it, and advice.md counts the cells that do.
TEST(AdviseModel, APredictionsIntervalIsInThroughputAndAChecksMeasurementLiesInsideItOrNot) {
  PredictedCell p{4, ModeKind::mps, {2.0, NAN, "simulated"}};
  EXPECT_TRUE(std::isnan(p.throughput_interval().first));  // no phase draws: no interval
  p.loss_low = 1.6;
  p.loss_high = 2.5;
  const auto [low, high] = p.throughput_interval();
  EXPECT_DOUBLE_EQ(low, 4 / 2.5);  // the most loss gives the least throughput
  EXPECT_DOUBLE_EQ(high, 4 / 1.6);
  p.loss_high = 1.5;  // an interval upside down is none
  EXPECT_TRUE(std::isnan(p.throughput_interval().first));
  const Check in{4, ModeKind::mps, 2.0, 2.0, 1.7, 1.6, 2.5}, out{4, ModeKind::mps, 2.0, 2.0, 2.6, 1.6, 2.5},
      none{4, ModeKind::timeslice, 2.0, 2.0, 1.7};
  EXPECT_EQ(in.inside(), 1);
  EXPECT_EQ(out.inside(), 0);
  EXPECT_EQ(none.inside(), -1);
  EXPECT_EQ(coverage_words({in, out, none}), "1 of 2");
  EXPECT_EQ(coverage_words({none}), "");
}

TEST(AdviseModel, ChecksPairEachRungWithItsPredictionOnTheLaddersOwnBasis) {
  const auto p = predict_ladder(alone_at(10.0, 9.98, 0.03), h100(), 4);
  auto l = ladder({{1, 10, 10.1}, {2, 20.5, 10.2}, {4, 41, 10.4}});
  const auto checks = check_predictions(p, l);
  ASSERT_EQ(checks.size(), 4u);  // N=2, 4 in both modes; N=1 is the basis
  for (const Check& c : checks) {
    EXPECT_TRUE(std::isfinite(c.error())) << c.procs;
    EXPECT_LT(std::abs(c.error()), 0.1) << c.procs << " " << mode_kind_word(c.mode);
  }
  EXPECT_NE(errors_at(checks, 4).find("N=4: time-sliced"), std::string::npos) << errors_at(checks, 4);
  EXPECT_EQ(errors_at(checks, 10), "");
}

TEST(AdviseModel, MpsContentionIsCalibratedAtNTwoAndCarriedLinearlyToLargerN) {
  // mlp gpu-bound as lease B measured it under MPS (busy 96.6 % alone): 1.091 ms a task alone, 1.289 ms at N=2.
  auto a = alone_at(1.035, 1.0, 0.19);
  a.duty = 0.966;
  auto p = predict_ladder(a, h100(), 10);
  EXPECT_DOUBLE_EQ(find_predicted(p, ModeKind::mps, 4)->prediction.loss, 1.0);  // the SMs alone: side by side
  const auto l = ladder({{1, 1.035, 1.091}, {2, 4.7, 1.289}});
  const MpsContention c = mps_contention(a, l);
  EXPECT_NEAR(c.measured, 1.289 / 1.091 - 1, 1e-12);
  EXPECT_NEAR(c.cap, 0.966 * 0.966, 1e-12);
  EXPECT_NEAR(c.per_copy, c.measured, 1e-12);  // under the cap: all of it is device contention
  fit_to_ladder(p, a, l);
  const PredictedCell* two = find_predicted(p, ModeKind::mps, 2);
  const PredictedCell* ten = find_predicted(p, ModeKind::mps, 10);
  EXPECT_TRUE(two->calibration);
  EXPECT_FALSE(ten->calibration);
  EXPECT_NEAR(ten->prediction.loss, 1 + 9 * c.per_copy, 1e-12);
  EXPECT_EQ(ten->prediction.why, "contention");
  EXPECT_NEAR(ten->speed, 1.035 / 1.091, 1e-12);  // one copy alone under MPS against time-sliced
  // N=2 set the model: it is held against nothing; N=1 and N=2 of time-sliced still are.
  for (const Check& k : check_predictions(p, l)) EXPECT_FALSE(k.mode == ModeKind::mps && k.procs == 2);
  Advice advice;
  advice.meta = nlohmann::json::object();
  advice.alone = a;
  advice.predicted = p;
  advice.ladder = l;
  const std::string md = advice_markdown(advice);
  EXPECT_NE(md.find("| calibration |"), std::string::npos) << md;
  EXPECT_NE(md.find("MPS contention: two copies under MPS ran each task +18.1 %"), std::string::npos) << md;
}

TEST(AdviseModel, ASlowdownAtNTwoBeyondTheBusyShareSquaredIsNotCarriedToLargerN) {
  // A host-bound program (busy 4 %) whose two copies ran 12 % slower: device work can explain 0.16 %.
  auto a = alone_at(2.7, 0.108, 0.05);
  a.duty = 0.04;
  auto p = predict_ladder(a, h100(), 10);
  const auto l = ladder({{1, 2.7, 2.9}, {2, 2.8, 2.9 * 1.12}});
  const MpsContention c = mps_contention(a, l);
  EXPECT_NEAR(c.measured, 0.12, 1e-9);
  EXPECT_NEAR(c.per_copy, 0.04 * 0.04, 1e-12);
  fit_to_ladder(p, a, l);
  EXPECT_NEAR(find_predicted(p, ModeKind::mps, 10)->prediction.loss, 1 + 9 * 0.0016, 1e-12);
  // Faster at N=2 than alone (noise) adds nothing; without N=2 the model's own prediction stands.
  const auto faster = ladder({{1, 2.7, 2.9}, {2, 2.8, 2.8}});
  EXPECT_DOUBLE_EQ(mps_contention(a, faster).per_copy, 0.0);
  auto q = predict_ladder(a, h100(), 10);
  fit_to_ladder(q, a, ladder({{1, 2.7, 2.9}}));
  EXPECT_FALSE(find_predicted(q, ModeKind::mps, 2)->calibration);
  EXPECT_DOUBLE_EQ(find_predicted(q, ModeKind::mps, 10)->prediction.loss, 1.0);
}

TEST(AdvisePick, MpsIsAdvisedAtTheKneeWhereItGainsAndTheRecommendationSaysWhy) {
  // MPS: 1.0, 1.9, 3.4, 3.5 copies; time-sliced never gains.
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11.76}, {8, 80, 22.9}});
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::mps);
  EXPECT_EQ(p.procs, 4);  // 3.40 is within 5 % of 3.49 at N=8
  ASSERT_TRUE(p.best_mps && p.best_ts);
  EXPECT_EQ(p.best_mps->procs, 8);
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN);
  EXPECT_EQ(r.mode, "mps");
  EXPECT_EQ(r.procs, 4);
  EXPECT_NE(r.headline.find("Yes: run 4 copies under MPS"), std::string::npos) << r.headline;
  const std::string all = nlohmann::json(r.reasons).dump();
  EXPECT_NE(all.find("knee"), std::string::npos) << all;
  EXPECT_NE(all.find("Thread limits were not measured"), std::string::npos) << all;
}

TEST(AdvisePick, MpsThatBuysUnderFivePercentIsANo) {
  const auto l = ladder({{1, 10, 10}, {2, 11, 10.8}, {4, 22, 21.5}});
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::timeslice);
  EXPECT_EQ(p.procs, 2);
  const Recommendation r = recommend(alone_at(10, 1, 0.1), l, {}, {}, NAN);
  EXPECT_NE(r.headline.find("No, MPS buys under 5.0 % here"), std::string::npos) << r.headline;
}

TEST(AdvisePick, AProgramThatPacesItselfGetsMpsWhereItsRequestsRunFaster) {
  // mlp-infer's shape: every copy serves its rate in both modes; time-sliced requests take 20x as long.
  std::vector<MeasuredCell> l;
  for (const int n : {1, 2, 4, 10}) {
    l.push_back(cell(n, "timeslice", n == 1 ? 0.05 : 0.1 * n));
    l.push_back(cell(n, "mps", n == 1 ? 0.055 : 0.06 + 0.004 * n));
  }
  for (MeasuredCell& c : l) serve(c, 200.0 * c.procs);
  set_losses(l);
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::mps);
  EXPECT_EQ(p.procs, 10);
  EXPECT_NEAR(p.mps_speedup, 1.0 / 0.1, 1e-9);
  const Recommendation r = recommend(alone_at(0.05, 0.05, 0.1), l, {}, {}, NAN);
  EXPECT_NE(r.headline.find("the same throughput as time-sliced"), std::string::npos) << r.headline;
  EXPECT_NE(r.headline.find("10.00x (9.9"), std::string::npos) << r.headline;  // with its interval
}

TEST(AdvisePick, SharingThatBuysNothingAdvisesOneCopy) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 20}, {4, 40, 40.5}});
  EXPECT_EQ(pick(l, NAN).verdict, AdviceVerdict::one_copy);
  EXPECT_EQ(pick(l, NAN).procs, 1);
}

// One copy under MPS beat every time-sliced rung by more than the line, and MPS's sharing bought nothing over it:
// the advice is one copy under MPS (the mode it names), not one copy time-sliced; where MPS's sharing bought
// something but not the line, "in either mode" is not said of it.
TEST(AdvisePick, OneCopyUnderMpsThatBeatsEveryTimeSlicedRungIsAdvisedUnderMps) {
  const auto l = ladder({{1, 10, 9}, {2, 20, 18.2}, {4, 40, 36.6}});
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::one_copy);
  ASSERT_TRUE(p.cell);
  EXPECT_TRUE(p.cell->is(ModeKind::mps));
  const Recommendation r = recommend(alone_at(10, 1, 0.1), l, {}, {}, NAN, Basis::unit);
  EXPECT_EQ(r.mode, "mps");
  EXPECT_EQ(r.headline.rfind("Run one copy at a time, under MPS: MPS's best was 1.11x (", 0), 0u) << r.headline;
  // what sharing bought says its interval: N=2 under MPS over one copy under MPS
  EXPECT_NE(r.headline.find("sharing the GPU under MPS bought less than 5.0 % throughput (N=2 at best: 0.99x (0.98-"),
            std::string::npos)
      << r.headline;

  const auto some = ladder({{1, 10, 10.8}, {2, 20, 20.2}, {4, 40, 40.4}});  // MPS: 0.93x alone at N=1, 0.99x at N=2
  const Recommendation t = recommend(alone_at(10, 1, 0.1), some, {}, {}, NAN, Basis::unit);
  EXPECT_EQ(t.verdict, AdviceVerdict::one_copy);
  EXPECT_EQ(t.mode, "timeslice");
  EXPECT_EQ(t.headline.find("either mode"), std::string::npos) << t.headline;
  EXPECT_NE(t.headline.find("Run one copy at a time: time-sliced, sharing the GPU bought less than 5.0 % throughput "
                            "per task (N=2 at best: 1.00x (0.99-1.01) one copy's); MPS's best, at N=2, was 0.99x ("),
            std::string::npos)
      << t.headline;
  EXPECT_NE(t.headline.find(", below the +5.0 % line."), std::string::npos) << t.headline;
}

// "Sharing bought less than 5 %" is a claim about an interval: where the knee (taken from the means) is one copy but
// the best rung's interval over one copy reaches past the line, the headline says so instead of claiming it.
TEST(AdvisePick, OneCopyHeadlineSaysWhatSharingBoughtWithItsInterval) {
  auto l = ladder({{1, 10, 10}, {2, 20, 20}, {4, 40, 40.5}});
  const Recommendation tight = recommend(alone_at(10, 1, 0.1), l, {}, {}, NAN, Basis::unit);
  EXPECT_EQ(tight.verdict, AdviceVerdict::one_copy);
  EXPECT_EQ(tight.headline.rfind("Run one copy at a time: in either mode sharing the GPU bought less than 5.0 % "
                                 "throughput per task (at best, over one copy in the same mode: 1.00x (0.99-1.01) "
                                 "time-sliced at N=2, 1.00x (0.99-1.01) under MPS at N=2); MPS's best ",
                                 0),
            0u)
      << tight.headline;
  // time-sliced N=2 at 1.03x one copy by the means, its worker sets 12 % apart: the interval reaches past +5 %;
  // MPS well below (0.7x), so MPS over time-slicing is decided below the line
  l = ladder({{1, 10, 14.3}, {2, 20 / 1.03, 28.6}, {4, 40.5, 57}});
  for (MeasuredCell& c : l)
    if (c.is(ModeKind::timeslice) && c.procs == 2) c = cell(2, "timeslice", 20 / 1.03, NAN, true, 0.12);
  set_losses(l);
  ASSERT_EQ(pick(l, NAN).verdict, AdviceVerdict::one_copy);
  const Recommendation wide = recommend(alone_at(10, 1, 0.1), l, {}, {}, NAN, Basis::unit);
  EXPECT_EQ(wide.headline.find("bought less than"), std::string::npos) << wide.headline;
  EXPECT_NE(wide.headline.find("in either mode sharing the GPU was within 5.0 % of one copy's throughput by the "
                               "means per task (at best, over one copy in the same mode: 1.03x ("),
            std::string::npos)
      << wide.headline;
  EXPECT_NE(wide.headline.find("), an interval reaching past the +5.0 % line; MPS's best "), std::string::npos)
      << wide.headline;
}

TEST(AdvisePick, TheP99TargetRulesOutTheRungsThatBreakIt) {
  auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11.76}, {8, 80, 22.9}});
  for (MeasuredCell& c : l) c.p99_ms = c.unit_ms * 1.1;  // MPS p99: 11, 11.6, 12.9, 25.2
  const Pick p = pick(l, 12.0);
  EXPECT_EQ(p.verdict, AdviceVerdict::mps);
  EXPECT_EQ(p.procs, 2);
  EXPECT_EQ(pick(l, 5.0).verdict, AdviceVerdict::none);
  EXPECT_NE(recommend(alone_at(10, 3, 0.2), l, {}, {}, 5.0).headline.find("No advice"), std::string::npos);
}

TEST(AdviseRedo, WithoutOneCopyAloneTimeSlicedTheHeadlineSaysSoNotThatNothingRan) {
  // Every throughput is divided by the time-sliced N=1 cell: a ladder without it (its sweep gone) picks nothing,
  // and the headline names it; it said "no configuration of the ladder ran" beside nine cells that ran ok.
  TempDir tmp;
  const fs::path dir = tmp / "wlm-transformer";
  fs::copy(source_dir() / "results/2026-12-03-advise-lease4/wlm-transformer", dir, fs::copy_options::recursive);
  fs::remove_all(dir / "sweeps" / "ladder-1");
  fs::remove(dir / "sweeps" / "ladder-1.log");
  // Gone from advice.json's ladder too (a rung it holds cells of, without its folder, is refused as damaged).
  nlohmann::json stored = nlohmann::json::parse(read_text(dir / "advice.json"));
  nlohmann::json kept = nlohmann::json::array();
  for (const nlohmann::json& c : stored.at("ladder"))
    if (c.at("procs") != 1) kept.push_back(c);
  stored["ladder"] = kept;
  write_text(dir / "advice.json", stored.dump(2));
  const CommandOutput r = run_program(bench_mps_exe(), {"advise", "--redo", dir.string()}, {}, 120);
  EXPECT_EQ(r.exit_code, 1) << "no advice: " << r.err;
  EXPECT_NE(r.out.find("No advice: one copy alone, time-sliced, is not in the ladder, and every throughput is "
                       "divided by it."),
            std::string::npos)
      << r.out << r.err;
  EXPECT_EQ(r.out.find("no configuration of the ladder ran"), std::string::npos) << r.out;
}

// One copy alone again after the ladder that gave no rate (its sets failed): no drift is said, "1.00x" or other
// (it printed "time-sliced -, MPS - the rate of ... (1.00x: no drift)").
TEST(AdviseAloneLast, NoRateAfterTheLadderSaysItsDriftIsNotKnown) {
  Advice a;
  a.ladder = ladder({{1, 10, 10}, {2, 20, 10.5}});
  a.alone_last_ran = true;
  a.alone_last_skipped = "time-sliced: exec_failed: worker 0: exited with code 3";
  const std::string words = alone_last_words(a);
  EXPECT_NE(words.find("gave no rate to set beside the ladder's first N=1 worker sets (left out: time-sliced: "
                       "exec_failed"),
            std::string::npos)
      << words;
  EXPECT_EQ(words.find("no drift)"), std::string::npos) << words;
}

TEST(AdvisePick, FailedRunsAreNeverAdvised) {
  auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  for (MeasuredCell& c : l)
    if (c.procs == 4 && c.is(ModeKind::mps)) c.ok = false;
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.procs, 2);
}

// Issue 34: a verdict carries its interval over the worker sets, or says it cannot tell.
TEST(AdviseDecision, MpsClearOfTheLineIsAYesWithItsInterval) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});  // MPS 3.6x against 1.0x, sets 1 % apart
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::mps);
  ASSERT_TRUE(p.gain.has_interval());
  EXPECT_GT(p.gain.lo, 1 + kDecisionBand);
  EXPECT_LT(p.gain.lo, p.gain.ratio);
  EXPECT_GT(p.gain.hi, p.gain.ratio);
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN);
  EXPECT_NE(r.headline.find(times_with_interval(p.gain)), std::string::npos) << r.headline;
}

// Issue 42 item 4: one copy alone is a draw of a spread, carried into every "x alone" that divides by it.
TEST(AdviseDecision, EveryXAloneCarriesTheSpreadOfOneCopyAlone) {
  const auto steady = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  auto wide = steady;  // the same cells, one copy alone's sets 30 % apart instead of 1 %
  wide[0] = cell(1, "timeslice", 10, NAN, true, 0.3);
  set_losses(wide);
  const MeasuredCell& mps4 = *find_measured(steady, ModeKind::mps, 4);
  const RatioInterval narrow_r = ratio_of_means(mps4.set_rates(Basis::unit), steady[0].set_rates(Basis::unit));
  const RatioInterval wide_r =
      ratio_of_means(find_measured(wide, ModeKind::mps, 4)->set_rates(Basis::unit), wide[0].set_rates(Basis::unit));
  EXPECT_GT(wide_r.hi - wide_r.lo, 5 * (narrow_r.hi - narrow_r.lo));  // the alone sets' spread widens it
  const std::string words = times_alone(mps4, steady, Basis::unit);
  EXPECT_EQ(words,
            fmt_times(mps4.throughput()) + " (" + fmt_fixed(narrow_r.lo, 2) + "-" + fmt_fixed(narrow_r.hi, 2) + ")");
  const std::string wide_words = times_alone(*find_measured(wide, ModeKind::mps, 4), wide, Basis::unit);
  EXPECT_NE(wide_words.find(fmt_fixed(wide_r.lo, 2) + "-" + fmt_fixed(wide_r.hi, 2)), std::string::npos) << wide_words;
  // One copy alone itself: 1x with its own mean's interval, which its spread sets.
  const std::string base = times_alone(wide[0], wide, Basis::unit);
  EXPECT_EQ(base.rfind("1.00x (0.", 0), 0u) << base;
  // The headline and the reasons quote the advised cell with it.
  const Recommendation r = recommend(alone_at(10, 3, 0.2), wide, {}, {}, NAN);
  EXPECT_NE(r.headline.find(wide_words + " the throughput of one copy alone"), std::string::npos) << r.headline;
  EXPECT_NE(nlohmann::json(r.reasons).dump().find("ran " + wide_words), std::string::npos);
  // A cell of one worker set has no interval to give.
  auto single = ladder({{1, 10, 10}});
  single.push_back(cell(2, "mps", 10.5, NAN, true, 0.01, 1));
  set_losses(single);
  EXPECT_EQ(times_alone(single.back(), single, Basis::unit), fmt_times(single.back().throughput()));
}

TEST(AdviseDecision, ALadderThatNeverRanTwoCopiesSaysNothingAboutSharing) {
  // Only N=1 ended ok in either mode: no verdict, and no word on what sharing the GPU bought.
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10), cell(1, "mps", 10), cell(2, "timeslice", 20, NAN, false),
                              cell(2, "mps", 11, NAN, false)};
  set_losses(l);
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN);
  EXPECT_EQ(r.verdict, AdviceVerdict::none);
  EXPECT_EQ(r.headline.find("bought less than"), std::string::npos) << r.headline;
  EXPECT_NE(r.headline.find("no rung of two copies or more ended ok, so nothing is said about sharing"),
            std::string::npos)
      << r.headline;
}

/// `c`'s worker sets made not co-run (a profiled unit whose copies ran apart): no unit, counted per whole run.
MeasuredCell apart(MeasuredCell c) {
  std::vector<SetMeasurement> sets = c.sets;
  c.sets.clear();
  for (SetMeasurement& s : sets) {
    s.co_run = false;
    s.not_co_run = "2 of 2 copies without a co-run unit (not co-run)";
    s.unit_ms = s.per_s = NAN;
    c.add(s);
  }
  return c;
}

// The knee ends the ladder where its best throughput rose under 5 %; a rung where a mode's copies did not run
// together has no best of that mode, so it is not judged (zoo wlm-transformer on an H200: N=10 under MPS not co-run,
// and time-sliced alone "raised the best throughput by -49.8 %", results/2026-12-03-advise-lease4).
TEST(AdviseLadder, TheKneeIsJudgedOnWholeRungsAndSaysAFallAsAFall) {
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10), cell(1, "mps", 10), cell(2, "timeslice", 10),
                              cell(2, "mps", 10.2)};
  set_losses(l);
  const double at_1 = best_throughput(l, 1, Basis::unit);
  EXPECT_EQ(knee_reason(l, 1, NAN, Basis::unit, LadderUnit::step), "");
  EXPECT_EQ(knee_reason(l, 2, at_1, Basis::unit, LadderUnit::step), "");  // 1x to 2x: it rose
  const double at_2 = best_throughput(l, 2, Basis::unit);
  l.push_back(cell(4, "timeslice", 20.4));  // 1.96x: 2 % under N=2's best
  l.push_back(cell(4, "mps", 20.6));
  set_losses(l);
  EXPECT_EQ(knee_reason(l, 4, at_2, Basis::unit, LadderUnit::step),
            "the knee: N=4's best throughput per step was 2.0 % below the rung before's");
  l[5] = cell(4, "mps", 19.8);  // 2.02x: up 1 %
  set_losses(l);
  EXPECT_EQ(knee_reason(l, 4, at_2, Basis::unit, LadderUnit::step),
            "the knee: N=4 raised the best throughput per step by 1.0 % (under 5 %)");
  l[5] = apart(cell(4, "mps", 21));  // MPS did not run together: half a rung, not judged
  set_losses(l);
  EXPECT_EQ(knee_reason(l, 4, at_2, Basis::unit, LadderUnit::step), "");
  EXPECT_NE(knee_reason(l, 4, best_throughput(l, 2, Basis::run), Basis::run, LadderUnit::step),
            "");  // per whole run: judged
}

// How long the next rung should take: a rung's time is mostly its copies' start-up, spent at once, so it hardly grows
// with N (zoo cuda-graphs on an H200: 53, 50, 60 s for N = 1, 2, 4, and "the time budget would not hold N=8 (102 s
// left)" where twice N=4's was asked, results/2026-12-03-advise-lease4); a GPU-bound program's grows with N.
TEST(AdviseLadder, TheNextRungsTimeFollowsTheLastTwoRungs) {
  EXPECT_EQ(rung_seconds_estimate({}, 1), 0);                                   // nothing run yet: run it
  EXPECT_DOUBLE_EQ(rung_seconds_estimate({{1, 53}}, 2), 106);                   // one rung: in proportion to N
  EXPECT_DOUBLE_EQ(rung_seconds_estimate({{1, 53}, {2, 50}, {4, 60}}, 8), 80);  // the line through 2 and 4
  EXPECT_DOUBLE_EQ(rung_seconds_estimate({{1, 53}, {2, 50}}, 4), 50);           // falling: never below the last
  EXPECT_DOUBLE_EQ(rung_seconds_estimate({{2, 20}, {4, 40}}, 10), 100);         // time-sliced, GPU-bound: N x
}

// A paced program held at the start gate owes the requests due while it was held: its p99 holds the hold, and
// advise says so beside it, with the copy held least (zoo paced-infer on an H200, results/2026-12-03-advise-lease4:
// p99 817.7 ms for a copy held 0.840 s, 1.1 ms for one held 0).
TEST(AdviseLadder, APacedProgramsHoldAtTheGateIsSaidBesideItsP99) {
  const auto held = [](double held_max_s, double least_s, double least_p99_ms) {
    MeasuredCell c = cell(10, "mps", 95, 968);
    std::vector<SetMeasurement> sets = c.sets;
    c.sets.clear();
    for (SetMeasurement& s : sets) {
      s.holds = {held_max_s, least_s, least_p99_ms};
      c.add(s);
    }
    return c;
  };
  EXPECT_EQ(gate_backlog_words(cell(10, "mps", 95, 968)), "");  // no hold recorded (not a latency program)
  EXPECT_EQ(gate_backlog_words(held(0.03, 0, 1.1)), "");        // 30 ms: under the line
  const std::string w = gate_backlog_words(held(0.84, 0.00002, 1.1));
  EXPECT_NE(w.find("held at the start gate for up to 0.8400 s"), std::string::npos) << w;
  EXPECT_NE(w.find("The copy held least (0.02000 ms) had a p99 of 1.100 ms."), std::string::npos) << w;
  EXPECT_NE(w.find("--exec-gate wait:K"), std::string::npos) << w;
  const std::string no_p99 = gate_backlog_words(held(0.84, 0.00002, NAN));  // the least-held copy printed nothing
  EXPECT_EQ(no_p99.find("The copy held least"), std::string::npos) << no_p99;
}

// Issue 42: per unit, a mode whose N >= 2 copies never ran together has no measured sharing; the best of its
// other cells (N=1) must not stand for it. zoo mnist on an H200 (results/2026-12-03-advise-profiled/mnist):
// time-sliced N=2 and 4 not co-run, MPS 3.32x "the best time-sliced (1.00x at N=1)".
TEST(AdviseDecision, AModeWhoseCopiesNeverRanTogetherLeavesTheVerdictPerUnitOpen) {
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10),          cell(1, "mps", 10),
                              apart(cell(2, "timeslice", 10.5)), cell(2, "mps", 10.2),
                              apart(cell(4, "timeslice", 11)),   cell(4, "mps", 11)};
  set_losses(l);
  EXPECT_TRUE(std::isnan(l[2].throughput(Basis::unit)));
  EXPECT_GT(l[2].throughput(Basis::run), 1.5);  // per whole run every run counts
  const Pick p = pick(l, NAN, Basis::unit);
  EXPECT_EQ(p.verdict, AdviceVerdict::undecided);
  EXPECT_FALSE(p.open());  // more sets of the best cells (time-sliced N=1) cannot settle it
  EXPECT_EQ(p.unmeasured.words(), "time-sliced, no run of N >= 2 copies ran together (N=2, 4: not co-run)");
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN, Basis::unit);
  EXPECT_EQ(r.verdict, AdviceVerdict::undecided);
  EXPECT_NE(r.headline.find("so that mode's sharing was not measured"), std::string::npos) << r.headline;
  // Where units.csv gave the sets' coverage, the words say how far they were from co-run.
  auto covered = l;
  for (const int i : {2, 4}) {
    std::vector<SetMeasurement> sets = covered[i].sets;
    covered[i].sets.clear();
    for (std::size_t k = 0; k < sets.size(); ++k) {
      sets[k].coverage = 0.70 + 0.045 * static_cast<double>(k) + (i == 4 ? 0.005 : 0);  // 0.70 .. 0.795
      covered[i].add(sets[k]);
    }
  }
  set_losses(covered);
  EXPECT_NE(pick(covered, NAN, Basis::unit)
                .unmeasured.words()
                .find("(N=2, 4: not co-run; the window in which all copies were steady covered 70-79 % of "
                      "a copy's steady part, under the 80 % a co-run set needs)"),
            std::string::npos)
      << pick(covered, NAN, Basis::unit).unmeasured.words();
  // A longer job's steps run at each N's unit: no job verdict either.
  const JobVerdict job = job_verdict(l, LadderUnit::step, *parse_job_length("100x"));
  EXPECT_NE(job.problem.find("time-sliced, no run of N >= 2 copies ran together"), std::string::npos) << job.problem;
  // Per whole run the same ladder decides; and one co-run cell of the mode is enough to measure it.
  EXPECT_TRUE(pick(l, NAN, Basis::run).unmeasured.empty());
  l[4] = cell(4, "timeslice", 44);
  set_losses(l);
  const Pick q = pick(l, NAN, Basis::unit);
  EXPECT_TRUE(q.unmeasured.empty());
  EXPECT_EQ(q.verdict, AdviceVerdict::mps);
}

TEST(AdviseDecision, AGainWhoseIntervalCrossesTheLineCannotBeTold) {
  // MPS 1.06x the best time-sliced, but two sets per cell 6 % apart: the interval reaches both sides of +5 %.
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
                              cell(2, "timeslice", 20, NAN, true, 0.06, 2), cell(2, "mps", 18.87, NAN, true, 0.06, 2)};
  set_losses(l);
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::undecided);
  EXPECT_TRUE(p.open());
  EXPECT_LT(p.gain.lo, 1 + kDecisionBand);
  EXPECT_GT(p.gain.hi, 1 + kDecisionBand);
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN);
  EXPECT_EQ(r.verdict, AdviceVerdict::undecided);
  EXPECT_EQ(r.mode, "");
  EXPECT_NE(r.headline.find("Can't tell within the budget"), std::string::npos) << r.headline;
  EXPECT_NE(r.headline.find("2 and 2 worker sets). No budget within reach decides it: the two modes are that close."),
            std::string::npos)
      << r.headline;
  // 1.06x, its sets 6 % apart: were more sets to spread as these did, 100 more of each would not clear the line.
  EXPECT_EQ(more_samples_to_clear(p.best_mps->set_rates(Basis::unit), p.best_ts->set_rates(Basis::unit),
                                  1 + kDecisionBand, kMoreSetsCap),
            -1);
  const std::string said = nlohmann::json(r.reasons).dump();
  EXPECT_NE(said.find("MPS's best lies 1.0 points from the +5.0 % line: were more worker sets to spread as these did, "
                      "even 100 more of each would leave that interval across it, so no budget within reach decides "
                      "it: for this program the two modes are that close."),
            std::string::npos)
      << said;
  // With the same spread, MPS's best at `gain`: the sets more_samples_to_clear estimates, and what advise says of them.
  const auto more_for = [](double gain) {
    std::vector<MeasuredCell> g{cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
                                cell(2, "timeslice", 20, NAN, true, 0.06, 2),
                                cell(2, "mps", 20 / gain, NAN, true, 0.06, 2)};
    set_losses(g);
    const Pick q = pick(g, NAN);
    EXPECT_EQ(q.verdict, AdviceVerdict::undecided) << gain;
    const int k = more_samples_to_clear(q.best_mps->set_rates(Basis::unit), q.best_ts->set_rates(Basis::unit),
                                        1 + kDecisionBand, kMoreSetsCap);
    const std::string words = "about " + std::to_string(k) +
                              " more of each (MPS at N=2, time-sliced at N=" + std::to_string(q.best_ts->procs) +
                              ") would put that interval wholly on one side of the +5.0 % line: ";
    const Recommendation rec = recommend(alone_at(10, 3, 0.2), g, {}, {}, NAN);
    return std::make_tuple(k, words, nlohmann::json(rec.reasons).dump(), rec.headline);
  };
  // 1.10x: within the sets advise runs a cell (kMaxSetsPerCell), so a larger budget runs them; the headline says so.
  const auto [more, words, within, within_headline] = more_for(1.10);
  EXPECT_GT(more, 0);
  EXPECT_LE(2 + more, kMaxSetsPerCell);
  EXPECT_NE(within.find(words + "a larger --budget runs them."), std::string::npos) << within;
  EXPECT_NE(within_headline.find("worker sets). A larger --budget runs more sets."), std::string::npos)
      << within_headline;
  // 1.08x: more than advise runs a cell, so no budget of advise's runs them, and the headline does not offer one.
  const auto [many, past_words, past, past_headline] = more_for(1.08);
  EXPECT_GT(2 + many, kMaxSetsPerCell);
  EXPECT_NE(past.find(past_words + "more than the 8 a cell advise runs, so run those cells as a sweep of their own "
                                   "(--repeats)."),
            std::string::npos)
      << past;
  EXPECT_NE(past_headline.find("worker sets). Deciding it takes more sets than the 8 a cell advise runs: a sweep of "
                               "those cells (--repeats) runs them."),
            std::string::npos)
      << past_headline;
  EXPECT_EQ(past_headline.find("--budget"), std::string::npos) << past_headline;
  // The same gain from sets that agree: decided.
  std::vector<MeasuredCell> tight{cell(1, "timeslice", 10, NAN, true, 0.002), cell(1, "mps", 10, NAN, true, 0.002),
                                  cell(2, "timeslice", 20, NAN, true, 0.002), cell(2, "mps", 18.0, NAN, true, 0.002)};
  set_losses(tight);
  EXPECT_EQ(pick(tight, NAN).verdict, AdviceVerdict::mps);
}

// The words say what the numbers beside them support (a review of the committed advice, 2026-12-07): a knee
// advised below MPS's best names whose ratio the best-against-best gain is; one copy's two modes without an interval
// are not "within the noise", and a gap shown beyond the noise but not past 5 % is not called "under 5 %"; where
// neither mode's copies co-ran, neither mode's sharing was measured.
TEST(AdviseWords, SayWhatTheNumbersBesideThemSupport) {
  // MPS's best at N=4, N=2 within 5 % of it with fewer copies: the knee, advised; the gain is N=4's.
  std::vector<MeasuredCell> knee{cell(1, "timeslice", 10, NAN, true, 0.002), cell(1, "mps", 10, NAN, true, 0.002),
                                 cell(2, "timeslice", 20, NAN, true, 0.002), cell(2, "mps", 10.2, NAN, true, 0.002),
                                 cell(4, "timeslice", 40, NAN, true, 0.002), cell(4, "mps", 20, NAN, true, 0.002)};
  set_losses(knee);
  const Pick k = pick(knee, NAN);
  ASSERT_EQ(k.verdict, AdviceVerdict::mps);
  ASSERT_EQ(k.procs, 2);
  ASSERT_EQ(k.best_mps->procs, 4);
  const Recommendation rk = recommend(alone_at(10, 3, 0.2), knee, {}, {}, NAN);
  EXPECT_NE(rk.headline.find("Yes: run 2 copies under MPS, "), std::string::npos) << rk.headline;
  EXPECT_NE(rk.headline.find("; MPS's best, at N=4, was 2.00x"), std::string::npos) << rk.headline;
  // One copy alone 3 % faster under MPS, tightly: beyond the noise, not shown past 5 %; from one set each: no interval.
  const auto one_copy_words = [](int sets) {
    std::vector<MeasuredCell> l{
        cell(1, "timeslice", 10, NAN, true, 0.002, sets), cell(1, "mps", 9.7, NAN, true, 0.002, sets),
        cell(2, "timeslice", 20, NAN, true, 0.002, sets), cell(2, "mps", 12, NAN, true, 0.002, sets)};
    set_losses(l);
    return nlohmann::json(recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN).reasons).dump();
  };
  const std::string tight = one_copy_words(3);
  EXPECT_NE(tight.find("as fast under MPS as time-sliced: beyond the noise, but not shown beyond 5.0 % either way"),
            std::string::npos)
      << tight;
  const std::string one = one_copy_words(1);
  EXPECT_NE(one.find("1.03x (no interval: a side has under two worker sets that count) as fast under MPS as "
                     "time-sliced: without an interval, no telling whether that is noise."),
            std::string::npos)
      << one;
  EXPECT_EQ(one.find("within the noise"), std::string::npos) << one;
  // Neither mode's copies co-ran at N >= 2: neither mode's sharing was measured.
  std::vector<MeasuredCell> apart_both{cell(1, "timeslice", 10), cell(1, "mps", 10), apart(cell(2, "timeslice", 20)),
                                       apart(cell(2, "mps", 11))};
  set_losses(apart_both);
  const NeverCoRun never = never_co_run(apart_both);
  EXPECT_EQ(never.modes.size(), 2u);
  EXPECT_NE(never.said().find("); under MPS, no run of N >= 2 copies ran together (N=2: not co-run), so neither "
                              "mode's sharing was measured"),
            std::string::npos)
      << never.said();
  EXPECT_EQ(
      never_co_run({cell(1, "timeslice", 10), cell(1, "mps", 10), apart(cell(2, "timeslice", 20)), cell(2, "mps", 11)})
          .said(),
      "time-sliced, no run of N >= 2 copies ran together (N=2: not co-run), so that mode's sharing was not "
      "measured");
  const Recommendation ra = recommend(alone_at(10, 3, 0.2), apart_both, {}, {}, NAN, Basis::unit);
  EXPECT_NE(ra.headline.find("so neither mode's sharing was measured"), std::string::npos) << ra.headline;
}

TEST(AdviseDecision, AnOpenVerdictGetsMoreSetsUntilTheCapOrTheBudget) {
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
                              cell(2, "timeslice", 20, NAN, true, 0.06, 2), cell(2, "mps", 18.87, NAN, true, 0.06, 2)};
  set_losses(l);
  EXPECT_EQ(why_no_more_sets(pick(l, NAN), 200, 10).why, "");  // open, room for another set of each
  EXPECT_NE(why_no_more_sets(pick(l, NAN), 14, 10).why.find("the time budget would not hold another set"),
            std::string::npos);
  std::vector<MeasuredCell> capped{cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
                                   cell(2, "timeslice", 20, NAN, true, 0.3, kMaxSetsPerCell),
                                   cell(2, "mps", 18.87, NAN, true, 0.3, kMaxSetsPerCell)};
  set_losses(capped);
  ASSERT_TRUE(pick(capped, NAN).open());
  EXPECT_NE(why_no_more_sets(pick(capped, NAN), 1000, 10).why.find("8 worker sets each"), std::string::npos);
  // One side's best at the cap, the other's below it (its best moved to another N): a set of each would take the
  // first past the cap, so none is added.
  std::vector<MeasuredCell> one_full{
      cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
      cell(2, "timeslice", 20, NAN, true, 0.3, kMaxSetsPerCell), cell(2, "mps", 18.87, NAN, true, 0.3, 3)};
  set_losses(one_full);
  ASSERT_TRUE(pick(one_full, NAN).open());
  ASSERT_EQ(cells_to_settle(pick(one_full, NAN)).size(), 2u);
  EXPECT_EQ(
      why_no_more_sets(pick(one_full, NAN), 1000, 10).why,
      "8 worker sets of time-sliced's best (N=2) (a cell runs at most 8) and the interval still crosses the line");
  const auto decided = ladder({{1, 10, 10}, {2, 20, 10.5}});
  EXPECT_EQ(why_no_more_sets(pick(decided, NAN), 0, 10).why, "");  // nothing open: nothing to add
}

// A thread limit's sweep the budget would stop mid-way is not started (mnist on an H100,
// results/2026-12-06-advise-lease12: mps:auto's sweep took 36 s, then mps:20's was started with about 32 s left
// and stopped by the budget after one of its runs, its --resume hint in advice.md).
TEST(AdviseDecision, ALimitIsStartedOnlyWhereTheBudgetHoldsWhatTheOneBeforeTook) {
  EXPECT_EQ(why_no_limit(32, 36.1), "the time budget would not hold its sweep (about 36 s, 32 s left)");
  EXPECT_EQ(why_no_limit(-3, 36.1), "the time budget would not hold its sweep (about 36 s, 0 s left)");
  EXPECT_EQ(why_no_limit(40, 36.1), "");
  EXPECT_EQ(why_no_limit(5, NAN), "");  // no estimate (no rung at that N): the budget stops it if it must
  EXPECT_EQ(why_no_limit(5, 0), "");
}

// Per unit, one side's best with one co-run set of two has no interval whatever the other side does: one more set
// of that side alone (wlm-transformer on an H100, results/2026-12-06-advise-lease9: MPS N=10 had 1 co-run set of 2,
// time-sliced 2 of 2, and the 24 s left did not hold "a set of each", about 25 s).
TEST(AdviseDecision, OneSideShortOfCoRunSetsGetsTheNextSetAlone) {
  MeasuredCell mps2 = cell(2, "mps", 10, NAN, true, 0.01, 2);
  std::vector<SetMeasurement> sets = mps2.sets;
  mps2.sets.clear();
  sets[1].co_run = false;
  sets[1].not_co_run = "2 of 2 copies without a co-run unit (not co-run)";
  sets[1].unit_ms = sets[1].per_s = NAN;
  for (const SetMeasurement& x : sets) mps2.add(x);
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10, NAN, true, 0.01, 2), cell(1, "mps", 10, NAN, true, 0.01, 2),
                              cell(2, "timeslice", 20, NAN, true, 0.01, 2), mps2};
  set_losses(l);
  const Pick p = pick(l, NAN, Basis::unit);
  ASSERT_TRUE(p.open()) << verdict_name(p.verdict);
  ASSERT_EQ(p.best_mps->co_run_sets(), 1);
  const std::vector<const MeasuredCell*> cells = cells_to_settle(p);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells.front(), p.best_mps);
  EXPECT_EQ(settle_side(*cells.front()), "MPS's best (N=2)");
  // Its set alone fits where a set of each would not; the words name the side.
  EXPECT_EQ(why_no_more_sets(p, 24, 12.5).why, "");
  EXPECT_EQ(why_no_more_sets(p, 20, 12.5).why,
            "the time budget would not hold another set (20 s left, a set of MPS's best (N=2) takes about 12 s, 24 s "
            "with its margin)");
  // sets_end's words: the seconds left are those beyond the ones kept for one copy alone after the ladder, and say
  // so (a budget stop only: the cap has nothing to do with seconds).
  const NoMoreSets budget = why_no_more_sets(p, 20, 12.5);
  EXPECT_TRUE(budget.budget);
  EXPECT_EQ(budget.said(40), budget.why + ", beyond the 40 s kept for one copy alone after the ladder");
  EXPECT_EQ(budget.said(0), budget.why);
  // At the cap, that side's sets still not two co-run: no more.
  MeasuredCell capped = l[3];
  for (int i = 2; i < kMaxSetsPerCell; ++i) capped.add(capped.sets[1]);
  std::vector<MeasuredCell> c{l[0], l[1], l[2], capped};
  set_losses(c);
  EXPECT_EQ(why_no_more_sets(pick(c, NAN, Basis::unit), 1000, 10).why,
            "8 worker sets of MPS's best (N=2) and still fewer than two of them co-ran");
  EXPECT_FALSE(why_no_more_sets(pick(c, NAN, Basis::unit), 1000, 10).budget);
  EXPECT_EQ(why_no_more_sets(pick(c, NAN, Basis::unit), 1000, 10).said(40),
            "8 worker sets of MPS's best (N=2) and still fewer than two of them co-ran");
  // Per whole run every set counts: both sides have two, so a set of each, as before.
  const Pick whole = pick(l, NAN, Basis::run);
  if (whole.open()) {
    EXPECT_EQ(cells_to_settle(whole).size(), 2u);
  }
  // Both sides short, or neither: a set of each.
  std::vector<MeasuredCell> both{cell(1, "timeslice", 10, NAN, true, 0.06, 2), cell(1, "mps", 10, NAN, true, 0.06, 2),
                                 cell(2, "timeslice", 20, NAN, true, 0.06, 2),
                                 cell(2, "mps", 18.87, NAN, true, 0.06, 2)};
  set_losses(both);
  ASSERT_TRUE(pick(both, NAN).open());
  EXPECT_EQ(cells_to_settle(pick(both, NAN)).size(), 2u);
}

// Issue 42 item 4: one copy alone after the ladder, against its first sets.
TEST(AdviseLadder, TheAloneAnchorsLastDrawIsComparedWithItsFirstSets) {
  MeasuredCell one = cell(1, "timeslice", 10, NAN, true, 0, kSetsPerRung);
  EXPECT_TRUE(std::isnan(alone_drift(one, Basis::unit, kSetsPerRung)));  // no last draw
  SetMeasurement last = one.sets.front();
  last.per_s = 0.9 * last.per_s;
  one.add(last);
  EXPECT_TRUE(std::isnan(alone_drift(one, Basis::unit, kSetsPerRung)));  // a set added to settle is not the last draw
  one.sets.pop_back();
  last.after_ladder = true;
  one.add(last);
  EXPECT_NEAR(alone_drift(one, Basis::unit, kSetsPerRung), 0.9, 1e-9);
  last.co_run = false;  // per unit a set whose copy has no unit has no rate
  one.sets.back() = last;
  EXPECT_TRUE(std::isnan(alone_drift(one, Basis::unit, kSetsPerRung)));
}

// One copy alone run again after the ladder, its last set `rate` times its first ones' rate; the cells' losses again.
void drift_alone(std::vector<MeasuredCell>& cells, ModeKind mode, double rate) {
  for (MeasuredCell& c : cells)
    if (c.procs == 1 && c.is(mode)) {
      std::vector<SetMeasurement> sets = c.sets;
      sets.back().after_ladder = true;
      sets.back().per_s *= rate;
      sets.back().unit_ms /= rate;
      c.sets.clear();
      for (const SetMeasurement& s : sets) c.add(s);
    }
  set_losses(cells);
}

std::string reason_with(const Recommendation& r, const std::string& words) {
  for (const std::string& reason : r.reasons)
    if (reason.find(words) != std::string::npos) return reason;
  return "";
}

TEST(AdviseDecision, AnAloneAnchorThatDriftedOverTheBandIsFlaggedInTheReasons) {
  auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  drift_alone(l, ModeKind::timeslice, 1.02);
  drift_alone(l, ModeKind::mps, 1.03);  // within 5 % both: nothing said
  EXPECT_EQ(reason_with(recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN), "run again after the ladder"), "");
  auto drifted = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  drift_alone(drifted, ModeKind::mps, 0.8);
  const std::string said =
      reason_with(recommend(alone_at(10, 3, 0.2), drifted, {}, {}, NAN), "run again after the ladder");
  // (the last set was already the slowest of three 1 % apart: 0.8 of its rate is 0.79x the first two's)
  EXPECT_NE(said.find("ran 0.79x under MPS the rate of its first worker sets per task"), std::string::npos) << said;
  EXPECT_NE(said.find("(flagged)"), std::string::npos) << said;
  // A ladder that stopped at N=1 (no verdict's reasons) still says its anchor moved.
  auto stopped = ladder({{1, 10, 10}});
  drift_alone(stopped, ModeKind::timeslice, 0.86);
  const Recommendation r = recommend(alone_at(10, 3, 0.2), stopped, {}, {}, NAN);
  EXPECT_NE(reason_with(r, "run again after the ladder").find("(flagged)"), std::string::npos) << r.headline;
}

TEST(AdviseDecision, OneWorkerSetPerModeDecidesNothing) {
  std::vector<MeasuredCell> l{cell(1, "timeslice", 10, NAN, true, 0, 1), cell(1, "mps", 10, NAN, true, 0, 1),
                              cell(2, "timeslice", 20, NAN, true, 0, 1), cell(2, "mps", 10, NAN, true, 0, 1)};
  set_losses(l);
  const Pick p = pick(l, NAN);
  EXPECT_EQ(p.verdict, AdviceVerdict::undecided);  // 2x, but nothing says how sure
  EXPECT_FALSE(p.gain.has_interval());
  EXPECT_NE(times_with_interval(p.gain).find("no interval"), std::string::npos);
}

TEST(AdviseDecision, NoGainBelowTheLineIsANoAndSaysTheOtherBasis) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 20.1}, {4, 40, 40.3}});
  EXPECT_EQ(pick(l, NAN).verdict, AdviceVerdict::one_copy);
  const Recommendation r = recommend(alone_at(10, 1, 0.1), l, {}, {}, NAN, Basis::unit);
  const std::string all = nlohmann::json(r.reasons).dump();
  EXPECT_NE(all.find("Decided per task; per whole run (start-up included) the ladder says: one copy at a time"),
            std::string::npos)
      << all;
}

TEST(AdviseDecision, TheBasisThatDecidesCanTurnTheVerdict) {
  // Each step 1.5x faster under MPS at N=2, but a start-up of 30 s in every run hides it per whole run.
  std::vector<MeasuredCell> l;
  for (const int n : {1, 2})
    for (const std::string mode : {"timeslice", "mps"}) {
      const double step = mode == "mps" && n == 2 ? 10.0 / 1.5 * 2 : 10.0 * n;
      MeasuredCell c = cell(n, mode, step, NAN, true, 0.004);
      std::vector<SetMeasurement> sets = c.sets;
      c.sets.clear();
      for (SetMeasurement& s : sets) {  // 100 steps per copy after 30 s of start-up
        s.run_s = 30 + 100 * s.unit_ms / 1000;
        s.run_per_s = n * 100 / s.run_s;
        c.add(s);
      }
      l.push_back(c);
    }
  set_losses(l);
  EXPECT_EQ(pick(l, NAN, Basis::unit).verdict, AdviceVerdict::mps);
  EXPECT_NE(pick(l, NAN, Basis::run).verdict, AdviceVerdict::mps);  // 1.5x per step is ~1.02x per whole run
  EXPECT_NEAR(pick(l, NAN, Basis::run).gain.ratio, (30 + 2.0) / (30 + 2.0 / 1.5), 1e-3);
}

TEST(AdviseDecision, TheRunDecidesWhereOneRunAloneIsShort) {
  AloneFacts a = alone_at(10, 3, 0.2);
  a.run_s = 40;
  EXPECT_EQ(choose_basis(parse_basis("auto"), a).basis, Basis::unit);  // bench_mps's own workload: a setting
  a.source = AloneSource::profile;                                     // a program
  a.unit = LadderUnit::step;
  a.run_s = 40;
  a.startup_s = 9;
  EXPECT_EQ(choose_basis(std::nullopt, a).basis, Basis::run);
  EXPECT_NE(choose_basis(parse_basis(""), a).why.find("9.000 s of it start-up"), std::string::npos)
      << choose_basis(std::nullopt, a).why;
  EXPECT_EQ(choose_basis(parse_basis("unit"), a).basis, Basis::unit);
  a.run_s = 2 * kRunBasisBelowS;
  EXPECT_EQ(choose_basis(std::nullopt, a).basis, Basis::unit);
  EXPECT_EQ(choose_basis(parse_basis("run"), a).basis, Basis::run);
  a.unit = LadderUnit::run;  // a program timed by its whole run
  EXPECT_EQ(choose_basis(Basis::unit, a).basis, Basis::run);
  // --basis takes auto, unit and run, and nothing else.
  for (const char* word : {"auto", "unit", "run"}) EXPECT_TRUE(is_basis_word(word)) << word;
  for (const char* word : {"", "Auto", "units", "whole"}) EXPECT_FALSE(is_basis_word(word)) << word;
}

/// cell()'s worker sets (their steps 2 % apart), each copy starting up in `startup_s` and running `steps` steps.
MeasuredCell job_cell(int n, const std::string& mode, double startup_s, double unit_ms, double steps) {
  const MeasuredCell made = cell(n, mode, unit_ms, NAN, true, 0.02);
  MeasuredCell c;
  c.procs = n;
  c.mode = made.mode;
  for (SetMeasurement s : made.sets) {
    s.startup_s = startup_s;
    s.units = n * steps;
    c.add(s);
  }
  return c;
}

TEST(AdviseJob, LengthsAreUnitsMultiplesOrTimesAndNothingElse) {
  EXPECT_EQ(parse_job_length("20000")->kind, JobLength::Kind::units);
  EXPECT_DOUBLE_EQ(parse_job_length("20000")->value, 20000);
  EXPECT_EQ(parse_job_length("100x")->kind, JobLength::Kind::times);
  EXPECT_DOUBLE_EQ(parse_job_length("2.5x")->value, 2.5);
  EXPECT_EQ(parse_job_length("90s")->kind, JobLength::Kind::seconds);
  EXPECT_DOUBLE_EQ(parse_job_length("45m")->value, 2700);
  EXPECT_DOUBLE_EQ(parse_job_length("2h")->value, 7200);
  for (const char* bad :
       {"",    "0",     "0x",      "-5",  "+5",    "10y",        "x",    "h",      "nan", "inf",  "1e12", "5 x",   " 5",
        "5xx", "1e9h2", "1e-300s", "0.5", "1e-4x", "0.0000001h", "0x10", "0x1p4h", "1.5", "1e9h", "3e5h", "1e1000"})
    EXPECT_FALSE(parse_job_length(bad).has_value()) << bad;
  EXPECT_DOUBLE_EQ(parse_job_length("2e4")->value, 20000);
  EXPECT_DOUBLE_EQ(parse_job_length(".5h")->value, 1800);
  std::string why;
  EXPECT_FALSE(parse_job_length("0.5", &why));
  EXPECT_EQ(why, "units a copy come whole");
  EXPECT_FALSE(parse_job_length("0.0009s", &why));
  EXPECT_EQ(why, "under a millisecond");
  EXPECT_FALSE(parse_job_length("1e9h", &why));
  EXPECT_EQ(why, "over 1e+09 s: not a job");
  EXPECT_FALSE(parse_job_length("0x10", &why));
  EXPECT_EQ(why, "'x10' is none of x, s, m, h (nothing: units a copy)");
  EXPECT_EQ(job_length_words(*parse_job_length("1"), LadderUnit::step), "1 step a copy");
  EXPECT_EQ(job_length_words(*parse_job_length("20000"), LadderUnit::step), "20000 steps a copy");
  // advice.md states 1x, 10x and 100x, and a length asked for once: 100x asked is not stated twice.
  EXPECT_EQ(stated_job_lengths(std::nullopt).size(), 3u);
  EXPECT_EQ(stated_job_lengths(parse_job_length("100x")).size(), 3u);
  EXPECT_EQ(stated_job_lengths(parse_job_length("100")).size(), 4u) << "100 units a copy is not 100x";
  EXPECT_EQ(stated_job_lengths(parse_job_length("5x")).back().text, "5x");
}

TEST(AdviseJob, ALongerJobWeighsTheStepsOverTheStartUp) {
  // Alone: 10 s of start-up, then 1000 steps of 10 ms (20 s). At N=4, time-sliced: start-up 10 s, steps 40 ms
  // (no gain while stepping); MPS: start-up 12 s, steps 25 ms. MPS gains more the longer the job: 50 s against
  // 37 s a job as given (1.35x), 4010 s against 2512 s a hundred times longer (1.60x).
  const std::vector<MeasuredCell> ladder{job_cell(1, "timeslice", 10, 10, 1000), job_cell(1, "mps", 10, 10, 1000),
                                         job_cell(4, "timeslice", 10, 40, 1000), job_cell(4, "mps", 12, 25, 1000)};
  const JobVerdict once = job_verdict(ladder, LadderUnit::step, *parse_job_length("1x"));
  ASSERT_TRUE(once.problem.empty()) << once.problem;
  EXPECT_DOUBLE_EQ(once.units, 1000);
  // One job alone takes 20 s: time-sliced N=4 4 jobs in 50 s (1.60x), MPS N=4 4 in 37 s (2.16x).
  EXPECT_NEAR(once.ts_jobs, 4.0 / 50 * 20, 0.02);
  EXPECT_NEAR(once.mps_jobs, 4.0 / 37 * 20, 0.02);
  EXPECT_EQ(once.side(), 1);
  const JobVerdict hundred = job_verdict(ladder, LadderUnit::step, *parse_job_length("100x"));
  EXPECT_DOUBLE_EQ(hundred.units, 100000);
  EXPECT_NEAR(hundred.gain.ratio, (10 + 4000.0) / (12 + 2500.0), 0.01);  // one copy's job: 4010 s against 2512 s
  EXPECT_EQ(hundred.side(), 1);
  // A duration of one copy alone: 10 s of start-up, then 20 s more is 2000 steps.
  EXPECT_NEAR(job_verdict(ladder, LadderUnit::step, *parse_job_length("30s")).units, 2000, 1e-6);
  const JobVerdict too_short = job_verdict(ladder, LadderUnit::step, *parse_job_length("5s"));
  EXPECT_NE(too_short.problem.find("start-up"), std::string::npos);
  EXPECT_TRUE(std::isnan(too_short.units)) << "no negative count of steps: " << too_short.units;
  EXPECT_EQ(job_sentence(too_short, LadderUnit::step).find("(-"), std::string::npos)
      << job_sentence(too_short, LadderUnit::step);
  const std::string said = job_sentence(hundred, LadderUnit::step);
  EXPECT_NE(said.find("For a job of 100x the command as given (100000 steps a copy): MPS at N=4"), std::string::npos)
      << said;
  // A program timed by its whole run has no steps to stretch.
  EXPECT_NE(job_verdict(ladder, LadderUnit::run, *parse_job_length("10x")).problem.find("--exec-metric"),
            std::string::npos);
}

// A job's advice takes the headline's rules: cells over the p99 target are not advised, and the N advised is the
// knee (fewest copies within 5 % of the mode's best), "one copy at a time" where that is one (a review found
// "time-sliced at N=4" advised for 1.02x the jobs of one copy alone, at a p99 six times the target).
TEST(AdviseJob, AJobsAdviceKeepsToTheP99TargetAndTheKnee) {
  const std::vector<MeasuredCell> ladder{job_cell(1, "timeslice", 10, 10, 1000), job_cell(1, "mps", 10, 10, 1000),
                                         job_cell(4, "timeslice", 10, 40, 1000), job_cell(4, "mps", 12, 25, 1000)};
  const JobVerdict free = job_verdict(ladder, LadderUnit::step, *parse_job_length("100x"));
  EXPECT_EQ(free.mps_knee, 4);
  const JobVerdict held = job_verdict(ladder, LadderUnit::step, *parse_job_length("100x"), 20.0);  // p99 11, 44, 27.5
  ASSERT_TRUE(held.problem.empty()) << held.problem;
  EXPECT_EQ(held.ts_procs, 1);
  EXPECT_EQ(held.mps_procs, 1);
  EXPECT_EQ(held.side(), -1);
  const std::string held_said = job_sentence(held, LadderUnit::step);
  EXPECT_NE(held_said.find("steps a copy): one copy at a time; MPS's best (N=1) "), std::string::npos) << held_said;
  const std::string none = job_verdict(ladder, LadderUnit::step, *parse_job_length("100x"), 5.0).problem;
  EXPECT_NE(none.find("no ok cell of time-slicing within the p99 target of 5.000 ms"), std::string::npos) << none;
  // Time-sliced N=4 does 1.03x the jobs of one copy alone: under the 5 % a knee asks, so one copy.
  const std::vector<MeasuredCell> flat{job_cell(1, "timeslice", 10, 10, 1000), job_cell(1, "mps", 10, 10, 1000),
                                       job_cell(4, "timeslice", 10, 68, 1000), job_cell(4, "mps", 10, 70, 1000)};
  const JobVerdict one = job_verdict(flat, LadderUnit::step, *parse_job_length("1x"));
  EXPECT_EQ(one.ts_procs, 4);
  EXPECT_EQ(one.ts_knee, 1);
  EXPECT_EQ(one.side(), -1);
  const std::string one_said = job_sentence(one, LadderUnit::step);
  EXPECT_NE(one_said.find("one copy at a time (within 5.0 % of its best, N=4); MPS's best"), std::string::npos)
      << one_said;
}

TEST(AdviseJob, WhereStartUpCostsTheSharingALongJobTurnsTheVerdict) {
  // MPS's copies start up 3x slower but step 1.5x faster than time-sliced's: the command as given (short) is
  // time-slicing's, a job a hundred times longer MPS's.
  const std::vector<MeasuredCell> ladder{job_cell(1, "timeslice", 10, 10, 100), job_cell(2, "timeslice", 10, 20, 100),
                                         job_cell(2, "mps", 30, 13, 100)};
  EXPECT_EQ(job_verdict(ladder, LadderUnit::step, *parse_job_length("1x")).side(), -1);
  EXPECT_EQ(job_verdict(ladder, LadderUnit::step, *parse_job_length("100x")).side(), 1);
}

TEST(AdviseDecision, EnergyPerUnitIsTheSetsEnergyOverTheirUnits) {
  MeasuredCell c;
  for (const double joules : {300.0, 310.0}) {
    SetMeasurement s;
    s.ok = true;
    s.unit_ms = 1;
    s.per_s = s.run_per_s = 1000;
    s.energy_j = joules;
    s.units = 1000;
    c.add(s);
  }
  EXPECT_DOUBLE_EQ(c.energy_per_unit_j, 0.305);
  SetMeasurement none = c.sets.front();
  none.energy_j = NAN;  // a set without the counter: no energy for the cell
  c.add(none);
  EXPECT_TRUE(std::isnan(c.energy_per_unit_j));
}

TEST(AdviseDecision, ALimitIsTakenOnlyWhereItsWholeIntervalKeepsNinetyFivePercent) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  const MeasuredCell near = cell(4, "mps:auto", 11.5, NAN, true, 0.08, 2);  // 0.957x, sets 8 % apart
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {near}, NAN);
  EXPECT_EQ(r.mode, "mps");
  EXPECT_NE(nlohmann::json(r.reasons).dump().find("not shown to keep it"), std::string::npos);
}

// A limit none of whose sets co-ran has no time per unit: said so, with its sets' coverage, never "at - unlimited
// MPS's speed" (amp-train's mps:auto at N=4 on an H100, 2026-12-06). Unlimited MPS not co-run at that N: said too.
TEST(AdviseDecision, ALimitWhoseCopiesDidNotCoRunSaysSoNotADash) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  MeasuredCell apart = cell(4, "mps:auto", 11.5, NAN, true, 0.01, 0);
  for (const double coverage : {0.70, 0.68}) {
    SetMeasurement s = cell(4, "mps:auto", 11.5, NAN, true, 0.01, 1).sets.front();
    s.co_run = false;
    s.unit_ms = s.per_s = NAN;
    s.coverage = coverage;
    apart.add(s);
  }
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {apart}, NAN);
  EXPECT_EQ(r.mode, "mps");
  const std::string said = nlohmann::json(r.reasons).dump();
  EXPECT_NE(said.find("mps:auto (each client limited to 100/N = 25 % of the SMs) at N=4: its copies did not co-run in "
                      "its 2 worker sets (the window in which all were steady covered 68-70 % of a copy's steady "
                      "part, under the 80 % a co-run set needs): no time per task to set beside unlimited MPS's, so "
                      "it is not shown to keep it."),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find(" at - "), std::string::npos) << said;
  MeasuredCell unlimited_apart = l.back();
  for (SetMeasurement& s : unlimited_apart.sets) s.co_run = false;
  unlimited_apart.add(unlimited_apart.sets.back());  // the means again, over no co-run set
  EXPECT_EQ(limit_unmeasured_words(unlimited_apart, cell(4, "mps:auto", 11.5), "step"),
            "unlimited MPS at N=4 has no co-run worker set: no time per step to set beside the limit's");
  EXPECT_EQ(limit_unmeasured_words(l.back(), cell(4, "mps:auto", 11.5), "step"), "");
}

// Worker sets at N >= 2 that did not co-run say why in one line, predict --measure's: how far apart their copies'
// steady parts lay and how busy their CPUs were; a ladder whose sets all co-ran says nothing of it.
TEST(AdviseDecision, SetsThatDidNotCoRunSayWhyInOneLine) {
  auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  const std::string together = nlohmann::json(recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN).reasons).dump();
  EXPECT_EQ(together.find("Not co-run"), std::string::npos) << together;
  for (MeasuredCell& c : l) {
    if (c.procs < 2) continue;
    SetMeasurement s = c.sets.front();
    s.co_run = false;
    s.unit_ms = s.per_s = NAN;
    s.parting = c.procs == 2 ? 1.2 : 1.5;
    s.cpu_share = c.is(ModeKind::mps) ? 0.97 : 0.6;
    c.add(s);
  }
  const std::string said = nlohmann::json(recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN).reasons).dump();
  EXPECT_NE(said.find("Not co-run (N >= 2): 4 worker sets; their copies' steady parts lay 1.20x-1.50x apart, median "
                      "1.35x (longest over shortest); the median copy of each kept its CPU busy for 0.60-0.97 of its "
                      "run (cpu_user_s + cpu_system_s over completion_s; spinning on the GPU counts as busy): in 2 of "
                      "them the median copy kept it busy under 0.9 of its run, and waited (for the GPU, data or a "
                      "clock) for the rest."),
            std::string::npos)
      << said;
}

TEST(AdviseDecision, ALimitWhoseOutputFailsTheCheckIsNotAdvised) {
  auto limited = cell(4, "mps:auto", 11.1);  // 99 % of unlimited MPS's speed, well inside the interval rule
  for (SetMeasurement& s : limited.sets) s.check_values = {0.51, 0.62};
  limited.check_values = {0.51, 0.62, 0.51, 0.62, 0.51, 0.62};
  EXPECT_EQ(check_problem(limited, 0.5, 1.0),
            "a copy's value ended 24.00 % from one copy alone's 0.5000 (tolerance 1 %)");
  EXPECT_EQ(check_problem(limited, 0.5, 30.0), "");
  EXPECT_NE(check_problem(limited, NAN, 1.0).find("one copy alone printed no value"), std::string::npos);
  limited.check_problem = check_problem(limited, 0.5, 1.0);
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {limited}, NAN);
  EXPECT_EQ(r.mode, "mps");
  EXPECT_NE(nlohmann::json(r.reasons).dump().find("but its output failed the check: a copy's value ended 24.00 %"),
            std::string::npos)
      << nlohmann::json(r.reasons).dump();
}

TEST(AdviseDecision, AOneCopyModeGapBeyondTheNoiseIsFlagged) {
  const auto l = ladder({{1, 13.2, 9.75}, {2, 26.4, 10.5}});
  const RatioInterval gap = one_copy_mode_gap(l);
  EXPECT_NEAR(gap.ratio, 13.2 / 9.75, 1e-3);
  const std::string all = nlohmann::json(recommend(alone_at(13.2, 3, 0.2), l, {}, {}, NAN).reasons).dump();
  EXPECT_NE(all.find("beyond the noise and over 5.0 % (flagged)"), std::string::npos) << all;
}

TEST(AdviseModel, APacedProgramsThroughputIsWhatItServedNotNOverItsLoss) {
  // mlp-infer at 200 requests per second and copy: each request 5x slower beside 3 others, all served.
  std::vector<MeasuredCell> cells{cell(1, "timeslice", 0.05, NAN, true, 0), cell(4, "timeslice", 0.25, NAN, true, 0)};
  serve(cells[0], 200);
  serve(cells[1], 800);
  set_losses(cells);
  EXPECT_DOUBLE_EQ(cells[1].loss, 5.0);
  EXPECT_DOUBLE_EQ(cells[1].throughput(), 4.0);
}

TEST(AdviseRecommend, ALimitIsTakenWhereItKeepsNinetyFivePercentMpsAutoFirstThenTwiceItsShare) {
  const auto l = ladder({{1, 10, 10}, {2, 20, 10.5}, {4, 40, 11}});
  const MeasuredCell cheap = cell(4, "mps:auto", 11.3);
  const MeasuredCell dear = cell(4, "mps:auto", 14.0);
  const MeasuredCell doubled = cell(4, "mps:50", 11.2);
  const MeasuredCell doubled_dear = cell(4, "mps:50", 12.0);
  EXPECT_EQ(recommend(alone_at(10, 3, 0.2), l, {}, {cheap}, NAN).mode, "mps:auto");
  const Recommendation r = recommend(alone_at(10, 3, 0.2), l, {}, {dear, doubled_dear}, NAN);
  EXPECT_EQ(r.mode, "mps");
  EXPECT_NE(nlohmann::json(r.reasons).dump().find("leave the thread percentage unlimited"), std::string::npos);
  const Recommendation half = recommend(alone_at(10, 3, 0.2), l, {}, {dear, doubled}, NAN);
  EXPECT_EQ(half.mode, "mps:50");  // twice mps:auto's share kept 98 %
  EXPECT_NE(nlohmann::json(half.reasons).dump().find("limited to 50 % of the SMs"), std::string::npos);
  EXPECT_EQ(recommend(alone_at(10, 3, 0.2), l, {}, {}, NAN).mode, "mps");
  // A limit the budget would not hold (why_no_limit) is a limit that did not run, in advice.md's words.
  MeasuredCell unrun;
  unrun.procs = 4;
  unrun.mode = parse_mode("mps:50");
  unrun.problem = why_no_limit(32, 36.1);
  const std::string skipped = nlohmann::json(recommend(alone_at(10, 3, 0.2), l, {}, {dear, unrun}, NAN).reasons).dump();
  EXPECT_NE(
      skipped.find("mps:50 at N=4 did not run: the time budget would not hold its sweep (about 36 s, 32 s left)."),
      std::string::npos)
      << skipped;
}

TEST(AdviseLadder, RungsDoubleUpToTheLargestNOrAreTheOnesGiven) {
  AdviseSpec s;
  s.max_procs = 10;
  EXPECT_EQ(ladder_rungs(s), (std::vector<int>{1, 2, 4, 8, 10}));
  s.max_procs = 8;
  EXPECT_EQ(ladder_rungs(s), (std::vector<int>{1, 2, 4, 8}));
  s.ladder = {1, 4, 10};
  EXPECT_EQ(ladder_rungs(s), (std::vector<int>{1, 4, 10}));
}

TEST(AdviseLadder, APyTorchClientProfiledOnAnH100IsPlacedByItsProfile) {
  // results/2026-11-26-profile/client-profiled-1: scripts/examples/mnist_train.py alone, --profile-gpu.
  const fs::path dir = source_dir() / "results/2026-11-26-profile/client-profiled-1";
  const AloneFacts a = read_alone(dir, {true, true}, 20);
  ASSERT_TRUE(a.placed()) << a.problem;
  EXPECT_EQ(a.source, AloneSource::profile);
  EXPECT_EQ(a.unit, LadderUnit::step);
  EXPECT_NEAR(a.unit_ms, 2.68484, 1e-4);  // its step_mean_ms
  EXPECT_NEAR(a.duty, 0.0493, 5e-4);
  EXPECT_NEAR(a.point.footprint, 0.053, 0.002);
  EXPECT_NEAR(a.point.step_ms, a.point.burst_ms / a.duty, 1e-9);
  const AloneFacts as_run = read_alone(dir, {true, false}, 20);
  EXPECT_EQ(as_run.unit, LadderUnit::run);
  EXPECT_GT(as_run.unit_ms, 9000);  // its completion, start-up included
}

TEST(AdviseLadder, AClientProfiledWithHostWaitsGetsBothEndsOfTheBracket) {
  // results/2026-11-26-advise/lease-b/client: the profile of format 2 (host waits), one copy alone on an H100.
  const fs::path dir = source_dir() / "results/2026-11-26-advise/lease-b/client/sweeps/alone";
  const AloneFacts a = read_alone(dir, {true, true}, 20);
  ASSERT_TRUE(a.placed()) << a.problem;
  EXPECT_NE(a.burst_basis.find("host waits"), std::string::npos) << a.burst_basis;
  EXPECT_NEAR(a.point.step_ms, 1.39954, 1e-4);  // profile_wait_step_ms
  EXPECT_NEAR(a.point.kernel_ms, 0.0410363, 1e-6);
  ASSERT_TRUE(a.gap_point.has_value());
  EXPECT_LT(a.gap_point->step_ms, a.point.step_ms);  // idle gaps cut the step finer than host waits
  const auto p = predict_ladder(a, h100(), 10);
  const PredictedCell* ts = find_predicted(p, ModeKind::timeslice, 10);
  ASSERT_TRUE(ts && std::isfinite(ts->prediction.upper));
  EXPECT_LT(ts->throughput_low(), ts->throughput());
}

// Issue 42 item 5: a program without --exec-metric is timed per step from its copies' profiles, predict's unit over
// each run's common window (units.csv); a worker set whose copies did not run together has no unit and is left
// out of every per-unit mean and interval, and still counts per whole run. The gated ladder of
// results/2026-12-02-unitrange lease-3 (torch_phases.py, NVTX-marked steps, H200): MPS N=4 co-run in one repeat
// of two, N=10 in neither; time-sliced every run co-run.
TEST(AdviseLadder, AProfiledLadderTimesCoRunStepsAndLeavesTheOthersOutPerUnitOnly) {
  const fs::path dir = source_dir() / "results/2026-12-02-unitrange/lease-3/marked";
  const std::vector<MeasuredUnit> units = read_units(dir / "units.csv");
  const auto units_of = [&units](const std::string& run_id) {
    std::vector<double> ms;
    for (const MeasuredUnit& u : units)
      if (u.run_id == run_id) ms.push_back(u.unit_ms);
    return ms;
  };
  const UnitChoice unit{true, false, true};
  std::vector<MeasuredCell> cells;
  read_cells(dir, unit, cells);
  set_losses(cells);
  const MeasuredCell* ts10 = find_measured(cells, ModeKind::timeslice, 10);
  const MeasuredCell* mps4 = find_measured(cells, ModeKind::mps, 4);
  const MeasuredCell* mps10 = find_measured(cells, ModeKind::mps, 10);
  ASSERT_TRUE(ts10 && mps4 && mps10);
  ASSERT_EQ(ts10->sets.size(), 2u);
  EXPECT_EQ(ts10->co_run_sets(), 2);
  const std::vector<double> ts10_units = units_of("r1-timeslice-exec-n10");
  ASSERT_EQ(ts10_units.size(), 10u);
  double steps_per_s = 0;
  for (const double ms : ts10_units) steps_per_s += 1000 / ms;
  EXPECT_NEAR(ts10->sets[0].unit_ms, mean(ts10_units), 1e-9);
  EXPECT_NEAR(ts10->sets[0].per_s, steps_per_s, 1e-6 * steps_per_s);
  for (const MeasuredUnit& u : units)  // units.csv's own steps per second of the run (as written, 6 digits)
    if (u.run_id == "r1-timeslice-exec-n10") {
      EXPECT_NEAR(ts10->sets[0].per_s, u.run_steps_per_s, 1e-4 * steps_per_s);
    }
  EXPECT_TRUE(std::isnan(ts10->sets[0].p99_ms));  // a step's p99 is not in the units
  // For a longer job: a copy's "start-up" is the rest of its run outside its steady part, its units the steps of
  // that part at its unit.
  double rest = 0, steps = 0;
  for (const MeasuredUnit& u : units)
    if (u.run_id == "r1-timeslice-exec-n10") {
      rest += (u.run_s - u.steady_s) / 10;
      steps += u.steady_s * 1000 / u.unit_ms;
    }
  EXPECT_NEAR(ts10->sets[0].startup_s, rest, 1e-9);
  EXPECT_NEAR(ts10->sets[0].units, steps, 1e-6 * steps);
  // MPS N=4: one set co-run, one not: the unit is the co-run set's, per whole run both count.
  ASSERT_EQ(mps4->sets.size(), 2u);
  EXPECT_TRUE(mps4->ok);
  EXPECT_EQ(mps4->co_run_sets(), 1);
  const SetMeasurement& apart = mps4->sets[0].co_run ? mps4->sets[1] : mps4->sets[0];
  const SetMeasurement& together = mps4->sets[0].co_run ? mps4->sets[0] : mps4->sets[1];
  EXPECT_TRUE(std::isnan(apart.unit_ms));
  EXPECT_TRUE(std::isnan(apart.units));  // no steps measured: no energy per step, no part in a longer job
  EXPECT_NE(apart.not_co_run.find("copies without a co-run unit (not co-run)"), std::string::npos) << apart.not_co_run;
  // How they parted: the run's coverage and its copies' steady parts, as units.csv has them.
  double least = INFINITY, most = 0, coverage = NAN;
  for (const MeasuredUnit& u : units)
    if (u.procs == 4 && u.mode.name == "mps" && u.repeat == (mps4->sets[0].co_run ? 2 : 1)) {
      least = std::min(least, u.steady_s);
      most = std::max(most, u.steady_s);
      coverage = u.coverage;
    }
  ASSERT_TRUE(std::isfinite(coverage));
  EXPECT_NE(
      apart.not_co_run.find("the window in which all were steady covered " + fmt_fixed(std::floor(100 * coverage), 0) +
                            " % of a copy's steady part, which lasted " + fmt_sig(least) + "-" + fmt_sig(most) + " s"),
      std::string::npos)
      << apart.not_co_run;
  EXPECT_NEAR(mps4->unit_ms, together.unit_ms, 1e-12);
  EXPECT_EQ(mps4->set_rates(Basis::unit).size(), 1u);
  EXPECT_EQ(mps4->set_unit_ms().size(), 1u);
  EXPECT_EQ(mps4->set_rates(Basis::run).size(), 2u);
  EXPECT_TRUE(std::isfinite(mps4->relative));
  // MPS N=10: no set co-run: no throughput per unit, per whole run as before.
  EXPECT_EQ(mps10->co_run_sets(), 0);
  EXPECT_TRUE(mps10->ok);
  EXPECT_TRUE(std::isnan(mps10->relative));
  EXPECT_TRUE(std::isnan(mps10->loss));
  EXPECT_GT(mps10->relative_run, 0);
  EXPECT_TRUE(mps10->set_rates(Basis::unit).empty());
  // ... so per unit the best MPS cell is one that ran together.
  const Pick p = pick(cells, NAN, Basis::unit);
  ASSERT_NE(p.best_mps, nullptr);
  EXPECT_GT(p.best_mps->co_run_sets(), 0);
  // One copy alone: its step from the same units (the first time-sliced run of one copy), not its whole run.
  const AloneFacts a = read_alone(dir, unit, 20);
  EXPECT_EQ(a.unit, LadderUnit::step);
  EXPECT_NEAR(a.unit_ms, mean(units_of("r1-timeslice-exec-n1")), 1e-12);
  EXPECT_NE(a.unit_basis.find("from its GPU profile"), std::string::npos) << a.unit_basis;
  // Without units.csv a profiled ladder is not read at all (never a whole run taken for a step).
  TempDir tmp;
  for (const char* f : {"summary.csv", "runs.csv", "meta.json"}) fs::copy_file(dir / f, tmp.path() / f);
  std::vector<MeasuredCell> none;
  try {
    read_cells(tmp.path(), unit, none);
    ADD_FAILURE() << "read a profiled ladder without its units.csv";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("units.csv not found"), std::string::npos) << e.what();
  }
}

TEST(AdviseLadder, ARecordedSweepOfTwoWorkloadsGivesEveryModeAndNAsACell) {
  const fs::path dir = source_dir() / "results/2026-11-26-profile/client-profiled-1";
  std::vector<MeasuredCell> cells;
  read_cells(dir, {true, true}, cells);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_TRUE(cells[0].ok);
  EXPECT_NEAR(cells[0].unit_ms, 2.68484, 1e-4);
  set_losses(cells);
  EXPECT_DOUBLE_EQ(cells[0].loss, 1.0);
}

class Advise : public Orchestration {
 protected:
  CommandOutput advise(std::vector<std::string> a, double timeout_s = 300) {
    std::vector<std::string> all{"advise", "--cpu-stand-in", "--out", out().string()};
    all.insert(all.end(), a.begin(), a.end());
    return run_program(bench_mps_exe(), all, env, timeout_s);
  }
  nlohmann::json advice() const { return nlohmann::json::parse(read_text(out() / "advice.json")); }
  /// A copy of the committed folder results/`subject` at tmp/redo/`name`, for --redo to write over.
  fs::path copy_committed(const std::string& subject, const std::string& name) const {
    const fs::path copy = tmp / "redo" / name;
    fs::create_directories(copy.parent_path());
    fs::copy(source_dir() / "results" / subject, copy, fs::copy_options::recursive);
    return copy;
  }
};

// A budget too small for the pair's sweep: no advice, and how far it got and the budget that would hold it.
TEST_F(Advise, APairWhoseBudgetRanOutSaysTheBudgetThatWouldHoldIt) {
  const auto r = advise(
      {"--workload", "cpu", "--beside", "cpu", "--budget", "30", "--", "--cpu-task-us", "500", "--duration", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string headline =
      nlohmann::json::parse(read_text(out() / "beside.json")).at("beside").at("headline").get<std::string>();
  EXPECT_EQ(headline.rfind("No advice: the pair's sweep failed (stopped when the time budget ran out", 0), 0u)
      << headline;
  EXPECT_NE(headline.find(" of its 27 runs finished in 3"), std::string::npos) << headline;
  EXPECT_NE(headline.find(": at that pace the pair needs about "), std::string::npos) << headline;
  EXPECT_NE(headline.find("; run advise again with --budget "), std::string::npos) << headline;
}

// Issue 34: two different programs side by side (--beside), end to end on the CPU stand-ins.
TEST_F(Advise, TwoProgramsSideBySideGetEachOnesShareAndThePairsWithIntervals) {
  const auto r = advise({"--workload", "cpu", "--beside", "cpu", "--", "--cpu-task-us", "500", "--duration", "0.4"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(read_text(out() / "beside.json"));
  ASSERT_EQ(j.at("beside").at("modes").size(), 3u) << j.at("beside");  // time-sliced, MPS, MPS with B below normal
  for (const auto& m : j.at("beside").at("modes")) {
    EXPECT_TRUE(m.at("ok").get<bool>()) << m;
    EXPECT_EQ(m.at("combined").size(), static_cast<std::size_t>(kBesideSets)) << m;
    for (std::size_t i = 0; i < m.at("combined").size(); ++i)
      EXPECT_DOUBLE_EQ(m.at("combined")[i].get<double>(),
                       m.at("a_kept")[i].get<double>() + m.at("b_kept")[i].get<double>());
  }
  EXPECT_TRUE(j.at("beside").at("gain").at("lo").is_number()) << j.at("beside").at("gain");
  const std::string md = read_text(out() / "beside.md");
  EXPECT_NE(md.find("| mode | worker sets | cpu (x alone) | cpu (x alone) | together (ideal 2) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find(j.at("beside").at("headline").get<std::string>()), std::string::npos);
  EXPECT_EQ(md.find(" (-"), std::string::npos) << "a ratio's interval starts at 0 at most: " << md;
  EXPECT_TRUE(fs::exists(out() / "sweeps" / "beside" / "summary.csv"));
  // A's tail under the better MPS mode against time-sliced, with its interval, in the headline.
  EXPECT_EQ(j.at("beside_format_version"), kBesideFormatVersion);
  EXPECT_TRUE(j.at("beside").at("latency").at("lo").is_number()) << j.at("beside");
  EXPECT_NE(j.at("beside").at("headline").get<std::string>().find("cpu's p99 under MPS"), std::string::npos)
      << j.at("beside").at("headline");
  // --redo writes the same advice again from the pair's sweep, and refuses a basis it has none of.
  const std::string json_before = read_text(out() / "beside.json");
  const auto redo = run_program(bench_mps_exe(), {"advise", "--redo", out().string()}, env);
  ASSERT_EQ(redo.exit_code, 0) << redo.err << redo.out;
  EXPECT_EQ(read_text(out() / "beside.md"), md);
  EXPECT_EQ(read_text(out() / "beside.json"), json_before);
  const auto basis = run_program(bench_mps_exe(), {"advise", "--redo", out().string(), "--basis", "run"}, env);
  EXPECT_EQ(basis.exit_code, 2) << basis.err;
  EXPECT_NE(basis.err.find("--basis: a side-by-side advice has no basis to choose"), std::string::npos) << basis.err;
}

TEST(AdviseBeside, ThePairsGainIsDecidedFromItsWorkerSets) {
  // Three sets per mode: each one's throughput beside the other over its own alone, as the sweep records them.
  const auto rows_of = [](const std::string& mode, const std::vector<std::pair<double, double>>& kept) {
    std::vector<SummaryRecord> rows;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      SummaryRecord r;
      r.run_id = "r" + std::to_string(i + 1) + "-" + mode + "-x-n2-interference";
      r.mode = mode;
      r.procs = 2;
      r.scenario = RunKind::interference;
      r.status = RunStatus::ok;
      r.fg_throughput_vs_alone = kept[i].first;
      r.bg_throughput_kept = kept[i].second;
      r.fg_p99_vs_alone = 1.5;
      r.fg_latency_p99_ms = 3.0;
      rows.push_back(r);
    }
    return rows;
  };
  std::vector<SummaryRecord> rows = rows_of("timeslice", {{0.5, 0.5}, {0.51, 0.49}, {0.5, 0.5}});
  const auto mps = rows_of("mps", {{0.9, 0.85}, {0.91, 0.86}, {0.9, 0.84}});
  rows.insert(rows.end(), mps.begin(), mps.end());
  const BesideAdvice a = beside_from_rows(rows, "infer", "mlp");
  EXPECT_EQ(a.best, "mps");
  EXPECT_NEAR(a.gain.ratio, 1.753, 0.01);
  EXPECT_GT(a.gain.lo, 1.05);
  EXPECT_NE(a.headline.find("Run infer beside mlp under MPS: together they did 1.75x ("), std::string::npos)
      << a.headline;
  // The same means from sets far apart: can't tell.
  std::vector<SummaryRecord> noisy = rows_of("timeslice", {{0.5, 0.5}, {0.51, 0.49}});
  const auto close = rows_of("mps", {{0.3, 0.3}, {0.8, 0.8}});
  noisy.insert(noisy.end(), close.begin(), close.end());
  EXPECT_NE(beside_from_rows(noisy, "infer", "mlp").headline.find("Can't tell whether under MPS beats time-slicing"),
            std::string::npos)
      << beside_from_rows(noisy, "infer", "mlp").headline;
  // A's tail on one basis (issue 44): its p99 in ms under the MPS mode the throughput verdict weighs over its p99 in ms
  // time-sliced; an MPS mode with a lower p99 but less of the pair's work is not picked after the fact.
  std::vector<SummaryRecord> tails = rows;
  for (SummaryRecord& r : tails) {
    r.fg_p99_vs_alone = r.mode == "timeslice" ? 2.0 : 1.0;  // each over its own mode's alone: not the basis
    r.fg_latency_p99_ms = r.mode == "timeslice" ? 4.0 + 0.01 * static_cast<double>(r.run_id.size()) : 2.0;
  }
  for (SummaryRecord r : rows_of("mps+prio", {{0.8, 0.8}, {0.81, 0.79}, {0.8, 0.8}})) {
    r.fg_p99_vs_alone = 0.5;
    r.fg_latency_p99_ms = 1.0;
    tails.push_back(r);
  }
  const BesideAdvice t = beside_from_rows(tails, "infer", "mlp");
  ASSERT_TRUE(t.latency_mode.has_value());
  EXPECT_EQ(t.latency_mode->name, "mps");
  EXPECT_NEAR(t.latency.ratio, 2.0 / 4.30, 0.001);  // run ids of 30 characters: 4.30 ms time-sliced
  EXPECT_LT(t.latency.hi, 0.95);
  EXPECT_NE(t.headline.find("infer's p99 under MPS was 0.47x ("), std::string::npos) << t.headline;
  EXPECT_NE(t.headline.find("its p99 time-sliced (p99s in ms, the MPS mode the verdict weighs)"), std::string::npos)
      << t.headline;
  EXPECT_NE(t.headline.find("a shorter tail, its interval wholly below -5 %."), std::string::npos) << t.headline;
  EXPECT_NE(a.headline.find("infer's p99 under MPS was 1.00x (1.00-1.00) its p99 time-sliced (p99s in ms, the MPS mode "
                            "the verdict weighs): the same within 5 %."),
            std::string::npos)
      << a.headline;
}

// A set in which B did not run beside A for most of A's span measured A alone: left out and said, never read as
// A undisturbed; a mode with no set side by side did not run the pair.
TEST(AdviseBeside, ASetNotSideBySideIsLeftOutAndSaid) {
  std::vector<SummaryRecord> rows;
  for (const char* mode : {"timeslice", "mps"})
    for (int set = 1; set <= 3; ++set) {
      SummaryRecord r;
      r.run_id = "r" + std::to_string(set) + "-" + mode + "-x-n2-interference";
      r.mode = mode;
      r.procs = 2;
      r.scenario = RunKind::interference;
      r.status = RunStatus::ok;
      r.fg_throughput_vs_alone = 1.0;
      r.bg_throughput_kept = 0.5;
      r.fg_p99_vs_alone = 1.0;
      r.fg_latency_p99_ms = 2.0;
      r.fg_overlap = std::string(mode) == "mps" || set == 2 ? 0.25 : 0.99;
      rows.push_back(r);
    }
  const BesideAdvice a = beside_from_rows(rows, "infer", "mlp");
  EXPECT_EQ(a.best, "timeslice");
  EXPECT_NE(a.headline.find("MPS did not (no worker set ran the pair side by side (r1-mps-x-n2-interference: not side "
                            "by side: every background job ran during only 25.0 % of the foreground's timed span"),
            std::string::npos)
      << a.headline;
  ASSERT_FALSE(a.modes.empty());
  EXPECT_EQ(a.modes[0].combined.size(), 2u) << "time-sliced: sets 1 and 3";
  const std::string why = a.reasons.empty() ? "" : a.reasons.front();
  EXPECT_NE(why.find("(2 worker sets; 1 left out, r2-timeslice-x-n2-interference: not side by side"), std::string::npos)
      << why;
  // No mode with a set side by side: no advice, said as such (not "ended ok"), and the table says why.
  for (SummaryRecord& r : rows) r.fg_overlap = 0.25;
  const BesideAdvice none = beside_from_rows(rows, "infer", "mlp");
  EXPECT_EQ(none.headline,
            "No advice: no side-by-side run of the pair ran infer beside mlp for most of infer's run, or "
            "ended ok.");
  const std::string md = beside_markdown(none, "machine");
  EXPECT_NE(md.find("| time-sliced | 0 | not side by side | - |"), std::string::npos) << md;
}

// advise --redo of a pair committed before fg_overlap reads the overlap from the sweep's tasks.csv: the committed
// lease-f pair wlm-lstm beside mlp, whose B ran one task beside A (docs/ADVISE.md), is no longer advised from it.
TEST(AdviseBeside, RedoOfAPairCommittedBeforeTheOverlapReadsItFromTheTasks) {
  TempDir tmp;
  const fs::path source = source_dir() / "results" / "2026-11-27-beside" / "lease-f" / "wlm-lstm-beside-mlp";
  ASSERT_TRUE(fs::exists(source / "beside.json")) << source;
  const fs::path copy = tmp / "pair";
  fs::copy(source, copy, fs::copy_options::recursive);
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, {}, 120);
  const nlohmann::json j = nlohmann::json::parse(read_text(copy / "beside.json"));
  for (const auto& m : j.at("beside").at("modes")) {
    EXPECT_FALSE(m.at("ok").get<bool>()) << m;
    EXPECT_FALSE(m.at("not_side_by_side").empty()) << m;
  }
  EXPECT_EQ(
      j.at("beside").at("headline").get<std::string>().rfind("No advice: no side-by-side run of the pair ran ", 0), 0u)
      << j.at("beside").at("headline") << r.out << r.err;
  EXPECT_NE(r.exit_code, 0) << "no advice is a failed comparison";
}

TEST(AdviseBeside, OnlyOneSideRanOkSaysWhyTheOtherDidNot) {
  std::vector<SummaryRecord> rows;
  for (const char* mode : {"timeslice", "mps"}) {
    SummaryRecord r;
    r.run_id = std::string("r1-") + mode + "-x-n2-interference";
    r.mode = mode;
    r.procs = 2;
    r.scenario = RunKind::interference;
    r.status = std::string(mode) == "mps" ? RunStatus::mps_unproven : RunStatus::ok;
    if (r.status != RunStatus::ok) r.reason = "copy 1 never appeared in the server's client list";
    r.fg_throughput_vs_alone = 0.5;
    r.bg_throughput_kept = 0.5;
    r.fg_p99_vs_alone = 1.5;
    rows.push_back(r);
  }
  const BesideAdvice a = beside_from_rows(rows, "infer", "mlp");
  EXPECT_EQ(a.best, "timeslice");
  EXPECT_NE(a.headline.find("Only time-sliced ran ok for infer beside mlp, nothing to hold it against: MPS did not "
                            "(r1-mps-x-n2-interference: mps_unproven: "),
            std::string::npos)
      << a.headline;
  EXPECT_NE(a.headline.find("never appeared in the server's client list"), std::string::npos) << a.headline;
}

/// One advise command line as its parser leaves it: `what` (--command or --workload) and the rest.
struct AdviseCase {
  std::string name;  ///< "<gpu|cpu>/<what>": the prefix of its children's names
  AdviseSpec spec;
};

AdviseCase advise_case(const std::string& name, bool cpu, const std::string& command, const std::string& workload,
                       std::vector<std::string> sweep_args = {}, const std::string& device = "") {
  AdviseCase c{std::string(cpu ? "cpu/" : "gpu/") + name, {}};
  c.spec.command = command;
  c.spec.workload = workload;
  c.spec.sweep_args = std::move(sweep_args);
  c.spec.device = device;
  c.spec.cpu_stand_in = cpu;
  return c;
}

/// The ladders: a GPU workload and a program, on a GPU and on the CPU stand-ins, with options after --, a
/// --device (its key: a UUID, a pretend device), --check-metric, the default rungs and --ladder's.
std::vector<AdviseCase> ladder_cases() {
  const std::string uuid = "GPU-8d3f1c2a-0b4e-4c1d-9a7f-2e6b5c4d3a21";
  const std::vector<std::string> metric{"--exec-metric", "step_ms=([0-9.]+)"};
  std::vector<AdviseCase> cases{
      advise_case("spin", false, "", "spin"),
      advise_case("mlp", false, "", "mlp", {"--mlp-profile", "gpu-bound"}, uuid),
      advise_case("exec", false, "python3 train.py", "", metric, "0"),
      advise_case("exec-plain", false, "sleep 0.01", ""),
      advise_case("duty", true, "", "duty", {"--duty-burst-us", "1000", "--duty-pct", "25", "--duration", "0.4"}),
      advise_case("cpu", true, "", "cpu", {"--cpu-task-us", "500", "--duration", "0.4"}, "cpu-0"),
      advise_case("exec", true, "sleep 0.01", "", metric),
      advise_case("exec-range", false, "python3 train.py", "", {"--exec-unit-range", "train_step"})};
  cases[1].spec.ladder = {1, 3, kAdviseMaxProcs};
  cases[1].spec.max_procs = kAdviseMaxProcs;
  cases[2].spec.check_metric = "final loss ([0-9.]+)";
  cases[3].spec.max_procs = 4;
  cases[4].spec.ladder = {1, 2, 4};
  cases[4].spec.max_procs = 4;
  return cases;
}

/// --beside: the pair's one sweep, a workload or a program beside each background it takes (on the CPU
/// stand-ins the foregrounds that run there: cpu and a program).
std::vector<AdviseCase> beside_cases() {
  std::vector<AdviseCase> cases;
  for (const char* b : {"filler", "spin", "membw", "mlp", "cpu"}) {
    cases.push_back(advise_case(std::string("mlp-infer-beside-") + b, false, "", "mlp-infer"));
    cases.push_back(advise_case(std::string("exec-beside-") + b, false, "python3 serve.py", "", {}, "0"));
  }
  cases.push_back(
      advise_case("cpu-beside-cpu", true, "", "cpu", {"--cpu-task-us", "500", "--duration", "0.4"}, "cpu-0"));
  cases.push_back(advise_case("exec-beside-cpu", true, "sleep 0.01", ""));
  for (AdviseCase& c : cases) c.spec.beside = c.name.substr(c.name.rfind('-') + 1);
  return cases;
}

/// Every child sweep advise can run for `c` (the ladder's every rung, a set more of each mode at each N and
/// each thread limit, or the pair), through `sweeps`.
void run_every_child(const AdviseCase& c, ChildSweeps& sweeps) {
  if (!c.spec.beside.empty()) {
    sweeps.run("beside", beside_args(c.spec));
    return;
  }
  AdviseChildArgs args(c.spec, advise_workload(c.spec));
  sweeps.run("xray", args.xray());
  sweeps.run("alone", args.alone());
  args.set_gate("wait:12");  // as run_advise does from the alone run's profile (a program's copies only)
  // ... and a program without --exec-metric timed from its profiles (where one copy alone had a step)
  const auto& extra = c.spec.sweep_args;
  args.set_profiled(!c.spec.command.empty() && std::find(extra.begin(), extra.end(), "--exec-metric") == extra.end());
  for (const int n : ladder_rungs(c.spec)) {
    const std::string at = "-n" + std::to_string(n);
    sweeps.run("ladder" + at, args.rung(n));
    for (const ModeKind mode : kLadderModes)
      sweeps.run(std::string("more-") + std::string(mode_kind_word(mode)) + at,
                 args.more(std::string(mode_kind_word(mode)), n));
    if (n < 2) continue;  // a limit is tried only where MPS is advised at two copies or more
    for (const Mode& limit : AdviseChildArgs::limit_modes(n))
      sweeps.run("limit-" + limit.name + at, args.limit(limit.name, n));
  }
  sweeps.run("alone-last", args.alone_last());
}

// Issue 36: every command line advise builds for a child sweep parses as the sweep's own (its common options
// and --out included, as ChildSweeps gives them), for a GPU as for the CPU stand-ins: each child goes to a
// starter that records its command line and answers as a child that failed, and each line is parsed here.
TEST(AdviseChildArgs, EveryChildSweepCommandLineParses) {
  TempDir tmp;
  std::map<std::string, std::vector<std::string>> seen;  // "<case>/<child>": its command line
  std::vector<AdviseCase> cases = ladder_cases();
  for (AdviseCase& c : beside_cases()) cases.push_back(std::move(c));
  for (const AdviseCase& c : cases) {
    // run_advise's: the device's key after each child's own; the pair's sweep names its device itself.
    ChildSweeps sweeps(tmp.path() / c.name,
                       c.spec.beside.empty() ? advise_common_args(c.spec.device) : std::vector<std::string>{}, 600);
    sweeps.set_starter([&seen, &c](const std::vector<std::string>& args, const fs::path& log) {
      seen[c.name + "/" + log.stem().string()] = args;
      return 1;
    });
    ASSERT_NO_THROW(run_every_child(c, sweeps)) << c.name;
  }
  for (const char* child :
       {"gpu/spin/ladder-n10", "gpu/mlp/ladder-n48", "gpu/mlp/limit-mps:auto-n48", "gpu/mlp/limit-mps:68-n3",
        "gpu/exec/alone", "gpu/exec/more-mps-n8", "cpu/duty/ladder-n4", "cpu/cpu/xray", "cpu/exec/limit-mps:50-n4",
        "gpu/exec-beside-mlp/beside", "cpu/exec-beside-cpu/beside"})
    EXPECT_TRUE(seen.count(child)) << "no command line seen for " << child;
  EXPECT_EQ(seen.size(), 183u);  // 171 of the ladders, 12 pairs
  // A program's rungs hold its copies at the gate its alone run gave; bench_mps's own workloads have none.
  const auto gate_of = [&](const std::string& child) {
    const auto& a = seen.at(child);
    const auto at = std::find(a.begin(), a.end(), "--exec-gate");
    return at == a.end() || at + 1 == a.end() ? std::string() : *(at + 1);
  };
  EXPECT_EQ(gate_of("gpu/exec/more-mps-n8"), "wait:12");
  EXPECT_EQ(gate_of("cpu/exec/limit-mps:50-n4"), "wait:12");
  EXPECT_EQ(gate_of("gpu/exec/alone"), "");
  EXPECT_EQ(gate_of("gpu/spin/ladder-n10"), "");
  // A program without --exec-metric: every sweep after the alone run profiled too, once; with it, none of them.
  const auto profiled = [&](const std::string& child) {
    const auto& a = seen.at(child);
    return std::count(a.begin(), a.end(), "--profile-gpu");
  };
  for (const char* child : {"gpu/exec-plain/alone", "gpu/exec-plain/ladder-n4", "gpu/exec-plain/more-mps-n2",
                            "gpu/exec-plain/limit-mps:auto-n4", "gpu/exec/alone"})
    EXPECT_EQ(profiled(child), 1) << child;
  for (const char* child : {"gpu/exec/ladder-n10", "gpu/exec/more-mps-n8", "gpu/spin/ladder-n10"})
    EXPECT_EQ(profiled(child), 0) << child;
  // --exec-unit-range: every sweep profiled (the range is read from the profiles), the range passed to each.
  for (const char* child : {"gpu/exec-range/alone", "gpu/exec-range/ladder-n10", "gpu/exec-range/limit-mps:auto-n4"}) {
    EXPECT_EQ(profiled(child), 1) << child;
    EXPECT_EQ(std::count(seen.at(child).begin(), seen.at(child).end(), "train_step"), 1) << child;
  }
  for (const auto& [child, args] : seen) {
    try {
      const SweepSpec spec = parse_sweep_args(args);
      EXPECT_FALSE(spec.procs.empty()) << child;
      // A program is warmed up once, before its alone run; every sweep after it measures its sets alike,
      // without (a limit's cell is read against the ladder's MPS cell: lease 12's limits each ran a warm-up).
      const bool program = child.find("/exec") != std::string::npos && child.find("beside") == std::string::npos;
      const std::string name = child.substr(child.rfind('/') + 1);
      if (program && name != "alone" && name != "xray") {
        EXPECT_EQ(spec.exec_warmups, 0) << child;
      }
      if (program && name == "alone") {
        EXPECT_GT(spec.exec_warmups, 0) << child;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << child << ": advise built a command line its sweep refuses: " << e.what();
    }
  }
  std::cout << seen.size() << " child sweep command lines parsed\n";
}

TEST_F(Advise, ACpuStandInOfShortBurstsIsProfiledPredictedVerifiedAndAdvised) {
  const auto r = advise({"--workload", "duty", "--ladder", "1,2,4", "--budget", "240", "--", "--duty-burst-us", "1000",
                         "--duty-pct", "25", "--duration", "0.4"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = advice();
  EXPECT_EQ(j.at("advice_format_version"), kAdviceFormatVersion);
  EXPECT_EQ(j.at("alone").at("source"), "events");
  EXPECT_GT(j.at("alone").at("burst_ms").get<double>(), 0.5);
  EXPECT_EQ(j.at("ladder").size(), 6u);  // N = 1, 2, 4 in two modes
  for (const auto& c : j.at("ladder")) EXPECT_GE(c.at("sets").size(), static_cast<std::size_t>(kSetsPerRung)) << c;
  EXPECT_TRUE(j.at("decision").at("mps_over_timeslice").at("lo").is_number()) << j.at("decision");
  EXPECT_EQ(j.at("decision").at("basis"), "unit");  // bench_mps's own workload: its tasks decide
  EXPECT_FALSE(j.at("predicted").empty());
  EXPECT_FALSE(j.at("checks").empty());
  EXPECT_NE(j.at("recommendation").at("verdict"), "none");
  EXPECT_EQ(j.at("ladder_end"), "every rung ran (N up to 4)");
  const std::string md = read_text(out() / "advice.md");
  EXPECT_NE(md.find("## Predicted and measured"), std::string::npos) << md;
  EXPECT_NE(md.find("## Both bases"), std::string::npos) << md;
  EXPECT_NE(md.find("| per task (x alone) | per whole run (x alone) |"), std::string::npos) << md;
  EXPECT_NE(md.find(j.at("recommendation").at("headline").get<std::string>()), std::string::npos);
  EXPECT_NE(r.err.find("[3/5] ladder N=4"), std::string::npos) << r.err;  // progress
  EXPECT_TRUE(fs::exists(out() / "sweeps" / "ladder-4" / "summary.csv"));
  // One copy alone and the X-ray run once; every rung twice per mode (its worker sets).
  EXPECT_EQ(read_summary(out() / "sweeps" / "alone" / "summary.csv").size(), 1u);
  EXPECT_EQ(read_summary(out() / "sweeps" / "ladder-4" / "summary.csv").size(), 2u * kSetsPerRung);
  // Issue 42 item 4: one copy alone again after the ladder, one set per mode; the N=1 cells hold it last.
  const std::vector<SummaryRecord> last = read_summary(out() / "sweeps" / kAloneLastFolder / "summary.csv");
  ASSERT_EQ(last.size(), 2u);
  for (const SummaryRecord& row : last) EXPECT_EQ(row.procs, 1);
  // Each N=1 cell: its ladder sets, the one again after the ladder, and any more sets a close interval bought (on
  // a loaded machine the stand-in's spread can ask for them: 9 and 4 sets in one CI run).
  std::size_t alone_ts_sets = 0;
  for (const auto& c : j.at("ladder"))
    if (c.at("procs") == 1) {
      EXPECT_GE(c.at("sets").size(), kSetsPerRung + 1u) << c;
      if (c.at("mode") == "timeslice") alone_ts_sets = c.at("sets").size();
    }
  const nlohmann::json& again = j.at("alone_last");
  EXPECT_EQ(again.at("ran"), true) << again;
  EXPECT_EQ(again.at("left_out"), "") << again;
  for (const char* mode : {"timeslice", "mps"}) {
    ASSERT_TRUE(again.at("drift").at(mode).is_number()) << again;
    EXPECT_GT(again.at("drift").at(mode).get<double>(), 0.2) << again;
    EXPECT_LT(again.at("drift").at(mode).get<double>(), 5) << again;
  }
  EXPECT_NE(md.find("One copy alone again after the ladder (`sweeps/alone-last`"), std::string::npos) << md;
  EXPECT_NE(md.find("over all " + std::to_string(alone_ts_sets) + " of its time-sliced worker sets"), std::string::npos)
      << md;
  EXPECT_NE(r.err.find("[4/5] one copy alone again, time-sliced and MPS"), std::string::npos) << r.err;
  // Redone, the folder gives the same advice: the last sets are read back where advise read them.
  const std::string json_before = read_text(out() / "advice.json"), md_before = read_text(out() / "advice.md");
  const auto redo = run_program(bench_mps_exe(), {"advise", "--redo", out().string()}, {}, 120);
  ASSERT_EQ(redo.exit_code, 0) << redo.err;
  EXPECT_EQ(read_text(out() / "advice.json"), json_before);
  EXPECT_EQ(read_text(out() / "advice.md"), md_before);
}

TEST_F(Advise, AProgramThatNeverTouchesCudaIsNotPlacedButTheLadderStillAnswers) {
  const auto r = advise({"--command", "sleep 0.2", "--max-procs", "4", "--budget", "200"});
  // Never a CUDA program, never proven an MPS client: no verdict about MPS (issue 35), exit 1 as for failed runs.
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("Can't say whether MPS helps: no run under MPS beside another copy ended ok (N=2: mps_unproven"),
            std::string::npos)
      << r.out;
  const nlohmann::json j = advice();
  EXPECT_NE(j.at("alone").at("problem").get<std::string>().find("no GPU profile"), std::string::npos) << j.at("alone");
  EXPECT_TRUE(j.at("predicted").empty());
  EXPECT_EQ(j.at("alone").at("unit"), "run");
  EXPECT_FALSE(j.at("ladder").empty());
  EXPECT_NE(read_text(out() / "advice.md").find("Not placed on the map"), std::string::npos);
  // Unmeasured is said alike in both files: null in advice.json, "-" in advice.md, never an invented 0.
  for (const char* key : {"burst_ms", "step_ms", "kernel_ms", "footprint"})
    EXPECT_TRUE(j.at("alone").at(key).is_null()) << key << ": " << j.at("alone");
  const std::string md = read_text(out() / "advice.md");
  for (const char* row :
       {"| burst | - |", "| step (burst to burst) | - |", "| kernel time per step | - |", "| footprint | - |"})
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
}

// A command that fails alone is not run N times over: the ladder and the alone-last sets, which run the same
// command, are not started (they were, each failing the same way), and the advice says why in one headline.
TEST_F(Advise, ACommandThatFailsAloneStartsNoLadder) {
  const auto r = advise({"--command", "exit 3", "--max-procs", "4", "--budget", "200"});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("The ladder stopped early (one copy alone failed (exec_failed: worker 0: exited with code 3); "
                       "the ladder, which runs the same command, was not started): No advice: no rung of the "
                       "ladder ran."),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(advice().at("ladder").empty());
  EXPECT_FALSE(fs::exists(out() / "sweeps" / "ladder-1")) << "no rung";
  EXPECT_FALSE(fs::exists(out() / "sweeps" / "alone-last"));
}

// A paced server (--exec-metric-kind latency): its throughput is the requests it served per second, N copies N times
// one's, however short its latency; with its latency read as a step time each copy would "serve" 500 a second.
TEST_F(Advise, APacedServersThroughputIsTheRateItServedNotOneOverItsLatency) {
  const auto r = advise({"--command", kPacedStandIn, "--max-procs", "2", "--budget", "200", "--", "--exec-metric",
                         "latency_ms=([0-9.]+)", "--exec-metric-kind", "latency"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const nlohmann::json j = advice();
  ASSERT_EQ(j.at("ladder").size(), 4u) << j.at("ladder");  // N = 1, 2 in two modes
  for (const auto& c : j.at("ladder")) {
    ASSERT_TRUE(c.at("ok").get<bool>()) << c;
    // Its copies' lines were checked for overlap (runs.csv's span of them) and met: every set co-run.
    EXPECT_EQ(c.at("co_run_sets"), c.at("sets").size()) << c;
    for (const auto& s : c.at("sets")) {
      EXPECT_TRUE(s.at("co_run").get<bool>()) << s;
      EXPECT_EQ(s.at("unit_ms").get<double>(), 2.0) << s;  // the latency it printed
      EXPECT_GT(s.at("per_s").get<double>(), 5.0 * c.at("procs").get<int>()) << c;
      EXPECT_LT(s.at("per_s").get<double>(), 51.0 * c.at("procs").get<int>()) << c;
    }
  }
  for (const auto& c : j.at("ladder"))
    if (c.at("procs") == 2) {
      // Two copies serve more than one: their rates add (each copy's alone would be ~1.0). Not "about twice": the
      // stand-in forks a `sleep` per request, and on a loaded 2-core CI host two copies served 1.31x one's (the
      // fresh-clone CI at 7406f0d, results/2026-12-06-ci).
      EXPECT_GT(c.at("throughput").get<double>(), 1.2) << c;
    }
  // Held before its own clock starts, at its first kernel launch (the plan of results/2026-12-03-advise-lease4):
  // held later, a copy owes the requests that fell due while it was held.
  const nlohmann::json gate =
      nlohmann::json::parse(read_text(out() / "sweeps" / "ladder-2" / "meta.json")).at("exec_gate");
  EXPECT_EQ(gate.at("asked"), "first-kernel") << gate;
  // A job of 2 s of one copy alone holds the requests it serves in 2 s (at most 100 on its clock of 20 ms), not 2 s
  // over its latency of 2 ms.
  const auto redo = run_program(bench_mps_exe(), {"advise", "--redo", out().string(), "--job-length", "2s"}, env, 120);
  ASSERT_EQ(redo.exit_code, r.exit_code) << redo.err;
  const nlohmann::json job = advice().at("jobs").back();
  ASSERT_EQ(job.at("length"), "2s") << job;
  EXPECT_GT(job.at("units").get<double>(), 10.0) << job;
  EXPECT_LE(job.at("units").get<double>(), 100.0) << job;
}

// A metric is N copies at once only where the copies printed together (MetricWindow, predict's rule): copy 0 prints
// its lines at once and the others a second later, so no N=2 set co-ran; per unit nothing stands in for them.
TEST_F(Advise, AMetricsSetsWhoseCopiesPrintedApartAreNotCoRun) {
  const std::string apart = kJoinFakeMps +
                            "[ \"$BENCH_MPS_WORKER_INDEX\" = 0 ] || sleep 1; "
                            "for i in $(seq 1 20); do sleep 0.02; echo latency_ms=2.0; done";
  const auto r = advise({"--command", apart, "--max-procs", "2", "--budget", "200", "--", "--exec-metric",
                         "latency_ms=([0-9.]+)", "--exec-metric-kind", "latency"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const nlohmann::json j = advice();
  int apart_cells = 0;
  for (const auto& c : j.at("ladder")) {
    if (c.at("procs") != 2) continue;
    ++apart_cells;
    EXPECT_EQ(c.at("co_run_sets"), 0) << c;
    for (const auto& s : c.at("sets")) {
      EXPECT_FALSE(s.at("co_run").get<bool>()) << s;
      EXPECT_TRUE(s.at("per_s").is_null()) << "no rate per unit stands in: " << s;
      EXPECT_NE(s.at("not_co_run").get<std::string>().find("the window in which all printed covered 0 %"),
                std::string::npos)
          << s;
    }
  }
  EXPECT_EQ(apart_cells, 2) << j.at("ladder");
  // advice.md shows those cells as not co-run, and per step the ladder cannot tell.
  const std::string md = read_text(out() / "advice.md");
  EXPECT_NE(md.find("| 2 | 2x | - | not co-run |"), std::string::npos) << md;
  EXPECT_NE(md.find("per step the ladder says: can't tell"), std::string::npos) << md;
}

// Copies that print together but too few lines inside their common window are not co-run either, and the set says
// which rule it missed: 3 lines a second apart each, copy 1 starting 0.2 s later (the window covers about 90 % of a
// copy's span, under 3 of its lines). Per step, advice.png draws those cells apart.
TEST_F(Advise, AMetricsSetWithTooFewLinesTogetherSaysSo) {
  const std::string few = kJoinFakeMps +
                          "[ \"$BENCH_MPS_WORKER_INDEX\" = 0 ] || sleep 0.2; "
                          "for i in 1 2 3; do echo latency_ms=2.0; [ $i = 3 ] || sleep 1; done";
  const auto r = advise({"--command", few, "--max-procs", "2", "--budget", "200", "--basis", "unit", "--",
                         "--exec-metric", "latency_ms=([0-9.]+)", "--exec-metric-kind", "latency"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const nlohmann::json j = advice();
  int cells = 0;
  for (const auto& c : j.at("ladder")) {
    if (c.at("procs") != 2) continue;
    ++cells;
    for (const auto& s : c.at("sets")) {
      EXPECT_FALSE(s.at("co_run").get<bool>()) << s;
      const std::string why = s.at("not_co_run").get<std::string>();
      EXPECT_NE(why.find("lines of one copy"), std::string::npos) << s;
      EXPECT_NE(why.find("under the 3 a co-run set needs"), std::string::npos) << s;
      EXPECT_EQ(why.find("covered"), std::string::npos) << "the coverage rule held: " << s;
    }
  }
  EXPECT_EQ(cells, 2) << j.at("ladder");
  // advice.png's data, per step as asked: N=2 is no point of either measured line, but a cell drawn apart as not co-run.
  const nlohmann::json plot = nlohmann::json::parse(read_text(out() / "plots" / "plot_data.json"));
  int measured = 0;
  for (const auto& line : plot.at("figures").at(0).at("lines")) {
    if (line.at("kind") != "measured") continue;
    ++measured;
    EXPECT_EQ(line.at("not_co_run"), nlohmann::json::array({2})) << line;
    for (const auto& n : line.at("n")) EXPECT_NE(n, 2) << line;
  }
  EXPECT_EQ(measured, 2) << plot;
}

// Lines that reach bench_mps in batches (a block-buffered stdout) time nothing: no rate is read from them, and the
// ladder says why and what to do.
TEST_F(Advise, APacedServerWhoseLinesComeInBatchesIsNotGivenARate) {
  const auto r = advise({"--command", kBufferedStandIn, "--max-procs", "2", "--budget", "200", "--", "--exec-metric",
                         "latency_ms=([0-9.]+)", "--exec-metric-kind", "latency"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const nlohmann::json j = advice();
  ASSERT_FALSE(j.at("ladder").empty());
  for (const auto& c : j.at("ladder")) {
    EXPECT_FALSE(c.at("ok").get<bool>()) << c;
    EXPECT_NE(c.at("problem").get<std::string>().find("came in batches"), std::string::npos) << c;
    EXPECT_NE(c.at("problem").get<std::string>().find("python3 -u"), std::string::npos) << c;
  }
}

TEST_F(Advise, AnUnknownWorkloadIsNamedInTheWordsOfItsOptionWithTheStandIn) {
  const auto r = advise({"--workload", "nosuch"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--workload: unknown workload 'nosuch' (known: spin, mlp,"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; cpu, a CPU stand-in that needs no GPU)"), std::string::npos) << r.err;
}

TEST_F(Advise, BadInputGetsOneLineAndExitTwoWithNothingWritten) {
  // The cpu workload needs no stand-in, so each line is refused for its own bad value.
  const std::vector<std::vector<std::string>> bad{
      {},                                           // nothing to run
      {"--workload", "cpu", "--command", "true"},   // both
      {"--workload", "cpu", "--", "--procs", "4"},  // advise's own option after --
      {"--workload", "cpu", "--", "--modes=mps"},
      {"--workload", "cpu", "--", "--settle", "1"},  // advise sets these too (issue 35)
      {"--workload", "cpu", "--", "--exec-warmups", "2"},
      {"--workload", "cpu", "--", "--exec-gate", "off"},  // a program's option: its hint is --command
      {"--workload", "cpu", "--ladder", "0,2"},
      {"--workload", "cpu", "--ladder", "1"},
      {"--workload", "cpu", "--max-procs", "1"},
      {"--workload", "cpu", "--budget", "5"},
      {"--workload", "cpu", "--slo-p99-ms", "-1"},
      {"--workload", "nosuch"},
      {"--workload", "cpu", "--", "--spin-us", "abc"},
      {"--command", "  "},
      {"--workload", "cpu", "--xray-from", "/nonexistent/folder"},
      {"--workload", "cpu", "--xray-from", ""},
      {"--workload", "cpu", "--xray-from", (fixtures_dir() / "results_h200_smoke").string()},  // a sweep, no X-ray
      {"--redo", ""},
      {"--workload", "cpu", "--budget", "nan"},
      {"--workload", "cpu", "--budget", "inf"},
      {"--workload", "cpu", "--budget", ""},
      {"--workload", "cpu", "--budget", "lots"},
      {"--workload", "cpu", "--budget", "1e9"},
      {"--workload", "cpu", "--slo-p99-ms", "nan"},
      {"--workload", "cpu", "--slo-p99-ms", "inf"},
      {"--workload", "cpu", "--slo-p99-ms", ""},
      {"--workload", "cpu", "--slo-p99-ms", "fast"},
      {"--workload", "cpu", "--max-procs", "1000"},
      {"--workload", "cpu", "--max-procs", "-4"},
      {"--workload", "cpu", "--max-procs", "ten"},
      {"--workload", "cpu", "--max-procs", ""},
      {"--workload", "cpu", "--ladder", ""},
      {"--workload", "cpu", "--ladder", "1,a"},
      {"--workload", "cpu", "--ladder", "1,2,2"},
      {"--workload", "cpu", "--ladder", "1,1000"},
      {"--workload", "cpu", "--ladder", "1,2,4", "--max-procs", "8"},  // the ladder's largest N is its --max-procs
      {"--workload", ""},
      {"--workload", "cpu", "--device", "gpu-x"},
      {"--workload", "cpu", "--check-metric", "loss ([0-9.]+)"},  // a program's output: --command only
      {"--command", "true", "--check-tolerance", "2"},            // a tolerance without its check
      {"--command", "true", "--check-metric", "loss [0-9.]+"},    // no capture group
      {"--command", "true", "--check-metric", "loss ([0-9.]+)", "--check-tolerance", "-1"},
      {"--command", "true", "--check-metric", "loss ([0-9.]+)", "--check-tolerance", "nan"},
      {"--command", "true", "--check-metric", "loss ([0-9.]+)", "--check-tolerance", "inf"},
      {"--command", "true", "--check-metric", "loss ([0-9.]+)", "--check-tolerance", ""},
      {"--command", "true", "--check-metric", "loss ([0-9.]+)", "--check-tolerance", "1e9"},
      {"--command", "true", "--check-metric", ""},
      {"--command", "true", "--basis", ""},
      {"--command", "true", "--basis", "weekly"},
      {"--command", "true", "--slo-p99-ms", "50"},  // a step's p99 needs the program's --exec-metric
      {"--command", "true", "--", "--exec-metric", "x=([0-9]+)", "--exec-metric-kind", "nan"},  // step or latency
      {"--command", "true", "--", "--exec-metric-kind", "latency"},  // says what a metric it was not given reads
      {"--workload", "cpu", "--beside", "nosuch"},                   // --beside: bench_mps's workloads only
      {"--workload", "cpu", "--beside", "cpu", "--ladder", "1,2"},   // a pair has no ladder
      {"--workload", "cpu", "--beside", ""},
      {"--command", "true", "--job-length", "0"},
      {"--command", "true", "--job-length", "-1"},
      {"--command", "true", "--job-length", ""},
      {"--command", "true", "--job-length", "nan"},
      {"--command", "true", "--job-length", "inf"},
      {"--command", "true", "--job-length", "garbage"},
      {"--command", "true", "--job-length", "99999999999x"},
      {"--command", "true", "--job-length", "1e12"},
      {"--command", "true", "--job-length", "10 steps"},
      {"--command", "true", "--job-length", "0x10"},
      {"--command", "true", "--job-length", "1.5"},
      {"--command", "true", "--job-length", "1e9h"},
      {"--command", "true", "--job-length", "1e-300s"},
      {"--workload", "cpu", "--beside", "cpu", "--job-length", "10x"},  // a pair has no ladder to stretch
  };
  for (const auto& a : bad) {
    const auto r = advise(a, 60);
    const std::string what = nlohmann::json(a).dump();
    EXPECT_EQ(r.exit_code, 2) << what << " " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << " " << r.err;
    EXPECT_FALSE(fs::exists(out())) << what;
    // Options just typed are refused in their own words, not as a stored command line read back (that is redo's).
    EXPECT_EQ(r.err.find("stored command line"), std::string::npos) << what << " " << r.err;
    if (a.size() == 5 && a[3] == "--exec-gate") {  // advise sets --workloads: it does not ask for it
      EXPECT_NE(r.err.find("advise --workload cpu runs none of your programs; give --command"), std::string::npos)
          << r.err;
      EXPECT_EQ(r.err.find("--workloads exec"), std::string::npos) << r.err;
    }
    if (a.size() == 4 && a[3] == "loss [0-9.]+") {  // refused in the words of the option typed
      EXPECT_NE(r.err.find("--check-metric: "), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("--exec-check"), std::string::npos) << r.err;
    }
  }
}

TEST_F(Advise, RedoWritesACommittedFoldersAdviceAgainAsCommitted) {
  // Every committed advise folder (each advice.json under results/): what advise writes today from the runs it
  // recorded is what is committed, words and numbers. Among them: the simulator's client; the zoo's of 2026-12-03, a
  // program timed per step from its profiles (units.csv per child sweep), cuda-graphs' thread limit stopped by the
  // budget (its folder interrupted: not read, as when run); gemm gated after its warm-up, with sets added to decide;
  // paced-infer timed by its requests served (--exec-metric-kind latency); batched-infer and wlm-transformer without
  // their ladders' profiles (redo reads the alone run's and the units.csv the device wrote); wlm-lstm, gemm and membw
  // with one copy alone again after the ladder (sweeps/alone-last); amp-train, whose second limit the budget never
  // started (no folder: said as advise said it); the one-copy verdicts of membw and gemm.
  std::vector<std::string> subjects;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "results"))
    if (e.path().filename() == "advice.json")
      subjects.push_back(e.path().parent_path().lexically_relative(source_dir() / "results").generic_string());
  std::sort(subjects.begin(), subjects.end());
  ASSERT_GE(subjects.size(), 67u) << "the committed advise folders were not found under results/";
  for (const std::string& subject : subjects) {
    const fs::path committed = source_dir() / "results" / subject;
    const fs::path copy = tmp / "redo" / subject;
    fs::create_directories(copy.parent_path());
    fs::copy(committed, copy, fs::copy_options::recursive);
    fs::remove(copy / "advice.md");
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
    ASSERT_EQ(r.exit_code, 0) << subject << " " << r.err;
    EXPECT_EQ(read_text(copy / "advice.md"), read_text(committed / "advice.md")) << subject;
    EXPECT_EQ(read_text(copy / "advice.json"), read_text(committed / "advice.json")) << subject;
  }
}

// A pair whose sweep did not run to its end: --redo keeps "No advice" and exit 1 (it said an answer from what the
// stopped sweep left), with both names.
TEST_F(Advise, RedoOfAPairWhoseSweepFailedKeepsNoAdvice) {
  const fs::path committed = source_dir() / "results/2026-11-27-beside/lease-e/infer-beside-mlp";
  const fs::path copy = copy_committed("2026-11-27-beside/lease-e/infer-beside-mlp", "pair");
  nlohmann::json j = nlohmann::json::parse(read_text(copy / "beside.json"));
  const std::string a = j["beside"]["a"], b = j["beside"]["b"];
  j["beside"]["headline"] = "No advice: the pair's sweep failed (stopped when the time budget ran out).";
  write_text(copy / "beside.json", j.dump(2));
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("No advice: the pair's sweep failed (stopped when the time budget ran out).", 0), 0u) << r.out;
  const std::string md = read_text(copy / "beside.md");
  EXPECT_EQ(md.rfind("# " + a + " beside " + b + "\n", 0), 0u) << md.substr(0, 200);
}

// A thread limit the budget never started has no folder: --redo says it did not run, as advise did (it once left
// it out); one advice.json says ran, whose folder is gone, is refused, naming it, and nothing is written.
TEST_F(Advise, RedoKeepsALimitNeverStartedAndRefusesOneThatRanAndIsGone) {
  const fs::path committed = source_dir() / "results/2026-12-06-advise-lease14/amp-train";
  ASSERT_FALSE(fs::exists(committed / "sweeps" / "limits-2x")) << "mps:50 never started";
  const fs::path copy = tmp / "redo" / "amp-train";
  fs::create_directories(copy.parent_path());
  fs::copy(committed, copy, fs::copy_options::recursive);
  auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_text(copy / "advice.md")
                .find("- mps:50 at N=4 did not run: the time budget would not hold its sweep (about 31 s, 30 s left)."),
            std::string::npos);
  fs::remove_all(copy / "sweeps" / "limits");  // mps:auto ran there
  const std::string before = read_text(copy / "advice.md");
  r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("limits: no such folder, though advice.json says mps:auto ran there"), std::string::npos)
      << r.err;
  EXPECT_TRUE(read_text(copy / "advice.md") == before) << "nothing written";
}

// A folder whose sweeps/alone-last advice.json says ran, gone: refused (every ratio's anchor would lose a draw).
TEST_F(Advise, RedoRefusesAFolderThatLostItsLastAloneRun) {
  const fs::path committed = source_dir() / "results/2026-12-03-advise-lease8/gemm";
  const fs::path copy = copy_committed("2026-12-03-advise-lease8/gemm", "gemm");
  fs::remove_all(copy / "sweeps" / "alone-last");
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("alone-last: no such folder, though advice.json says one copy alone ran again"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(copy / "advice.md"), read_text(committed / "advice.md"));
}

// A settling round's folder gone: the verdict would be decided again on fewer sets, silently; refused.
TEST_F(Advise, RedoRefusesAFolderThatLostASettlingSet) {
  const fs::path committed = source_dir() / "results/2026-11-27-advise-intervals/lease-e/client";
  const fs::path copy = copy_committed("2026-11-27-advise-intervals/lease-e/client", "client");
  ASSERT_TRUE(fs::is_directory(copy / "sweeps" / "more-6-mps-n4"));
  fs::remove_all(copy / "sweeps" / "more-6-mps-n4");
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("sweeps: holds 7 worker set(s) of mps N=4, though advice.json says it had 8"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(read_text(copy / "advice.md"), read_text(committed / "advice.md"));
}

// A redo whose figure cannot be drawn (no matplotlib) says why in advice.md and leaves no earlier figure beside it:
// advice.png would show other numbers than those written now.
TEST_F(Advise, RedoWhoseFigureCannotBeDrawnLeavesNoEarlierFigure) {
  const fs::path committed = source_dir() / "results/2026-11-27-advise-intervals/lease-e/client";
  const fs::path copy = copy_committed("2026-11-27-advise-intervals/lease-e/client", "client");
  ASSERT_TRUE(fs::exists(copy / "plots" / "advice.png"));
  Env no_plots = env;
  no_plots.set.emplace_back("BENCH_MPS_PYTHON", "/bin/false");
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string(), "--job-length", "2h"}, no_plots, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(copy / "plots" / "advice.png"));
  const std::string md = read_text(copy / "advice.md");
  EXPECT_EQ(md.find("](plots/advice.png)"), std::string::npos) << md;
  EXPECT_NE(md.find("BENCH_MPS_PYTHON=/bin/false cannot import matplotlib"), std::string::npos) << md;
  EXPECT_EQ(nlohmann::json::parse(read_text(copy / "advice.json"))["advise"]["job_length"], "2h");
}

// Issue 42: --job-length on a committed folder: the advice for that job too, in the headline, advice.md and
// advice.json; kept for the next redo; refused for a side-by-side folder.
TEST_F(Advise, RedoWithAJobLengthAdvisesThatJobToo) {
  const fs::path committed = source_dir() / "results/2026-11-27-advise-intervals/lease-e/client";
  const fs::path copy = copy_committed("2026-11-27-advise-intervals/lease-e/client", "client");
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string(), "--job-length", "2h"}, env, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string headline = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(headline.find(" For a job of 2h of one copy alone ("), std::string::npos) << headline;
  const nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
  EXPECT_EQ(j["advise"]["job_length"], "2h");
  ASSERT_EQ(j["jobs"].size(), 4u);  // the command as given, 10x, 100x, and the job asked for
  EXPECT_EQ(j["jobs"][3]["length"], "2h");
  EXPECT_GT(j["jobs"][3]["units"].get<double>(), j["jobs"][0]["units"].get<double>());
  const std::string md = read_text(copy / "advice.md");
  EXPECT_NE(md.find("## A longer job"), std::string::npos);
  EXPECT_NE(md.find("- For a job of 2h of one copy alone ("), std::string::npos) << md;
  // The next redo keeps the length asked for.
  const auto again = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(copy / "advice.md"), md);
  // Bad lengths and a pair: one line, exit 2, the folder untouched.
  for (const char* bad : {"0", "-1", "10y", "", "nan"}) {
    const auto b = run_program(bench_mps_exe(), {"advise", "--redo", copy.string(), "--job-length", bad}, env, 60);
    EXPECT_EQ(b.exit_code, 2) << bad << " " << b.err;
    EXPECT_NE(b.err.find("--job-length"), std::string::npos) << b.err;
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  }
  EXPECT_EQ(read_text(copy / "advice.md"), md);
}

// Issue 44: how the ladder ended is a kind stored beside its words: rewording the words changes nothing a redo
// decides; a kind no advise writes is refused; a folder stored before the kind reads it from its words once.
TEST_F(Advise, HowTheLadderEndedIsAKindNotItsWords) {
  const fs::path committed = source_dir() / "results/2026-11-27-advise-intervals/lease-c/client";
  const fs::path copy = tmp / "redo" / "client";
  fs::create_directories(copy.parent_path());
  const auto redo_with = [&](const std::function<void(nlohmann::json&)>& change) {
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_text(committed / "advice.json"));
    change(j);
    write_text(copy / "advice.json", j.dump(2));
    return run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  };
  ASSERT_EQ(nlohmann::json::parse(read_text(committed / "advice.json"))["ladder_end_kind"], "budget");
  const auto reworded = redo_with([](nlohmann::json& j) { j["ladder_end"] = "N=4 did not fit what was left"; });
  ASSERT_EQ(reworded.exit_code, 0) << reworded.err;
  EXPECT_EQ(reworded.out.rfind("The ladder stopped early (N=4 did not fit what was left): ", 0), 0u) << reworded.out;
  const auto legacy = redo_with([](nlohmann::json& j) { j.erase("ladder_end_kind"); });
  ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
  EXPECT_EQ(read_text(copy / "advice.md"), read_text(committed / "advice.md"));
  EXPECT_EQ(nlohmann::json::parse(read_text(copy / "advice.json"))["ladder_end_kind"], "budget");
  const auto bad = redo_with([](nlohmann::json& j) { j["ladder_end_kind"] = "fell over"; });
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("ladder_end_kind 'fell over' is no way a ladder ends"), std::string::npos) << bad.err;
}

// Issue 35: stored state checked like a results folder's: numbers out of range refused, naming the file.
TEST_F(Advise, RedoRefusesAStoredLadderOrLargestNOutOfRange) {
  const fs::path committed = source_dir() / "results/2026-11-26-advise/lease-a/mlp";
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, nlohmann::json>>{{"max_procs", 2e9},
                                                           {"max_procs", 1},
                                                           {"max_procs", "ten"},
                                                           {"ladder", nlohmann::json::array({1, 2, -5, 1e12})},
                                                           {"ladder", nlohmann::json::array({1, 2, 2})},
                                                           {"ladder", nlohmann::json::array()},
                                                           {"ladder", 4},
                                                           {"slo_p99_ms", -3},
                                                           {"slo_p99_ms", 1e300},
                                                           {"phase_draws", -1},
                                                           {"phase_draws", 1e6},
                                                           {"phase_draws", "many"},
                                                           {"basis", "sideways"},
                                                           {"basis", 5},
                                                           {"job_length", "garbage"},
                                                           {"job_length", 5},
                                                           {"unit_from_profiles", "yes"},
                                                           {"unit_from_profiles", 1}}) {
    const fs::path copy = tmp / "damaged";
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
    j["advise"][key] = value;
    write_text(copy / "advice.json", j.dump(2));
    const std::string before = read_text(copy / "advice.md");
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
    EXPECT_EQ(r.exit_code, 2) << key << "=" << value.dump() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("advice.json: advise." + key), std::string::npos) << r.err;
    EXPECT_EQ(read_text(copy / "advice.md"), before) << "nothing written";
  }
  // Outside advise's settings: the folder's format and the seconds it took.
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"advice_format_version", 2.5}, {"seconds", -5}, {"seconds", "long"}}) {
    const fs::path copy = tmp / "damaged";
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
    j[key] = value;
    write_text(copy / "advice.json", j.dump(2));
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
    EXPECT_EQ(r.exit_code, 2) << key << "=" << value.dump() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("advice.json: " + key), std::string::npos) << r.err;
  }
  // Read only by advice.md and advice.json as written again (when it started, the GPU's name): refused before
  // anything is written, naming advice.json, not after the figure and advice.json were (a fuzzed redo found it).
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"started_utc", 5}, {"started_utc", nullptr}, {"gpu", {{"name", 7}}}}) {
    const fs::path copy = tmp / "damaged";
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    fs::remove_all(copy / "plots");
    nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
    j[key] = value;
    const std::string damaged = j.dump(2);
    write_text(copy / "advice.json", damaged);
    const std::string before = read_text(copy / "advice.md");
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
    EXPECT_EQ(r.exit_code, 2) << key << "=" << value.dump() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("advice.json: a value has the wrong type"), std::string::npos) << r.err;
    EXPECT_TRUE(read_text(copy / "advice.json") == damaged) << key << ": advice.json written";
    EXPECT_TRUE(read_text(copy / "advice.md") == before) << key << ": advice.md written";
    EXPECT_FALSE(fs::exists(copy / "plots")) << key << ": no figure drawn";
  }
  // A stored command line is named as such, in words of its own, not CLI11's or as if just typed.
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--help"}, "stored command line: holds --help, which is no part of a sweep"},
           {{"--workloads", "mlp", "--procs", "1000000"}, "stored command line: --procs"}}) {
    const fs::path copy = tmp / "damaged";
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
    j["advise"]["workload_args"] = args;
    write_text(copy / "advice.json", j.dump(2));
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
}

// A folder timed from its profiles: its units are read from each sweep's units.csv; one that lost them, or an alone
// run that no longer gives the step advice.json says it timed, is refused, naming the file, and nothing is written.
TEST_F(Advise, RedoRefusesAProfiledFolderThatLostItsUnits) {
  const fs::path committed = source_dir() / "results/2026-12-03-advise-profiled/mnist";
  for (const char* lost : {"alone", "ladder-2"}) {
    const fs::path copy = tmp / "lost";
    fs::remove_all(copy);
    fs::copy(committed, copy, fs::copy_options::recursive);
    fs::remove(copy / "sweeps" / lost / "units.csv");
    const std::string before = read_text(copy / "advice.md");
    const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
    EXPECT_EQ(r.exit_code, 2) << lost << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(std::string(lost) == "alone" ? "advice.json: advise.unit_from_profiles is true"
                                                      : "ladder-2/units.csv not found"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_text(copy / "advice.md"), before) << "nothing written";
  }
}

// Settling can run more rounds than kMaxSetsPerCell where the best cells change between rounds (the cap is per
// cell): a redo reads every round that ran. gemm on lease 3 ran one round (MPS N=2 and time-sliced N=1); copied into
// rounds 2 to 9, its cells hold 2 + 9 sets each.
TEST_F(Advise, RedoReadsEverySettlingRoundEvenPastTheCapOfOneCell) {
  const fs::path committed = source_dir() / "results/2026-12-03-advise-lease3/gemm";
  const fs::path copy = tmp / "rounds";
  fs::copy(committed, copy, fs::copy_options::recursive);
  constexpr int kRounds = kMaxSetsPerCell + 1;
  for (int round = 2; round <= kRounds; ++round)
    for (const char* cell : {"mps-n2", "timeslice-n1"})
      fs::copy(copy / "sweeps" / (std::string("more-1-") + cell),
               copy / "sweeps" / ("more-" + std::to_string(round) + "-" + cell), fs::copy_options::recursive);
  const auto r = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
  int seen = 0;
  for (const auto& c : j.at("ladder"))
    if ((c.at("mode") == "mps" && c.at("procs") == 2) || (c.at("mode") == "timeslice" && c.at("procs") == 1)) {
      EXPECT_EQ(c.at("sets").size(), static_cast<std::size_t>(kSetsPerRung + kRounds)) << c.at("mode");
      ++seen;
    }
  EXPECT_EQ(seen, 2);
}

TEST_F(Advise, RedoRefusesAFolderWithoutAdviceAndOtherOptions) {
  fs::create_directories(out());
  for (const auto& a :
       std::vector<std::vector<std::string>>{{"advise", "--redo", out().string()},
                                             {"advise", "--redo", (tmp / "nosuch").string()},
                                             {"advise", "--redo", out().string(), "--workload", "spin"},
                                             // options that shape a new ladder change nothing in a redo
                                             {"advise", "--redo", out().string(), "--budget", "100"},
                                             {"advise", "--redo", out().string(), "--max-procs", "4"},
                                             {"advise", "--redo", out().string(), "--basis", "sideways"}}) {
    const auto r = run_program(bench_mps_exe(), a, env, 60);
    EXPECT_EQ(r.exit_code, 2) << nlohmann::json(a).dump() << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const auto budget = run_program(bench_mps_exe(), {"advise", "--redo", out().string(), "--budget", "100"}, env, 60);
  EXPECT_NE(budget.err.find("--budget: --redo runs nothing"), std::string::npos) << budget.err;
  const auto ladder = run_program(bench_mps_exe(), {"advise", "--redo", out().string(), "--ladder", "1,2"}, env, 60);
  EXPECT_EQ(ladder.exit_code, 2) << ladder.err;
  EXPECT_NE(ladder.err.find("--ladder: --redo reads the rungs"), std::string::npos) << ladder.err;
  EXPECT_TRUE(fs::is_empty(out()));
}

// Issue 43, the second battery: a stored rung that lost its runs, and a stored scheduler no card has, are refused
// (the rung had vanished from the advice without a word; the scheduler replayed for hours).
TEST_F(Advise, RedoRefusesARungThatLostItsRunsAndASchedulerNoCardHas) {
  const fs::path committed = source_dir() / "results/2026-11-26-advise/lease-a/mlp";
  const fs::path copy = tmp / "damaged";
  fs::copy(committed, copy, fs::copy_options::recursive);
  const std::string summary = read_text(copy / "sweeps" / "ladder-2" / "summary.csv");
  write_text(copy / "sweeps" / "ladder-2" / "summary.csv", summary.substr(0, summary.find('\n') + 1));
  const std::string before = read_text(copy / "advice.md");
  const auto rung = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
  EXPECT_EQ(rung.exit_code, 2) << rung.err;
  EXPECT_NE(rung.err.find("holds no run of N=2, a rung advice.json says ran"), std::string::npos) << rung.err;
  EXPECT_EQ(read_text(copy / "advice.md"), before) << "nothing written";
  // The rung's folder gone altogether: the same refusal (a redo once read on without N=2 and rewrote the verdict).
  fs::remove_all(copy / "sweeps" / "ladder-2");
  const auto gone = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
  EXPECT_EQ(gone.exit_code, 2) << gone.err;
  EXPECT_EQ(std::count(gone.err.begin(), gone.err.end(), '\n'), 1) << gone.err;
  EXPECT_NE(gone.err.find("ladder-2/summary.csv: no such file, though advice.json says the ladder ran N=2"),
            std::string::npos)
      << gone.err;
  EXPECT_EQ(read_text(copy / "advice.md"), before) << "nothing written";
  fs::remove_all(copy);
  fs::copy(committed, copy, fs::copy_options::recursive);
  nlohmann::json j = nlohmann::json::parse(read_text(copy / "advice.json"));
  j["scheduler"]["slice_ms"] = 1e-9;
  write_text(copy / "advice.json", j.dump(2));
  const auto slice = run_program(bench_mps_exe(), {"advise", "--redo", copy.string()}, env, 60);
  EXPECT_EQ(slice.exit_code, 2) << slice.err;
  EXPECT_NE(slice.err.find("scheduler's slice 1e-09 ms is not a scheduler's"), std::string::npos) << slice.err;
}

TEST_F(Advise, SigkillOfAdviseMidLadderLeavesNoProcessWithinASecond) {
  BackgroundProgram p(bench_mps_exe(),
                      {"advise", "--cpu-stand-in", "--out", out().string(), "--workload", "cpu", "--ladder", "1,2,4,8",
                       "--", "--duration", "2"},
                      env);
  // Killed outright once the ladder's second rung has begun: its child sweep, workers and daemon go with it.
  ASSERT_TRUE(wait_until([&] { return fs::exists(out() / "sweeps" / "ladder-2"); }, 120));
  ::usleep(500'000);
  p.signal(SIGKILL);
  p.wait(10);
  const auto ours = [&] {  // every live process of this test's: its TMPDIR, inherited by whatever it started
    std::vector<std::string> left;
    for (const auto& [proc, value] : harness::live_processes_with_env("TMPDIR"))
      if (value == tmp.path().string()) left.push_back(std::to_string(proc.pid) + " " + proc.comm);
    return left;
  };
  EXPECT_TRUE(wait_until([&] { return ours().empty() && live_mps_process_count() == 0; }, 1.0))
      << "left after 1 s: " << ::testing::PrintToString(ours());
  EXPECT_TRUE(wait_until([&] { return ours().empty() && live_mps_process_count() == 0; }, 10.0));
}

TEST_F(Advise, CtrlCInTheLadderWritesWhatRanAndLeavesNoDaemon) {
  BackgroundProgram p(bench_mps_exe(),
                      {"advise", "--cpu-stand-in", "--out", out().string(), "--workload", "cpu", "--ladder", "1,2,4,8",
                       "--", "--duration", "1"},
                      env);
  // Stop it once the ladder's first rung is written and the second has begun.
  if (!wait_until([&] { return fs::exists(out() / "sweeps" / "ladder-2"); }, 120)) {
    p.signal(SIGINT);
    const auto r = p.wait(60);  // what it printed says where it stood
    FAIL() << "the ladder never reached N=2 in 120 s (exit " << r.exit_code << "):\n" << r.out << r.err;
  }
  p.signal(SIGINT);
  const auto r = p.wait(120);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  const nlohmann::json j = advice();
  EXPECT_EQ(j.at("status"), "interrupted");
  EXPECT_GE(j.at("ladder").size(), 2u);  // N=1 in both modes at least
  EXPECT_NE(r.out.find("advice: "), std::string::npos) << r.out;
  // Stopped at N=2: the headline says the ladder stopped early, and concludes nothing about a mode that did
  // not run beside another copy.
  const std::string headline = j.at("recommendation").at("headline").get<std::string>();
  EXPECT_EQ(headline.rfind("The ladder stopped early (", 0), 0u) << headline;
  EXPECT_NE(headline.find("stopped by a signal"), std::string::npos) << headline;
  EXPECT_NE(headline.find("Can't say whether MPS helps"), std::string::npos) << headline;
  EXPECT_EQ(j.at("ladder_end_kind"), "signal") << "a Ctrl-C is no failed sweep";
  // ... also when the folder is redone.
  const auto redo = run_program(bench_mps_exe(), {"advise", "--redo", out().string()}, env, 120);
  EXPECT_EQ(advice().at("recommendation").at("headline"), j.at("recommendation").at("headline")) << redo.err;
}

// Where the time kept for one copy alone after the ladder is more than is left, the words say so, and give the
// margin the skip is decided by (a review found "12 s left, 14 s of them kept" and "12 s left, about 6 s" as the
// reason a run was not started).
TEST_F(Advise, TheTimeKeptForOneCopyAloneAgainIsSaidAsDecided) {
  const auto r = advise({"--workload", "cpu", "--ladder", "1,2,4,8", "--budget", "30", "--", "--duration", "2"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const nlohmann::json j = advice();
  const std::string end = j.at("ladder_end").get<std::string>(),
                    skipped = j.at("alone_last").value("why_not", std::string());
  if (end.find("all of them kept") == std::string::npos) GTEST_SKIP() << "this machine left more than kept: " << end;
  EXPECT_EQ(end.find("s of them kept"), std::string::npos) << end;
  EXPECT_NE(skipped.find(" and the margin a sweep is given (1.5x and 5 s): "), std::string::npos) << skipped;
}

// Ctrl-C during the X-ray is a stop, not a failed step: a review found it recorded as "the X-ray's sweep failed",
// with the child sweep's own "continue with --resume .../sweeps/xray", which advise does not take.
TEST_F(Advise, CtrlCDuringTheXrayIsAStopNotAFailedSweep) {
  BackgroundProgram p(bench_mps_exe(),
                      {"advise", "--cpu-stand-in", "--out", out().string(), "--workload", "cpu", "--ladder", "1,2,4,8",
                       "--", "--duration", "1"},
                      env);
  ASSERT_TRUE(wait_until([&] { return fs::exists(out() / "sweeps" / "xray"); }, 60));
  p.signal(SIGINT);
  const auto r = p.wait(120);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  const nlohmann::json j = advice();
  EXPECT_EQ(j.at("ladder_end_kind"), "signal") << j.at("ladder_end");
  EXPECT_EQ(j.at("ladder_end"), "stopped by a signal (Interrupt) during the X-ray's sweep");
  EXPECT_EQ(read_text(out() / "advice.md").find("--resume"), std::string::npos);
}

// Issue 35: an MPS daemon that cannot start gives no verdict about MPS (it never ran), not "MPS buys nothing".
TEST_F(Advise, NoVerdictAboutMpsFromMpsRunsThatNeverHappened) {
  Env failing = env;
  failing.set.emplace_back("FAKE_MPS_FAIL_START", "1");
  std::vector<std::string> a{"advise", "--cpu-stand-in", "--out", out().string(), "--workload",
                             "cpu",    "--ladder",       "1,2",   "--",           "--duration",
                             "0.3"};
  const auto r = run_program(bench_mps_exe(), a, failing, 300);
  EXPECT_EQ(r.exit_code, 3) << "as the sweep whose daemon could not start: " << r.err << r.out;
  const nlohmann::json j = advice();
  EXPECT_EQ(j.at("recommendation").at("verdict"), "none");
  const std::string headline = j.at("recommendation").at("headline").get<std::string>();
  EXPECT_EQ(headline.rfind("The ladder stopped early (N=1's sweep stopped: MPS unavailable: ", 0), 0u) << headline;
  EXPECT_NE(headline.find("Can't say whether MPS helps: the ladder ran no rung under MPS beside another copy."),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("Time-sliced, "), std::string::npos) << headline;
  EXPECT_EQ(headline.find("MPS buys under"), std::string::npos) << headline;
}

TEST_F(Advise, AForeignDaemonIsRefusedBeforeAnythingIsWritten) {
  const ForeignDaemon foreign(env, tmp.path());  // quit at the end, however the test ends
  ASSERT_TRUE(foreign.running());
  const auto r = advise({"--workload", "cpu"}, 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("another MPS daemon is running"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(Advise, AFolderThatAlreadyHoldsAdviceIsNotOverwritten) {
  fs::create_directories(out());
  write_text(out() / "advice.json", "{}");
  const auto r = advise({"--workload", "cpu"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("already holds advice"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(out() / "advice.json"), "{}");
}

}  // namespace
}  // namespace bench_mps::testing
