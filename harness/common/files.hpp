#pragma once
// The one place files are read whole, replaced atomically or appended durably.
#include "harness/common/wing.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <utility>

namespace bench_mps::harness {

/// A file could not be written (a full disk: ENOSPC; a file size limit: EFBIG); what() names the
/// file and the error, path() is the file.
class FileWriteError : public std::runtime_error {
 public:
  FileWriteError(const std::string& what, std::filesystem::path path, int error = 0)
      : std::runtime_error(what), path_(std::move(path)), error_(error) {}
  const std::filesystem::path& path() const { return path_; }
  int error() const { return error_; }  ///< the errno of the failed call (0: not known)

 private:
  std::filesystem::path path_;
  int error_ = 0;
};

/// The exit code of a file that could not be written, by its errno, the same for every verb (docs: README's
/// exit codes): 3 where the machine ran out of room (ENOSPC, EDQUOT, EFBIG: a full disk, a quota, a file size
/// limit), 2 where the path given cannot be used (EROFS, EACCES, EPERM: read-only, not permitted; ELOOP, EISDIR,
/// ENOTDIR, ENAMETOOLONG: a loop of links, a folder where a file should be or the reverse, a name too long;
/// EEXIST, ENOENT: a file or a dangling link where a folder was to be made, a folder on the way that cannot be made;
/// EBADF: a closed standard output), else 1.
int exit_code_of_write_error(int error);

/// Checks that the folder `out` (new, or there already) can be made and written, before any work: tries a folder
/// in the nearest one that exists and takes it away again (access() says yes to root everywhere, even in /proc).
/// Throws UsageError "OPTION: cannot create OUT: P is not writable" (or "P is a file, not a folder"), or
/// EnvironmentError where the disk is full (exit 3).
void check_folder_creatable(const std::filesystem::path& out, const std::string& option);

/// Flushes standard output; throws FileWriteError (path "standard output", exit code by its errno: a full disk 3,
/// a closed or unusable one 2) when what was written to it is lost. A reader that went away (EPIPE: `| head`)
/// is not an error: it had what it wanted.
void check_stdout_written();

/// Why `path` cannot be opened when it does not exist as itself: "no such file", or, where a link stands there,
/// "a link that leads nowhere or into a loop of links".
std::string missing_file_why(const std::filesystem::path& path);
/// Why `path` is no folder: "not a folder" (a file stands there), "a link that leads nowhere or into a loop of
/// links", or "no such folder".
std::string not_a_folder_why(const std::filesystem::path& path);

/// Why `file`, not a plain file, cannot be read as one: "no such file", "a link that leads nowhere or into a loop of
/// links", or "not a file (a folder or device stands there)".
std::string not_a_readable_file_why(const std::filesystem::path& file);

/// The whole file as bytes; "" when it does not exist or cannot be read (callers that must tell
/// those apart check existence first).
std::string read_whole_file(const std::filesystem::path& path);

/// `path` with links, `.` and `..` resolved as far as it exists: two names of one file or folder compare equal.
std::filesystem::path resolved_path(const std::filesystem::path& path);
/// True when `file` is `dir` or lies inside it, both as they resolve (resolved_path).
bool lies_inside(const std::filesystem::path& file, const std::filesystem::path& dir);

/// A folder the user named for reading: ResultsError "not a folder", or "cannot be read: <why>" where this user may not
/// list or enter it (a folder of mode 600, another user's), so it is never called empty.
void require_readable_folder(const std::filesystem::path& dir);

/// The whole of an input file the user named (or one inside a folder they named): UsageError naming it where
/// it is missing, is a folder or device, or cannot be read, so a folder is never called "invalid JSON".
std::string read_input_file(const std::filesystem::path& path);

/// Writes `text` to `path` through a temporary file and rename, so readers never see half a file.
/// Throws FileWriteError naming the file on an I/O failure, and leaves no temporary file.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// Several files written as one: each into its `.tmp` first, and only when all are whole renamed into place, so a
/// full disk or a folder that refuses one leaves none of them (nor a .tmp). FileWriteError as above. A link to a
/// plain file is written through (the file it leads to is replaced, the link stays); a path where a device, pipe,
/// folder or a link that leads nowhere stands is refused before anything is written (EEXIST: exit 2).
void write_files_together(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

/// Appends `text` (preceded by `header` when the file is new or empty) in one write and fsyncs.
/// Throws UsageError when the file holds something that does not begin with `header` (never
/// appends under another header), FileWriteError naming the file on an I/O failure, after cutting
/// the file back to its old length (no torn line).
void append_durably(const std::filesystem::path& path, const std::string& header, const std::string& text);

/// Opens (creating it with `mode`) `path` close-on-exec, so that no child inherits it, and takes an
/// exclusive flock without waiting: the descriptor, or -1 when another process holds the lock. Throws
/// std::system_error naming the file when it cannot be opened or locked for another reason. The lock
/// goes with the last descriptor, however its holder ends.
int try_lock_file(const std::filesystem::path& path, unsigned mode);

/// Whether another process holds try_lock_file's lock on `path` now: a shared lock tried without waiting (and let go
/// at once); false where the file is missing or cannot be opened.
bool file_is_locked(const std::filesystem::path& path);

/// Replaces a locked file's content in place (ftruncate + pwrite: its flock belongs to the inode, so
/// never by rename). False, with errno set, on failure.
bool rewrite_locked_file(int fd, const std::string& text);

}  // namespace bench_mps::harness
