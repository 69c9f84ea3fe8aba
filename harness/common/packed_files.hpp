#pragma once
// Files committed gzip-packed (scripts/pack_results.py: large CSVs, GPU profiles, copies' printed output): NAME.gz
// stands for NAME where NAME itself is not there. The one rule every reader of a results folder follows, and
// zlib's reading of such a file; errors (ResultsError) name the file.
#include "harness/common/wing.hpp"

#include <zlib.h>

#include <filesystem>
#include <string>

namespace bench_mps::harness {

/// `file` + ".gz" where `file` itself is not there and its packed copy is; empty otherwise.
std::filesystem::path packed_copy(const std::filesystem::path& file);
/// Whether `file` can be read: there, or packed beside it (packed_copy).
bool exists_or_packed(const std::filesystem::path& file);
/// NAME for a packed NAME.gz, the file's own name otherwise.
std::string unpacked_name(const std::filesystem::path& file);
/// Whether `path` is a packed copy whose plain file lies beside it (then the plain one is read, this one skipped).
bool packed_beside_plain(const std::filesystem::path& path);

/// A gzip file read as it unpacks (zlib); a damaged stream throws ResultsError naming it.
class GzipReader {
 public:
  explicit GzipReader(const std::filesystem::path& gz);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;
  /// Up to `size` unpacked bytes into `buffer`; 0 at the end.
  int read(char* buffer, int size);

 private:
  std::string name_;
  gzFile file_;
};

/// The whole unpacked text of a gzip file; errors name it.
std::string read_gzip_text(const std::filesystem::path& gz);
/// The text of `file`, unpacked where its name ends in ".gz" (read_input_file's errors otherwise).
std::string read_text_unpacked(const std::filesystem::path& file);

}  // namespace bench_mps::harness
