#pragma once
// One sweep per results folder: a sweep holds an flock on OUT/.bench_mps.lock from before it writes
// anything there until it exits, with its pid inside, so a second sweep given the same --out (on
// another GPU, or a --resume of it) stops with exit 2 naming the first. The kernel drops the flock
// however the holder dies: a file left by a killed sweep is stale (its pid no longer holds it) and
// the next sweep or --resume takes it over. The holder removes the file as it exits.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <string>

namespace bench_mps::harness {

class OutDirClaim {
 public:
  /// Claims `dir` (which exists). Throws UsageError naming the folder and the holder's pid when
  /// another process holds it, FileWriteError (its errno: a full disk exits 3, a read-only folder 2) when
  /// the claim file cannot be made; then removes the folders the caller made for this run (from `dir` up to
  /// `made`, see first_missing_folder) where they are empty, so a refused run leaves nothing behind and never
  /// takes away a folder another sweep claimed meanwhile.
  /// `option`: the option that named the folder (--out, --resume), as the refusal names it.
  explicit OutDirClaim(const std::filesystem::path& dir, const std::filesystem::path& made = {},
                       std::string option = "--out");
  /// Removes the claim file, then releases the lock.
  ~OutDirClaim();
  OutDirClaim(const OutDirClaim&) = delete;
  OutDirClaim& operator=(const OutDirClaim&) = delete;

  /// The claim file's name inside the folder.
  static constexpr const char* kFileName = ".bench_mps.lock";

  /// As the claim is released, the folders made for this run go again where they are empty (a run that could
  /// write nothing).
  void remove_made_folders_on_release() { remove_made_ = true; }

 private:
  void claim(const std::filesystem::path& dir);
  int fd_ = -1;
  std::string option_;
  std::filesystem::path path_, dir_, made_;
  bool remove_made_ = false;
};

/// Throws the UsageError a second sweep's claim gets (naming the holder's pid) where a sweep holds `dir`'s claim now;
/// returns where none does. A check before the claim (a folder that already holds results) calls it first.
void refuse_if_claimed(const std::filesystem::path& dir, const std::string& option = "--out");

/// The first folder on `dir`'s path that does not exist yet (empty when `dir` exists): what a verb about to
/// make `dir` removes again where it cannot claim it.
std::filesystem::path first_missing_folder(const std::filesystem::path& dir);

/// A new results folder results/<date>-<label>[-<i>] (the first free i from 2), made here by one mkdir,
/// so two runs started at once never pick the same one. Throws UsageError when it cannot be made.
std::filesystem::path make_new_results_dir(const std::string& label);

}  // namespace bench_mps::harness
