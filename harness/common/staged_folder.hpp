#pragma once
// What a verb writes into a folder of the user's (history --out, compare --out, a report's plots/ and report.md)
// goes first into a hidden folder inside it and is moved in together at the end. A failure, a full disk or a stop
// before commit() leaves the folder as it was, and a folder the verb had to make is removed again. A process killed
// by a signal runs no destructor: a verb that stages installs common/signals' handlers and checks them, so that it
// leaves through the destructor.
#include "harness/common/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace bench_mps::harness {

class StagedFolder {
 public:
  /// Makes `dir` where it is missing and `dir/.<tag>-staging-<pid>` in it; FileWriteError (its errno: a full disk
  /// 3, a read-only folder 2) where it cannot.
  StagedFolder(std::filesystem::path dir, const std::string& tag);
  /// Removes the staging folder with what it holds, and `dir` where this made it and nothing was committed.
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  /// The staging folder: write here.
  const std::filesystem::path& path() const { return stage_; }
  /// Moves each of `names` (files or folders in the staging folder) into the folder, replacing what stands there
  /// under that name. Refused before anything moves where a name stands there as another kind (a folder where a
  /// file goes) or as something not a plain file nor a folder (a device, a pipe, a link: renaming over it would
  /// replace it; EEXIST, exit 2). Where a move fails, those before it are undone and what they replaced put back; FileWriteError.
  void commit(const std::vector<std::string>& names);

 private:
  std::filesystem::path dir_, stage_, aside_;
  bool made_dir_ = false, committed_ = false;
};

}  // namespace bench_mps::harness
