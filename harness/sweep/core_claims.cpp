#include "harness/sweep/core_claims.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/plan/device_options.hpp"
#include "harness/mps/mps_session.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// What a claim file says of its holder, in a few words.
std::string owner_of(const fs::path& file) {
  std::string text = read_whole_file(file);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "another bench_mps (not recorded yet)" : text;
}

}  // namespace

fs::path default_core_claims_dir() { return default_mps_base_dir() / "cores"; }

CoreClaims::CoreClaims(const fs::path& dir, const std::vector<int>& cpus, std::size_t wanted, const std::string& what)
    : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw EnvironmentError("cannot create the core claims folder " + dir.string() + ": " + ec.message());
  const std::string owner = "pid " + std::to_string(::getpid()) + " (" + what + ")\n";
  for (int cpu : cpus) {
    if (held_.size() >= wanted) break;
    const fs::path file = dir / ("cpu-" + std::to_string(cpu) + ".lock");
    // Close-on-exec: workers and daemons must not inherit a claim and hold it after the sweep.
    int fd = -1;
    try {
      fd = try_lock_file(file, 0600);
    } catch (const std::system_error& e) {
      throw EnvironmentError(std::string(e.what()) + " (a core claim)");
    }
    if (fd < 0) {
      foreign_.push_back({cpu, owner_of(file)});
      continue;
    }
    // A failed write loses only the owner's name, which a second sweep then reports as "not recorded
    // yet"; the claim itself holds.
    static_cast<void>(rewrite_locked_file(fd, owner));
    held_.push_back(cpu);
    fds_.push_back(fd);
  }
}

CoreClaims::~CoreClaims() { release_all(); }

CoreClaims::CoreClaims(CoreClaims&& other) noexcept
    : dir_(std::move(other.dir_)),
      held_(std::move(other.held_)),
      fds_(std::move(other.fds_)),
      foreign_(std::move(other.foreign_)) {
  other.held_.clear();
  other.fds_.clear();
}

CoreClaims& CoreClaims::operator=(CoreClaims&& other) noexcept {
  if (this != &other) {
    release_all();
    dir_ = std::move(other.dir_);
    held_ = std::move(other.held_);
    fds_ = std::move(other.fds_);
    foreign_ = std::move(other.foreign_);
    other.held_.clear();
    other.fds_.clear();
  }
  return *this;
}

void CoreClaims::keep_only(const std::vector<int>& keep) {
  std::vector<int> held, fds;
  for (std::size_t i = 0; i < held_.size(); ++i) {
    if (std::find(keep.begin(), keep.end(), held_[i]) != keep.end()) {
      held.push_back(held_[i]);
      fds.push_back(fds_[i]);
    } else {
      ::close(fds_[i]);  // closing the only descriptor releases the flock
    }
  }
  held_ = std::move(held);
  fds_ = std::move(fds);
}

void CoreClaims::release_all() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
  held_.clear();
}

PinnedCpus pin_cpus(const fs::path& claims_dir, const std::vector<int>& allowed, int max_procs, const std::string& what,
                    int cores_per_worker) {
  PinnedCpus out;
  const int per = std::max(cores_per_worker, 1);
  const int cores = std::max(max_procs, 1) * per;                  // the workers'
  const std::size_t wanted = static_cast<std::size_t>(cores) + 1;  // the harness's core too
  out.claims = CoreClaims(claims_dir, allowed, wanted, what);
  std::vector<int> usable = out.claims.held();
  std::string others;
  for (const ForeignClaim& f : out.claims.foreign())
    if (others.find(f.owner) == std::string::npos) others += (others.empty() ? "" : "; ") + f.owner;
  bool shared = false;
  if (usable.size() < 2 && allowed.size() >= 2) {
    // Nothing (or one core) left to claim: run on the allowed cores beside the other sweeps rather
    // than not at all, and say so.
    usable = allowed;
    shared = true;
    out.warnings.push_back("the CPU cores " + format_cpu_list(allowed) + " are claimed by other bench_mps sweeps (" +
                           others +
                           "): this sweep's workers share cores with theirs; give each sweep its own "
                           "cores with --cpus, or run them one after the other");
  } else if (!out.claims.foreign().empty()) {
    out.warnings.push_back("cores claimed by other bench_mps sweeps left out (" + others + "); this sweep uses " +
                           format_cpu_list(usable));
  }
  out.plan = plan_cpus(usable, cores);
  if (!shared) out.claims.keep_only(usable);
  const bool one_core = usable.size() < 2;  // no plan: the harness and every worker on that core
  if (one_core)
    out.warnings.push_back("one CPU core (" + format_cpu_list(usable) + ") for the harness and up to " +
                           std::to_string(max_procs) +
                           " workers: they all share it, so host-side work is slowed too; the numbers measure CPU "
                           "sharing as well as GPU sharing (give --cpus more cores)");
  const bool short_of_cores = !out.plan.workers.empty() && out.plan.workers.size() < static_cast<std::size_t>(cores);
  const auto counted = [](std::size_t n, const std::string& word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  const std::string on_cores =
      " on " + counted(out.plan.workers.size(), "worker core") + " (" + format_cpu_list(out.plan.workers) + ")";
  if (short_of_cores && max_procs <= 1)  // one worker, fewer cores than --cores-per-worker gives it
    out.warnings.push_back("a worker of " + std::to_string(per) + " cores" + on_cores +
                           ": it gets fewer cores than asked, so its host-side work is slowed too (give --cpus "
                           "more cores, or a smaller --cores-per-worker)");
  else if (short_of_cores)
    out.warnings.push_back("up to " + counted(static_cast<std::size_t>(max_procs), "worker") +
                           (per > 1 ? " of " + std::to_string(per) + " cores each" : std::string()) + on_cores +
                           ": at the larger N workers share cores, so host-side work is slowed too; the numbers "
                           "at those N measure CPU sharing as well as GPU sharing");
  nlohmann::json foreign = nlohmann::json::array();
  for (const ForeignClaim& f : out.claims.foreign()) foreign.push_back({{"cpu", f.cpu}, {"owner", f.owner}});
  out.meta = {{"allowed", allowed},
              {"claimed", out.claims.held()},
              {"claims_dir", claims_dir.string()},
              {"claimed_by_others", foreign},
              {"shared_with_other_sweeps", shared},
              {"cores_per_worker", per},
              {"workers_share_cores", one_core || (short_of_cores && max_procs > 1)},
              {"warnings", out.warnings}};
  return out;
}

}  // namespace bench_mps::harness
