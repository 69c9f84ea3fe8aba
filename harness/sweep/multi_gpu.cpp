#include "harness/sweep/multi_gpu.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/common/errors.hpp"
#include "harness/common/format.hpp"
#include "harness/common/process.hpp"
#include "harness/common/signals.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/results/gpus_index.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/gpu_select.hpp"
#include "harness/sweep/out_dir_claim.hpp"
#include "harness/sweep/preflight.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// The GPUs --gpus names, resolved; two names of one GPU are a UsageError.
std::vector<DeviceChoice> resolve_gpus(const SweepSpec& spec) {
  std::string why;
  std::size_t count = 0;
  const std::vector<GpuIdentity> visible = visible_gpus(why, &count);
  const bool needs_gpu = sweep_needs_gpu(spec);
  if (visible.empty() && needs_gpu) throw EnvironmentError("--gpus: no GPU visible: " + why);
  std::vector<std::string> ids = spec.gpus;
  if (ids == std::vector<std::string>{"all"}) {
    if (visible.empty()) throw EnvironmentError("--gpus all: no GPU visible: " + why);
    ids.clear();
    for (std::size_t i = 0; i < visible.size(); ++i) ids.push_back(std::to_string(i));
  }
  std::vector<DeviceChoice> gpus;
  for (const std::string& id : ids) {
    DeviceChoice d = resolve_device(id, needs_gpu, visible, static_cast<int>(count));
    for (const DeviceChoice& other : gpus)
      if (other.id.key == d.id.key)
        throw UsageError("--gpus: " + other.requested + " and " + id + " are the same GPU (" + d.id.key + ")");
    gpus.push_back(d);
  }
  return gpus;
}

fs::path choose_parent_dir(const SweepSpec& spec) {
  if (!spec.out_dir.empty()) return spec.out_dir;
  char date[16], host[64] = {};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  ::gethostname(host, sizeof host - 1);
  std::string name = host;
  name = name.substr(0, name.find('.'));
  const std::string base = std::string("results/") + date + "-" + (name.empty() ? "host" : name) + "-gpus";
  fs::path dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

/// One running child sweep, its output copied line by line to ours (prefixed) and to its log.
struct Child {
  GpusIndexEntry entry;
  std::unique_ptr<PipedChild> process;
  std::thread out_copier, err_copier;
  std::ofstream log;
  std::string last_err;
  bool running = false;
};

std::mutex g_output;

void copy_lines(std::istream& in, std::ostream& to, Child& child, bool is_err) {
  for (std::string line; std::getline(in, line);) {
    std::lock_guard<std::mutex> lock(g_output);
    to << "[" << child.entry.folder << "] " << line << "\n" << std::flush;
    child.log << line << "\n" << std::flush;
    if (is_err && !trim(line).empty()) child.last_err = trim(line);
  }
}

/// The status a sweep that ended with `exit_code` left in `dir`: its meta.json's, or why it left none (`last_err`:
/// its last line on stderr, or empty). A sweep that ended while its meta.json still said "running" (killed, out of
/// memory, crashed) died: said so, never left "running".
std::string ended_status(const fs::path& dir, int exit_code, const std::string& last_err) {
  try {
    if (const std::optional<std::string> status = read_sweep_meta(dir).status) {
      if (*status != sweep_status_name(SweepStatus::running)) return *status;
      return "died while running (exit " + std::to_string(exit_code) +
             (exit_code > 128 && sigabbrev_np(exit_code - 128) ? ", SIG" + std::string(sigabbrev_np(exit_code - 128))
                                                               : "") +
             ")" + (last_err.empty() ? "" : ": " + last_err);
    }
  } catch (const ResultsError&) {
    // no results: say why below
  }
  return "no results (exit " + std::to_string(exit_code) + ")" + (last_err.empty() ? "" : ": " + last_err);
}

/// The index's status once its members ended: complete where every one exited 0.
std::string ended_index_status(const std::vector<GpusIndexEntry>& gpus, int stop_signal) {
  if (stop_signal) return "interrupted";
  const bool all_ok =
      std::all_of(gpus.begin(), gpus.end(), [](const GpusIndexEntry& e) { return e.exit_code && *e.exit_code == 0; });
  return all_ok ? "complete" : "failed";
}

}  // namespace

