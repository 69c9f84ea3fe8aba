#include "harness/run_command.hpp"

#include <unistd.h>

#include <boost/process.hpp>
#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "harness/format.hpp"

namespace bp = boost::process;
namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

CommandResult run_command(const std::string& exe, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env_set, const std::string& input,
                          double timeout_s, const fs::path& scratch_dir) {
  static int counter = 0;
  const std::string stem = "cmd-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const fs::path in_file = scratch_dir / (stem + ".in");
  const fs::path out_file = scratch_dir / (stem + ".out");
  std::ofstream(in_file) << input;
  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : env_set) env[k] = v;
  std::error_code ec;
  bp::child child(exe, bp::args = args, bp::std_in < in_file.string(), (bp::std_out & bp::std_err) > out_file.string(),
                  env, ec);
  if (ec) throw CommandError("could not run " + exe + ": " + ec.message());
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (child.running(ec)) {
    if (std::chrono::steady_clock::now() > until) {
      child.terminate(ec);
      throw CommandError(exe + " did not answer within " + fmt_num(timeout_s) + " s (input: " + one_line(input) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CommandResult result{child.exit_code(), trim(slurp(out_file))};
  fs::remove(in_file, ec);
  fs::remove(out_file, ec);
  return result;
}

}  // namespace bench_mps::harness
