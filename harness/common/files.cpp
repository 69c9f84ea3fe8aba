#include "harness/common/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <cstring>
#include <system_error>

#include "harness/common/errors.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

FileWriteError io_error(const std::string& what, const fs::path& path) {
  const int error = errno;
  return FileWriteError(what + " " + path.string() + ": " + std::strerror(error), path, error);
}

/// The first `size` bytes of `fd` (fewer where the file is shorter); "" on a read error.
std::string head_of(int fd, std::size_t size) {
  std::string text(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, text.data() + got, size - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

/// Writes all of `text` to `fd`, retrying short writes and EINTR; false on an error (errno set).
bool write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::string read_whole_file(const fs::path& path) {
  // read(2), not an ifstream: a /proc file whose process exits while it is read fails with ESRCH,
  // which libstdc++'s filebuf turns into an exception that istreambuf_iterator lets through.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) text.clear();  // unreadable: "" as documented, never half a file
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

fs::path resolved_path(const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : real;
}

bool lies_inside(const fs::path& file, const fs::path& dir) {
  const fs::path rel = resolved_path(file).lexically_relative(resolved_path(dir));
  return !rel.empty() && *rel.begin() != "..";
}

std::string missing_file_why(const fs::path& path) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(path, ec)) ? "a link that leads nowhere or into a loop of links"
                                                      : "no such file";
}

std::string not_a_folder_why(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) return "not a folder";
  if (fs::is_symlink(fs::symlink_status(path, ec))) return "a link that leads nowhere or into a loop of links";
  return "no such folder";
}

std::string not_a_readable_file_why(const fs::path& file) {
  std::error_code ec;
  if (fs::exists(file, ec)) return "not a file (a folder or device stands there)";
  return missing_file_why(file);
}

std::string read_input_file(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory &&
      ec != std::errc::too_many_symbolic_link_levels)  // a folder on the way it may not enter
    throw UsageError(path.string() + ": cannot be read: " + ec.message());
  if (!fs::exists(st)) throw UsageError(path.string() + ": " + missing_file_why(path));
  if (fs::is_directory(st)) throw UsageError(path.string() + ": a folder, not a file");
  if (!fs::is_regular_file(st)) throw UsageError(path.string() + ": not a file (a device or pipe stands there)");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError(path.string() + ": cannot be read: " + std::strerror(errno));
  ::close(fd);
  return read_whole_file(path);
}

void require_readable_folder(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory &&
      ec != std::errc::too_many_symbolic_link_levels)
    throw ResultsError(dir.string() + ": cannot be read: " + ec.message());
  if (!fs::is_directory(st)) throw ResultsError(dir.string() + ": " + not_a_folder_why(dir));
  if (::access(dir.c_str(), R_OK | X_OK) != 0)
    throw ResultsError(dir.string() + ": cannot be read: " + std::strerror(errno));
}

void write_file_atomically(const fs::path& path, const std::string& text) { write_files_together({{path, text}}); }

namespace {

/// Where a replacement of `path` goes: `path` itself when nothing or a plain file stands there, the file a link there
/// leads to where that is a plain file. Anything else (a device such as /dev/null, a pipe, a folder, a link that
/// leads nowhere) is refused, FileWriteError with EEXIST (exit 2): renaming over it would replace the device or
/// the link, as root even /dev/null.
fs::path replaceable_target(const fs::path& path) {
  std::error_code ec;
  const fs::file_status own = fs::symlink_status(path, ec);
  if (!fs::exists(own) || fs::is_regular_file(own)) return path;
  const fs::path target = fs::is_symlink(own) ? fs::canonical(path, ec) : path;
  if (!ec && fs::is_regular_file(fs::status(target, ec))) return target;
  throw FileWriteError("cannot replace " + path.string() + ": " +
                           (fs::is_symlink(own) && !fs::exists(fs::status(path, ec))
                                ? std::string("a link that leads nowhere stands there")
                                : std::string("not a plain file (a device, pipe or folder stands there)")) +
                           "; give the path of a file",
                       path, EEXIST);
}

}  // namespace