std::vector<std::string> without_options(const std::vector<std::string>& args, const std::vector<std::string>& drop) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    if (std::find(drop.begin(), drop.end(), name) == drop.end()) {
      kept.push_back(a);
      continue;
    }
    if (eq == std::string::npos) ++i;  // "--opt value": skip the value too
  }
  return kept;
}

namespace {

/// Refuses a folder that already holds a multi-GPU sweep's results.
void refuse_used_folder(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out / kGpusIndexFile, ec))
    throw UsageError("--out: " + out.string() + " already holds results; choose a new folder");
}

/// Pinned: each sweep's share of the cores; fewer cores than sweeps, they share them all, with a warning (each the
/// --cpus given, or empty where none was: every core the machine allows). Unpinned, each sweep keeps to the --cpus
/// given, all of them (empty where none was given).
std::vector<std::vector<int>> cpu_shares(const SweepSpec& spec, std::size_t sweeps) {
  std::vector<std::vector<int>> shares;
  if (!spec.pin_cpus) {
    if (!spec.cpus.empty()) shares.assign(sweeps, spec.cpus);
    return shares;
  }
  const std::vector<int> allowed = spec.cpus.empty() ? allowed_cpus() : spec.cpus;
  shares = split_cpus(allowed, static_cast<int>(sweeps));
  if (shares.empty()) {
    std::cerr << "bench_mps: warning: " << allowed.size() << " CPU cores for " << sweeps
              << " sweeps: they share the cores\n";
    if (!spec.cpus.empty()) shares.assign(sweeps, spec.cpus);  // shared, but still only the cores given
  }
  return shares;
}

/// One child per GPU, not started yet, each entered in the index as running.
std::vector<std::unique_ptr<Child>> plan_children(const std::vector<DeviceChoice>& gpus,
                                                  const std::vector<std::vector<int>>& shares, GpusIndex& index) {
  std::vector<std::unique_ptr<Child>> children;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    auto c = std::make_unique<Child>();
    c->entry.folder = device_folder_name(gpus[i]);
    c->entry.device = gpus[i].id.key;
    c->entry.gpu_name = gpus[i].name;
    c->entry.uuid = gpus[i].id.uuid;
    c->entry.index = gpus[i].id.index;
    if (!shares.empty()) c->entry.cpus = format_cpu_list(shares[i]);
    c->entry.status = "running";
    index.gpus.push_back(c->entry);
    children.push_back(std::move(c));
  }
  return children;
}

/// Starts each child: this program with the parent's arguments (less --gpus, --out, --cpus, --device)
/// and its own device, folder and cores. One that cannot start is entered as not started.
void start_children(std::vector<std::unique_ptr<Child>>& children, const SweepSpec& spec, const fs::path& out) {
  const std::vector<std::string> common =
      without_options(std::vector<std::string>(spec.argv.begin() + (spec.argv.empty() ? 0 : 1), spec.argv.end()),
                      {"--gpus", "--out", "--cpus", "--device"});
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  for (auto& c : children) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--device", c->entry.device, "--out", (out / c->entry.folder).string()});
    if (!c->entry.cpus.empty()) args.insert(args.end(), {"--cpus", c->entry.cpus});
    c->log.open(out / (c->entry.folder + ".log"));
    PipedChild::Options options;
    options.stdin_pipe = false;
    options.own_process_group = true;  // Ctrl-C reaches this process, which passes it on once
    options.die_with_parent = true;
    try {
      c->process = std::make_unique<PipedChild>(self, args, options);
    } catch (const CommandError& e) {
      c->entry.exit_code = kExitEnvironment;
      c->entry.status = std::string("not started: ") + e.what();
      continue;
    }
    c->running = true;
    Child* raw = c.get();
    c->out_copier = std::thread([raw] { copy_lines(raw->process->out(), std::cout, *raw, false); });
    c->err_copier = std::thread([raw] { copy_lines(raw->process->err(), std::cerr, *raw, true); });
  }
}

