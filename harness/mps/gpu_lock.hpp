#pragma once
// One bench_mps per GPU: a sweep holds an flock on $TMPDIR/bench_mps-<uid>/<device-key>.lock for as
// long as it runs, with its pid and results folder written inside, so a second sweep of the same GPU
// stops before it touches anything and names the first. The kernel drops the lock when the holder
// dies, however it dies, so a killed sweep never leaves the GPU locked. Lock files are never removed
// (removing one while another process opens it would let two hold "the" lock).
#include "harness/mps/wing.hpp"

#include <filesystem>
#include <string>

namespace bench_mps::harness {

class GpuLock {
 public:
  /// Takes `root`/`key`.lock; `what` names the device in messages ("GPU GPU-8d3f..."). Throws
  /// EnvironmentError naming the holder's pid and results folder when another process holds it, or
  /// when the lock file cannot be created.
  GpuLock(const std::filesystem::path& root, const std::string& key, const std::string& what);
  /// Releases the lock (the file stays).
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  /// Writes the results folder into the lock file once the sweep has chosen it.
  void record_out_dir(const std::filesystem::path& out);
  const std::filesystem::path& path() const { return path_; }

 private:
  void write_owner();

  int fd_ = -1;
  std::filesystem::path path_;
  std::string what_, out_dir_, started_utc_;
};

}  // namespace bench_mps::harness
