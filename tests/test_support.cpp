#include "tests/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sys/wait.h>
#include <thread>

#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/proc_scan.hpp"
#include "harness/common/process.hpp"
#include "harness/gpu/nvml.hpp"

namespace bench_mps::testing {

fs::path source_dir() { return BENCH_MPS_SOURCE_DIR; }
fs::path build_dir() { return BENCH_MPS_BUILD_DIR; }
fs::path bench_mps_exe() { return build_dir() / "harness" / "bench_mps"; }
fs::path bench_worker_exe() { return build_dir() / "harness" / "bench_worker"; }
fs::path fakes_dir() { return source_dir() / "tests" / "fakes"; }
fs::path study() { return source_dir() / "results" / "2026-11-27-predict-study"; }
fs::path fixtures_dir() { return source_dir() / "tests" / "fixtures"; }

struct BackgroundProgram::Impl {
  std::unique_ptr<harness::PipedChild> child;
  CommandOutput result;
  std::thread out_reader, err_reader;
  bool done = false;
};

BackgroundProgram::BackgroundProgram(const fs::path& exe, const std::vector<std::string>& args, const Env& env)
    : impl_(std::make_unique<Impl>()) {
  harness::PipedChild::Options options;
  options.env = {env.unset, {env.set.begin(), env.set.end()}};
  options.stdin_pipe = false;
  impl_->child = std::make_unique<harness::PipedChild>(exe.string(), args, options);
  Impl* i = impl_.get();
  i->out_reader = std::thread([i] { i->result.out.assign(std::istreambuf_iterator<char>(i->child->out()), {}); });
  i->err_reader = std::thread([i] { i->result.err.assign(std::istreambuf_iterator<char>(i->child->err()), {}); });
}

BackgroundProgram::~BackgroundProgram() {
  if (!impl_->done) wait(0);
}

int BackgroundProgram::pid() const { return impl_->child->pid(); }

void BackgroundProgram::signal(int sig) { ::kill(impl_->child->pid(), sig); }

CommandOutput BackgroundProgram::wait(double timeout_s) {
  Impl& i = *impl_;
  if (i.done) return i.result;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(i.child->pid(), &status, WNOHANG);
    if (r == i.child->pid()) break;
    if (std::chrono::steady_clock::now() > until) {
      i.result.timed_out = true;
      ::kill(i.child->pid(), SIGKILL);
      ::waitpid(i.child->pid(), &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  i.child->forget();
  i.out_reader.join();
  i.err_reader.join();
  i.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  i.done = true;
  return i.result;
}

CommandOutput run_program(const fs::path& exe, const std::vector<std::string>& args, const Env& env, double timeout_s) {
  return BackgroundProgram(exe, args, env).wait(timeout_s);
}

bool wait_until(const std::function<bool()>& condition, double timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > until) return condition();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

Env fake_mps_env(const fs::path& journal) {
  const char* path = std::getenv("PATH");
  return Env{
      {{"PATH", fakes_dir().string() + ":" + (path ? path : "/usr/bin:/bin")}, {"FAKE_MPS_JOURNAL", journal.string()}},
      {}};
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("bench_mps_test_" + std::to_string(rd()) + std::to_string(::getpid()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string read_text(const fs::path& file) { return harness::read_whole_file(file); }

std::vector<std::string> read_lines(const fs::path& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_text(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

void set_csv_cell(const fs::path& file, std::size_t row, const std::string& column, const std::string& value) {
  const auto split_row = [](const std::string& line) { return harness::split(line, ','); };
  std::vector<std::string> lines = read_lines(file);
  const std::vector<std::string> header = split_row(lines.at(0));
  const auto col = static_cast<std::size_t>(std::find(header.begin(), header.end(), column) - header.begin());
  ASSERT_LT(col, header.size()) << column;
  std::vector<std::string> cells = split_row(lines.at(row));
  ASSERT_LT(col, cells.size()) << "row " << row;  // split and joined at every comma: quoted cells survive
  cells[col] = value;
  std::string edited;
  for (std::size_t i = 0; i < cells.size(); ++i) edited += (i ? "," : "") + cells[i];
  lines[row] = edited;
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  write_text(file, text);
}

int live_mps_process_count() { return static_cast<int>(harness::live_mps_processes().size()); }

ForeignDaemon::ForeignDaemon(const Env& env, const fs::path& dir) : env_(env), dir_(dir) {
  env_.set.emplace_back("CUDA_MPS_PIPE_DIRECTORY", pipe_dir().string());
  env_.set.emplace_back("CUDA_MPS_LOG_DIRECTORY", (dir_ / "foreign-log").string());
  running_ = run_program(fakes_dir() / "nvidia-cuda-mps-control", {"-d"}, env_).exit_code == 0 &&
             wait_until([] { return live_mps_process_count() > 0; }, 5);
}

ForeignDaemon::~ForeignDaemon() {
  const fs::path control = fakes_dir() / "nvidia-cuda-mps-control";
  BackgroundProgram quit(fs::path("/bin/sh"), {"-c", "echo quit | '" + control.string() + "'"}, env_);
  quit.wait(10);
  wait_until([] { return live_mps_process_count() == 0; }, 5);
}

bool gpu_available() {
  std::string why;
  return harness::Nvml::open(why) != nullptr;
}

std::vector<std::map<std::string, std::string>> csv_records(const fs::path& file) {
  auto cells_of = [](const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    return cells;
  };
  const auto lines = read_lines(file);
  std::vector<std::map<std::string, std::string>> out;
  if (lines.empty()) return out;
  const auto header = cells_of(lines.front());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = cells_of(lines[i]);
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace bench_mps::testing
