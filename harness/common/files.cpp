#include "harness/common/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fs = std::filesystem;

namespace bench_mps::harness {
namespace {

std::string io_error(const std::string& what, const fs::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
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

void write_file_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(io_error("cannot create", tmp));
  const bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  const std::string msg = ok ? "" : io_error("cannot write", tmp);
  ::close(fd);
  if (!ok) throw std::runtime_error(msg);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(io_error("cannot rename into", path));
}

void append_durably(const fs::path& path, const std::string& header, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(io_error("cannot open", path));
  const std::string out = (::lseek(fd, 0, SEEK_END) == 0 ? header : std::string()) + text;
  if (!write_all(fd, out)) {
    const std::string msg = io_error("cannot write", path);
    ::close(fd);
    throw std::runtime_error(msg);
  }
  if (::fsync(fd) != 0) {
    const std::string msg = io_error("cannot fsync", path);
    ::close(fd);
    throw std::runtime_error(msg);
  }
  ::close(fd);
}

}  // namespace bench_mps::harness
