#include "harness/mps/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

/// "pid=123\nout=results/x\n..." -> the value of `key`, or "".
std::string owner_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  return "";
}

}  // namespace

GpuLock::GpuLock(const fs::path& root, const std::string& key, const std::string& what)
    : path_(root / (key + ".lock")), what_(what), started_utc_(utc_timestamp()) {
  std::error_code ec;
  fs::create_directories(root, ec);
  fs::permissions(root, fs::perms::owner_all, ec);
  // Close-on-exec: a worker or an MPS daemon we start must not inherit the lock and outlive us with it.
  try {
    fd_ = try_lock_file(path_, 0600);
  } catch (const std::system_error& e) {
    throw EnvironmentError(std::string(e.what()) + " (the GPU's lock file)");
  }
  if (fd_ < 0) {
    const std::string owner = read_whole_file(path_);
    const std::string pid = owner_field(owner, "pid"), out = owner_field(owner, "out");
    throw EnvironmentError(what + " is being measured by bench_mps " +
                           (pid.empty() ? std::string("(pid not recorded yet)") : "pid " + pid) + " (" +
                           (out.empty() ? std::string("results folder not chosen yet") : out) +
                           "); wait for it, or measure another GPU (lock " + path_.string() + ")");
  }
  write_owner();
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

void GpuLock::record_out_dir(const fs::path& out) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(out, ec);
  out_dir_ = (ec ? out : absolute).string();
  write_owner();
}

void GpuLock::write_owner() {
  const std::string text = "pid=" + std::to_string(::getpid()) + "\nout=" + out_dir_ + "\ndevice=" + what_ +
                           "\nstarted_utc=" + started_utc_ + "\n";
  if (!rewrite_locked_file(fd_, text))
    throw EnvironmentError("cannot write " + path_.string() + ": " + std::strerror(errno));
}

}  // namespace bench_mps::harness
