#include "harness/common/staged_folder.hpp"

#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "harness/common/files.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

StagedFolder::StagedFolder(fs::path dir, const std::string& tag) : dir_(std::move(dir)) {
  std::error_code ec;
  made_dir_ = !fs::exists(dir_, ec);
  const std::string suffix = "-" + std::to_string(::getpid());
  stage_ = dir_ / ("." + tag + "-staging" + suffix);
  aside_ = dir_ / ("." + tag + "-replaced" + suffix);
  fs::create_directories(dir_, ec);
  if (!ec && !fs::is_directory(dir_)) ec = std::make_error_code(std::errc::not_a_directory);
  if (ec) {  // the user's folder itself: named, not the staging folder inside it
    const int error = ec.value();
    throw FileWriteError("cannot create " + dir_.string() + ": " +
                             (error == EEXIST || error == ENOTDIR
                                  ? std::string("something not a folder stands on its path (a file, or a link that "
                                                "leads nowhere)")
                                  : std::generic_category().message(error)),
                         dir_, error);
  }
  fs::remove_all(stage_, ec);
  fs::create_directories(stage_, ec);
  if (ec) {
    const int error = ec.value();
    if (made_dir_) fs::remove_all(dir_, ec);
    throw FileWriteError("cannot write into " + dir_.string() + ": " + std::generic_category().message(error), stage_,
                         error);
  }
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  fs::remove_all(stage_, ec);
  fs::remove_all(aside_, ec);
  if (made_dir_ && !committed_) fs::remove(dir_, ec);  // only where nothing else came into it meanwhile
}

void StagedFolder::commit(const std::vector<std::string>& names) {
  std::error_code ec;
  for (const std::string& name : names) {  // refused while nothing has moved
    const fs::path there = dir_ / name;
    const fs::file_status now = fs::symlink_status(there, ec);
    if (!fs::exists(now)) continue;
    if (!fs::is_directory(now) && !fs::is_regular_file(now))  // renamed over, a device or pipe would be replaced
      throw FileWriteError("cannot write " + there.string() +
                               ": something not a plain file stands there (a device, pipe or link; nothing was "
                               "written)",
                           there, EEXIST);
    if (fs::is_directory(now) != fs::is_directory(stage_ / name))
      throw FileWriteError("cannot write " + there.string() + ": a " +
                               (fs::is_directory(now) ? std::string("folder") : std::string("file")) +
                               " stands there (nothing was written)",
                           there, fs::is_directory(now) ? EISDIR : ENOTDIR);
  }
  fs::create_directories(aside_, ec);
  std::vector<std::pair<std::string, bool>> moved;  // name, whether it replaced something (now aside)
  auto undo = [&] {
    std::error_code ignored;
    for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
      fs::rename(dir_ / it->first, stage_ / it->first, ignored);
      if (it->second) fs::rename(aside_ / it->first, dir_ / it->first, ignored);
    }
  };
  for (const std::string& name : names) {
    const bool replaces = fs::exists(fs::symlink_status(dir_ / name, ec));
    ec.clear();
    if (replaces) fs::rename(dir_ / name, aside_ / name, ec);
    if (!ec) fs::rename(stage_ / name, dir_ / name, ec);
    if (ec) {
      const int error = ec.value();
      if (replaces) fs::rename(aside_ / name, dir_ / name, ec);
      undo();
      throw FileWriteError("cannot move " + name + " into " + dir_.string() + ": " +
                               std::generic_category().message(error) + " (nothing was written)",
                           dir_ / name, error);
    }
    moved.emplace_back(name, replaces);
  }
  committed_ = true;
}

}  // namespace bench_mps::harness
