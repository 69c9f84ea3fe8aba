// The results reader against a few thousand deterministic random mutations of real results files:
// the plain-ctest companion of the libFuzzer target in tests/fuzz. Every input must give rows or a
// ResultsError; any other exception is a failure (and a crash ends the program, failing the test).
// The generator is seeded, so a failing iteration number reproduces exactly.
#include <gtest/gtest.h>

#include <random>
#include <typeinfo>

#include "harness/results/results_reader.hpp"
#include "tests/test_support.hpp"

namespace bench_mps::testing {
namespace {

using namespace harness;

class Mutator {
 public:
  explicit Mutator(std::uint32_t seed) : rng_(seed) {}

  std::string mutate(std::string text) {
    const std::size_t steps = 1 + pick(4);
    for (std::size_t s = 0; s < steps; ++s) {
      const std::size_t at = pick(text.size() + 1);
      switch (pick(8)) {
        case 0:  // flip one bit
          if (at < text.size()) text[at] = static_cast<char>(text[at] ^ (1 << pick(8)));
          break;
        case 1:  // insert a character that means something to a CSV or number parser
          text.insert(at, 1, kSpecial[pick(sizeof kSpecial)]);
          break;
        case 2:  // delete a short range
          text.erase(std::min(at, text.size()), 1 + pick(16));
          break;
        case 3: {  // copy a range elsewhere (duplicated cells, columns, lines)
          const std::size_t from = pick(text.size() + 1);
          text.insert(at, text.substr(std::min(from, text.size()), 1 + pick(64)));
          break;
        }
        case 4:  // truncate, as a writer dying mid-line would
          text.resize(at);
          break;
        case 5:  // any byte
          if (at < text.size()) text[at] = static_cast<char>(pick(256));
          break;
        case 6:  // a troublesome token
          text.insert(at, kTokens[pick(sizeof kTokens / sizeof kTokens[0])]);
          break;
        default: {  // replace the cell at `at` by a token
          const std::size_t end = text.find_first_of(",\n", at);
          text.replace(std::min(at, text.size()), end == std::string::npos ? std::string::npos : end - at,
                       kTokens[pick(sizeof kTokens / sizeof kTokens[0])]);
          break;
        }
      }
    }
    return text;
  }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

  static constexpr char kSpecial[] = {',', '"', '\n', '\r', '\t', ' ', '\0', '-', '+', '.', 'e', '0', '9', ';', '\xff'};
  static constexpr const char* kTokens[] = {"",
                                            "\"",
                                            "\"\"",
                                            "\"a,\nb\"",
                                            "1e999",
                                            "-1e999",
                                            "nan",
                                            "inf",
                                            "-0",
                                            "0x1p3",
                                            "99999999999999999999",
                                            "-9999999999999999999",
                                            "2147483648",
                                            " 1 ",
                                            "1,2",
                                            "{\"schema_version\":1}",
                                            "null",
                                            "[]"};
  std::mt19937 rng_;
};

/// Calls `read` on a mutated copy of `seed`; returns a description of anything but rows or a ResultsError.
template <typename Read>
std::string survives(const fs::path& file, const std::string& text, Read read) {
  write_text(file, text);
  try {
    read();
  } catch (const ResultsError&) {
  } catch (const std::exception& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  } catch (...) {
    return "a non-standard exception";
  }
  return "";
}

std::string head(const fs::path& file, std::size_t lines) {
  std::string out;
  for (const auto& line : read_lines(file)) {
    if (lines-- == 0) break;
    out += line + "\n";
  }
  return out;
}

TEST(ReaderMutations, OnlyResultsErrorEverEscapes) {
  const fs::path smoke = fixtures_dir() / "results_h200_smoke";
  const std::string summary = read_text(fixtures_dir() / "compare" / "base" / "summary.csv");
  const std::string meta = read_text(fixtures_dir() / "compare" / "base" / "meta.json");
  const std::string runs = head(smoke / "runs.csv", 30), tasks = head(smoke / "tasks.csv", 60);
  TempDir tmp;
  Mutator m(20261121);
  constexpr int kIterations = 4000;
  int failures = 0, accepted = 0;
  for (int i = 0; i < kIterations && failures < 10; ++i) {
    std::string problem;
    const fs::path summary_csv = tmp / "summary.csv", runs_csv = tmp / "runs.csv", tasks_csv = tmp / "tasks.csv";
    switch (i % 4) {
      case 0:
        problem = survives(summary_csv, m.mutate(summary), [&] { accepted += !read_summary(summary_csv).empty(); });
        break;
      case 1:
        problem = survives(runs_csv, m.mutate(runs), [&] { accepted += !read_runs(runs_csv).empty(); });
        break;
      case 2:
        problem = survives(tasks_csv, m.mutate(tasks), [&] { accepted += !read_tasks(tasks_csv).empty(); });
        break;
      default:
        write_text(summary_csv, summary);
        problem = survives(tmp / "meta.json", m.mutate(meta), [&] { read_results_folder(tmp.path()); });
        break;
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << "iteration " << i << ": " << problem;
    }
  }
  // Some mutations (a changed digit, say) leave a readable file: the readers did real work.
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace bench_mps::testing