/// Waits until every child has exited, passing a stop signal on to them once.
void wait_for_children(std::vector<std::unique_ptr<Child>>& children) {
  int forwarded = 0;
  for (;;) {
    bool any = false;
    for (auto& c : children) {
      if (!c->running) continue;
      int status = 0;
      if (::waitpid(c->process->pid(), &status, WNOHANG) == c->process->pid()) {
        c->running = false;
        c->process->forget();
        c->entry.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else {
        any = true;
      }
    }
    if (!any) break;
    if (const int sig = stop_signal().load(); sig && !forwarded) {
      forwarded = sig;
      for (auto& c : children)
        if (c->running) ::kill(c->process->pid(), sig);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

/// Enters how each child ended in the index; the worst exit code.
int collect_children(std::vector<std::unique_ptr<Child>>& children, const fs::path& out, GpusIndex& index) {
  int worst = 0;
  index.gpus.clear();
  for (auto& c : children) {
    if (c->out_copier.joinable()) c->out_copier.join();
    if (c->err_copier.joinable()) c->err_copier.join();
    if (c->process) c->entry.status = ended_status(out / c->entry.folder, c->entry.exit_code.value_or(-1), c->last_err);
    worst = std::max(worst, c->entry.exit_code.value_or(kExitFailed));
    index.gpus.push_back(c->entry);
  }
  return worst;
}

void print_children(const GpusIndex& index, const fs::path& out) {
  std::cout << "\n";
  for (const GpusIndexEntry& e : index.gpus)
    std::cout << e.folder << ": " << (e.uuid.empty() ? e.device : e.gpu_name + " " + e.uuid) << ", cores "
              << (e.cpus.empty() ? "shared" : e.cpus) << ", exit " << e.exit_code.value_or(-1) << ", " << e.status
              << "\n";
  std::cout << "\nresults: " << out.string() << "\n";
}

}  // namespace

int run_multi_gpu(const SweepSpec& spec) {
  // Check: the options, the GPUs and a new folder, claimed.
  check_out_dir(spec);
  check_cpus_allowed(spec.cpus, "--cpus");
  const std::vector<DeviceChoice> gpus = resolve_gpus(spec);
  const fs::path out = choose_parent_dir(spec);
  refuse_used_folder(out);
  const std::vector<std::vector<int>> shares = cpu_shares(spec, gpus.size());
  const fs::path made = first_missing_folder(out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw UsageError("--out: cannot create " + out.string() + ": " + ec.message());
  const OutDirClaim claim(out, made);  // one multi-GPU sweep per folder; each child claims its own
  refuse_used_folder(out);

  // Plan and start: one child sweep per GPU, the index saying so first.
  GpusIndex index;
  index.argv = spec.argv;
  index.started_utc = utc_timestamp();
  index.status = "running";
  std::vector<std::unique_ptr<Child>> children = plan_children(gpus, shares, index);
  write_gpus_index(out, index);
  install_stop_handlers();
  std::cerr << "bench_mps: " << gpus.size() << " sweeps at once, one per GPU -> " << out.string() << "\n";
  start_children(children, spec, out);

  // Wait, then say how each ended.
  wait_for_children(children);
  const int worst = collect_children(children, out, index);
  const int sig = stop_signal().load();
  index.finished_utc = utc_timestamp();
  index.status = ended_index_status(index.gpus, sig);
  write_gpus_index(out, index);
  print_children(index, out);
  if (sig) return 128 + sig;
  return worst;
}

void note_resumed_gpu(const fs::path& dir, int exit_code) {
  const fs::path member_dir = fs::absolute(dir).lexically_normal();
  const fs::path parent = member_dir.parent_path();
  const std::string name = member_dir.filename().string();
  std::error_code ec;
  if (!fs::is_regular_file(parent / kGpusIndexFile, ec)) return;
  try {
    GpusIndex index = read_gpus_index(parent);
    const auto member = std::find_if(index.gpus.begin(), index.gpus.end(),
                                     [&name](const GpusIndexEntry& e) { return e.folder == name; });
    if (member == index.gpus.end()) return;
    member->exit_code = exit_code;
    member->status = ended_status(dir, exit_code, "");
    index.status = ended_index_status(index.gpus, 0);
    write_gpus_index(parent, index);
    std::cerr << "bench_mps: " << (parent / kGpusIndexFile).string() << ": " << name << " now says exit " << exit_code
              << ", " << member->status << "; the run: " << index.status << "\n";
  } catch (const std::exception& e) {
    std::cerr << "bench_mps: warning: " << (parent / kGpusIndexFile).string()
              << " not updated after the resume: " << one_line(e.what()) << "\n";
  }
}

}  // namespace bench_mps::harness
