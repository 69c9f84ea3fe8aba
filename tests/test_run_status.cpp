// Run statuses as words at the edges only: the parse/name pair and the results files' status cells.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/common/run_status.hpp"
#include "harness/results/results_schema.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::harness {
namespace {

const std::vector<std::string> kWords{"ok",           "error",          "crashed",          "timeout",
                                      "aborted",      "interrupted",    "mode_mismatch",    "mps_error",
                                      "mps_mem_limit", "mps_unproven",  "fault_not_triggered", "exec_not_found",
                                      "exec_failed",  "exec_timeout",   "exec_left_children"};

TEST(RunStatus, EveryWordParsesToTheStatusThatNamesIt) {
  for (const std::string& word : kWords) {
    const std::optional<RunStatus> s = parse_run_status(word);
    ASSERT_TRUE(s.has_value()) << word;
    EXPECT_EQ(status_name(*s), word);
    EXPECT_EQ(to_string(*s), word);
  }
  for (const char* other : {"", "OK", "okay", "fine", "complete", "running", "failed", "exec_", "ok "})
    EXPECT_FALSE(parse_run_status(other).has_value()) << other;
}

TEST(RunStatus, AResultsCellHoldsAKnownWordOrIsRefused) {
  const std::string at = "summary.csv line 2 status";
  const std::string ok = "exec_timeout", empty, unknown = "okay";
  const Cell known{ok, at}, blank{empty, at}, other{unknown, at};
  EXPECT_EQ(known.status(), RunStatus::exec_timeout);
  EXPECT_THROW(blank.status(), ResultsError);
  try {
    (void)other.status();
    ADD_FAILURE() << "an unknown status was accepted";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()), "summary.csv line 2 status: unknown status 'okay'");
  }
}

}  // namespace
}  // namespace bench_mps::harness
