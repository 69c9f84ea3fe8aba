// libFuzzer target for the results reader (harness/results/results_reader.cpp on fast-cpp-csv-parser and
// nlohmann::json): every input is offered as summary.csv, runs.csv, tasks.csv and meta.json. A
// ResultsError is the expected answer to bad input; any other exception escaping, a crash or a
// sanitizer report is a finding. Build and run: see tests/fuzz/CMakeLists.txt and docs/COMPARE.md.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/results/results_reader.hpp"

namespace fs = std::filesystem;

namespace {

/// A private folder whose meta.json is a link to the one input file, so an input is written once.
/// Removed at exit (the handler is registered once the path exists, so it runs before the path's
/// destructor).
const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    char name[] = "/tmp/fuzz_results_reader.XXXXXX";
    if (::mkdtemp(name) == nullptr) {
      std::perror("fuzz_results_reader: mkdtemp");
      std::abort();
    }
    const fs::path d = name;
    std::error_code ec;
    fs::create_symlink("input", d / "meta.json", ec);
    if (ec) {
      std::fprintf(stderr, "fuzz_results_reader: symlink: %s\n", ec.message().c_str());
      std::abort();
    }
    return d;
  }();
  static const int cleanup = std::atexit([] {
    std::error_code ignored;
    fs::remove_all(scratch_dir(), ignored);
  });
  (void)cleanup;
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = scratch_dir();
  const fs::path input = dir / "input";
  {
    std::ofstream out(input, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::perror("fuzz_results_reader: cannot write the input file");
      std::abort();
    }
  }
  using namespace bench_mps::harness;
  try {
    read_summary(input);
  } catch (const ResultsError&) {
  }
  try {
    read_runs(input);
  } catch (const ResultsError&) {
  }
  try {
    read_tasks(input);
  } catch (const ResultsError&) {
  }
  try {
    read_meta(dir);
  } catch (const ResultsError&) {
  }
  return 0;
}
