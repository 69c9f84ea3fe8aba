// meta.json through one typed SweepMeta: every committed results folder reads and writes back the
// same file, null and absent stay what they were, and a value of another type is kept, not lost.
#include <gtest/gtest.h>

#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/sweep_meta.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

TEST(SweepMeta, EveryCommittedMetaJsonWritesBackTheSameFile) {  // results/ and the test fixtures, damaged ones too
  int files = 0;
  for (const fs::path& root : {source_dir() / "results", fixtures_dir()}) {
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().filename() != "meta.json") continue;
      const nlohmann::json text = nlohmann::json::parse(read_text(entry.path()));
      EXPECT_EQ(nlohmann::json(text.get<SweepMeta>()).dump(2), text.dump(2)) << entry.path();
      ++files;
    }
  }
  EXPECT_GT(files, 50);
  const SweepMeta read = read_sweep_meta(source_dir() / "results" / "2026-11-22-h100-80gb-hbm3");
  EXPECT_EQ(nlohmann::json(read),
            nlohmann::json::parse(read_text(source_dir() / "results" / "2026-11-22-h100-80gb-hbm3" / "meta.json")));
}

TEST(SweepMeta, TypedMembersHoldWhatTheFileSays) {
  const SweepMeta meta = read_sweep_meta(fixtures_dir() / "compare" / "base");
  ASSERT_TRUE(meta.status && meta.sweep && meta.sweep->workloads && meta.runs_recorded);
  EXPECT_EQ(*meta.status, sweep_status_name(SweepStatus::complete));
  EXPECT_EQ(*meta.runs_recorded, 60);
  EXPECT_EQ(meta_scenario(meta), Scenario::sweep);
  EXPECT_TRUE(meta.other.contains("tool")) << "a descriptive section stays as JSON";
}

TEST(SweepMeta, NullAbsentAndOtherTypesStayAsTheyWere) {
  const nlohmann::json j = {{"schema_version", 1},
                            {"finished_utc", nullptr},    // null while running
                            {"runs_recorded", "twelve"},  // another type: kept, not read
                            {"gpu", {{"sm_count", nullptr}, {"name", "X"}}},
                            {"sweep", {{"scenario", 5}}},
                            {"from_a_newer_version", {1, 2}}};
  const SweepMeta meta = j.get<SweepMeta>();
  EXPECT_FALSE(meta.finished_utc);
  EXPECT_FALSE(meta.runs_recorded);
  EXPECT_FALSE(meta.stop_reason);
  ASSERT_TRUE(meta.gpu);
  EXPECT_FALSE(meta.gpu->sm_count);
  EXPECT_EQ(nlohmann::json(meta), j);
  EXPECT_THROW(meta_scenario(meta), nlohmann::json::exception) << "a number is no scenario word";

  SweepMeta set = meta;
  set.finished_utc = "2026-11-26T00:00:00Z";
  set.gpu->sm_count = 132;
  set.set_status(SweepStatus::interrupted);
  const nlohmann::json written = set;
  EXPECT_EQ(written["finished_utc"], "2026-11-26T00:00:00Z");
  EXPECT_EQ(written["gpu"]["sm_count"], 132);
  EXPECT_EQ(written["gpu"]["name"], "X");
  EXPECT_EQ(written["status"], "interrupted");
  EXPECT_FALSE(written.contains("stop_reason"));
}

TEST(SweepMeta, AServerPidGoesToItsMode) {
  SweepMeta meta = nlohmann::json{{"mps", {{"modes", {{{"name", "mps"}, {"mps", true}}}}}}}.get<SweepMeta>();
  ASSERT_TRUE(meta.mps && meta.mps->modes);
  meta.mps->modes->front().server_pids = std::vector<long>{42};
  EXPECT_EQ(nlohmann::json(meta)["mps"]["modes"][0],
            (nlohmann::json{{"name", "mps"}, {"mps", true}, {"server_pids", {42}}}));
}

}  // namespace
}  // namespace bench_mps::testing