void write_files_together(const std::vector<std::pair<fs::path, std::string>>& given) {
  std::vector<std::pair<fs::path, const std::string*>> files;  // each file where it will be written
  for (const auto& [path, text] : given) files.emplace_back(replaceable_target(path), &text);
  std::vector<fs::path> written;  // the .tmp of each file so far
  auto drop = [&written] {
    for (const fs::path& tmp : written) ::unlink(tmp.c_str());
  };
  for (const auto& [path, text_of] : files) {
    const std::string& text = *text_of;
    const fs::path tmp = path.string() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      const FileWriteError error = io_error("cannot create", tmp);
      drop();
      throw error;
    }
    written.push_back(tmp);
    const bool ok = write_all(fd, text) && ::fsync(fd) == 0;
    const FileWriteError error = io_error("cannot write", tmp);
    ::close(fd);
    if (!ok) {
      drop();
      throw error;
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (::rename(written[i].c_str(), files[i].first.c_str()) != 0) {
      const FileWriteError error = io_error("cannot rename into", files[i].first);
      written.erase(written.begin(), written.begin() + static_cast<std::ptrdiff_t>(i));
      drop();
      throw error;
    }
}

void append_durably(const fs::path& path, const std::string& header, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw io_error("cannot open", path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) throw io_error("cannot seek in", path);
  if (size > 0) {
    const int rd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string head = rd < 0 ? std::string() : head_of(rd, header.size());
    if (rd >= 0) ::close(rd);
    if (head != header)
      throw UsageError(path.string() +
                       ": its first line is not the header bench_mps writes (another program's file, "
                       "or another version's); not appending to it");
  }
  const std::string out = (size == 0 ? header : std::string()) + text;
  if (write_all(fd, out) && ::fsync(fd) == 0) return;
  const FileWriteError error = io_error("cannot write", path);
  // Back to where it was: no torn line, no rows of a run that is not recorded.
  if (::ftruncate(fd, size) == 0) ::fsync(fd);
  throw error;
}

int try_lock_file(const std::filesystem::path& path, unsigned mode) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot create " + path.string());
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK) return -1;
  throw std::system_error(err, std::generic_category(), "cannot lock " + path.string());
}

bool file_is_locked(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // a shared lock taken here goes with it
  return held;
}

bool rewrite_locked_file(int fd, const std::string& text) {
  return ::ftruncate(fd, 0) == 0 && ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

void check_stdout_written() {
  errno = 0;
  std::cout.flush();
  const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  int error = errno;
  if (!lost || error == EPIPE) return;
  // A write that failed mid-way (a full buffer) left no errno by now: a closed descriptor says so itself; anything
  // else is taken as the device refusing more (exit 3, as for a full disk: /dev/full, a full filesystem).
  if (error == 0 || exit_code_of_write_error(error) == 1) error = ::fcntl(STDOUT_FILENO, F_GETFL) < 0 ? EBADF : ENOSPC;
  throw FileWriteError(std::string("cannot write to standard output: ") + std::strerror(error), "standard output",
                       error);
}

int exit_code_of_write_error(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return 3;
    case EROFS:
    case EACCES:
    case EPERM:
    case ELOOP:
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case EBADF:
    case EEXIST:  // a file or a dangling link where a folder was to be made
    case ENOENT:  // a folder on the way that cannot be made (under /proc) or vanished
      return 2;
    default:
      return 1;
  }
}

void check_folder_creatable(const std::filesystem::path& out, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path probe = fs::absolute(out, ec);
  while (!probe.empty() && !fs::exists(probe, ec)) {
    if (fs::is_symlink(probe, ec)) {  // exists() follows it: a link to nothing, which no folder can be made at
      std::error_code followed;
      (void)fs::status(probe, followed);
      throw UsageError(option + ": cannot create " + out.string() + ": " + probe.string() +
                       (followed.value() == ELOOP ? " is a link in a loop of links" : " is a link to nothing") +
                       " (it points at " + fs::read_symlink(probe, ec).string() + ")");
    }
    probe = probe.parent_path();
  }
  const fs::path trial = probe / (".bench_mps-write-test-" + std::to_string(::getpid()));
  if (!probe.empty() && fs::exists(probe, ec) && !fs::is_directory(probe, ec))
    throw UsageError(option + ": cannot create " + out.string() + ": " + probe.string() + " is a file, not a folder");
  if (probe.empty() || !fs::is_directory(probe, ec) || !fs::create_directory(trial, ec)) {
    if (ec && exit_code_of_write_error(ec.value()) == kExitEnvironment)  // a full disk: the machine's, exit 3
      throw EnvironmentError(option + ": cannot create " + out.string() + ": " + ec.message() + " in " +
                             probe.string());
    throw UsageError(option + ": cannot create " + out.string() + ": " + probe.string() + " is not writable");
  }
  fs::remove(trial, ec);
}

}  // namespace bench_mps::harness
