#include "harness/sweep/out_dir_claim.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

namespace {

UsageError in_use(const fs::path& dir, const fs::path& claim_file, const std::string& option) {
  const std::string pid = trim(read_whole_file(claim_file));
  return UsageError(option + ": " + dir.string() + " is in use by another bench_mps sweep (" +
                    (pid.empty() ? std::string("pid not written yet") : "pid " + pid) +
                    "); wait for it to end, or choose another folder");
}

}  // namespace

void refuse_if_claimed(const fs::path& dir, const std::string& option) {
  const fs::path file = dir / OutDirClaim::kFileName;
  if (file_is_locked(file)) throw in_use(dir, file, option);
}

namespace {

/// The folders made for a run, from `dir` up to `made`, each only while empty: another sweep that took the folder
/// first (the claim's usual refusal) has its claim file there, and keeps its folder.
void remove_empty_made_folders(const fs::path& dir, const fs::path& made) {
  std::error_code ec;
  if (made.empty()) return;
  for (fs::path p = fs::absolute(dir, ec).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (!fs::is_empty(p, ec) || !fs::remove(p, ec)) break;
    if (p == made || p == p.parent_path()) break;
  }
}

}  // namespace

OutDirClaim::OutDirClaim(const fs::path& dir, const fs::path& made, std::string option)
    : option_(std::move(option)), path_(dir / kFileName), dir_(dir), made_(made) {
  try {
    claim(dir);
  } catch (...) {
    remove_empty_made_folders(dir, made);
    throw;
  }
}

void OutDirClaim::claim(const fs::path& dir) {
  // A holder removes the file as it exits: a lock taken on a file already removed (or replaced)
  // claims nothing, so take it again on the file that is there now.
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Close-on-exec: a worker or an MPS daemon we start must not inherit the claim and outlive us with it.
    int fd = -1;
    try {
      fd = try_lock_file(path_, 0644);
    } catch (const std::system_error& e) {  // its errno decides the exit code: a full disk 3, a read-only folder 2
      throw FileWriteError(option_ + ": " + std::string(e.what()), path_, e.code().value());
    }
    if (fd < 0) throw in_use(dir, path_, option_);
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  if (fd_ < 0) throw UsageError(option_ + ": cannot claim " + dir.string() + ": " + path_.string() + " keeps changing");
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (!rewrite_locked_file(fd_, pid)) {
    const int error = errno;
    ::unlink(path_.c_str());
    ::close(fd_);
    throw FileWriteError("--out: cannot write " + path_.string() + ": " + std::strerror(error), path_, error);
  }
}

OutDirClaim::~OutDirClaim() {
  ::unlink(path_.c_str());  // while still held: no one else can have taken this inode meanwhile
  ::close(fd_);             // closing the last descriptor releases the flock
  if (remove_made_) remove_empty_made_folders(dir_, made_);
}

fs::path first_missing_folder(const fs::path& dir) {
  std::error_code ec;
  fs::path missing;
  for (fs::path p = fs::absolute(dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing = p;
    if (p == p.parent_path()) break;
  }
  return missing;
}

fs::path make_new_results_dir(const std::string& label) {
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  const std::string base = std::string("results/") + date + "-" + label;
  std::error_code ec;
  fs::create_directories("results", ec);
  fs::path dir = base;
  for (int i = 2; !fs::create_directory(dir, ec); ++i) {
    if (ec) throw UsageError("--out: cannot create " + dir.string() + ": " + ec.message());
    dir = base + "-" + std::to_string(i);
  }
  return dir;
}

}  // namespace bench_mps::harness
