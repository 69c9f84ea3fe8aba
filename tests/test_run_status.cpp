// Run statuses as words at the edges only: the parse/name pair, the results files' status cells and
// the worker protocol's ERROR line, which carries the status as a field of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/common/run_status.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/workers/worker_protocol.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::harness {
namespace {

const std::vector<std::string> kWords{"ok",
                                      "error",
                                      "crashed",
                                      "timeout",
                                      "aborted",
                                      "interrupted",
                                      "mode_mismatch",
                                      "mps_error",
                                      "mps_mem_limit",
                                      "mps_unproven",
                                      "fault_not_triggered",
                                      "exec_not_found",
                                      "exec_failed",
                                      "exec_timeout",
                                      "exec_left_children"};

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

TEST(RunStatus, TheErrorLineCarriesTheStatusBesideTheMessage) {
  EXPECT_EQ(format_error("exited with code 3: the last words", RunStatus::exec_failed),
            "ERROR exec_failed exited with code 3: the last words");
  EXPECT_EQ(format_error("cudaMalloc failed"), "ERROR error cudaMalloc failed");

  const WorkerMessage exec = parse_worker_line("ERROR exec_failed exited with code 3: the last words");
  ASSERT_EQ(exec.kind, WorkerMessage::Kind::error);
  EXPECT_EQ(exec.status, RunStatus::exec_failed);
  EXPECT_EQ(exec.text, "exited with code 3: the last words");

  // A message whose words look like a status's keep it only where the status field names it.
  const WorkerMessage plain = parse_worker_line(format_error("timeout: the device hung"));
  EXPECT_EQ(plain.status, RunStatus::error);
  EXPECT_EQ(plain.text, "timeout: the device hung");
}

TEST(RunStatus, AnErrorLineWithoutAStatusReadsAsErrorWithItsWholeText) {
  // An older worker's line: "ERROR <message>".
  const WorkerMessage old = parse_worker_line("ERROR cudaMalloc failed: out of memory");
  ASSERT_EQ(old.kind, WorkerMessage::Kind::error);
  EXPECT_EQ(old.status, RunStatus::error);
  EXPECT_EQ(old.text, "cudaMalloc failed: out of memory");
  // A worker may not claim success in an ERROR line.
  const WorkerMessage claims_ok = parse_worker_line("ERROR ok all is well");
  EXPECT_EQ(claims_ok.status, RunStatus::error);
  EXPECT_EQ(claims_ok.text, "ok all is well");
  for (const char* empty : {"ERROR", "ERROR ", "ERROR error", "ERROR exec_failed "}) {
    const WorkerMessage m = parse_worker_line(empty);
    ASSERT_EQ(m.kind, WorkerMessage::Kind::error) << empty;
    EXPECT_EQ(m.text, "worker reported an error without a message") << empty;
  }
  EXPECT_EQ(parse_worker_line("ERROR exec_failed ").status, RunStatus::exec_failed);
}

}  // namespace
}  // namespace bench_mps::harness
