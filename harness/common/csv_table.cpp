#include "harness/common/csv_table.hpp"

#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "harness/common/files.hpp"

namespace bench_mps::harness {
namespace {

/// A gzip file's bytes for the CSV reader, unpacked by zlib as they are read.
class GzipSource final : public io::ByteSourceBase {
 public:
  explicit GzipSource(const std::filesystem::path& gz) : reader_(gz) {}
  int read(char* buffer, int size) override { return reader_.read(buffer, size); }

 private:
  GzipReader reader_;
};

/// A plain file's bytes for the CSV reader.
class FileSource final : public io::ByteSourceBase {
 public:
  explicit FileSource(const std::filesystem::path& file) : file_(std::fopen(file.c_str(), "rb")) {
    if (!file_) throw ResultsError(file.string() + ": " + not_a_readable_file_why(file));
  }
  ~FileSource() override { std::fclose(file_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  int read(char* buffer, int size) override {
    const std::size_t n = std::fread(buffer, 1, static_cast<std::size_t>(size), file_);
    if (n == 0 && std::ferror(file_)) throw io::error::can_not_open_file();
    return static_cast<int>(n);
  }

 private:
  std::FILE* file_;
};

/// Another source's bytes, its last byte kept.
class LastByteSource final : public io::ByteSourceBase {
 public:
  LastByteSource(std::unique_ptr<io::ByteSourceBase> inner, std::shared_ptr<int> last)
      : inner_(std::move(inner)), last_(std::move(last)) {}
  int read(char* buffer, int size) override {
    const int n = inner_->read(buffer, size);
    if (n > 0) *last_ = static_cast<unsigned char>(buffer[n - 1]);
    return n;
  }

 private:
  std::unique_ptr<io::ByteSourceBase> inner_;
  std::shared_ptr<int> last_;
};

}  // namespace

std::unique_ptr<io::ByteSourceBase> tracked_source(const std::filesystem::path& file, bool gzip,
                                                   std::shared_ptr<int> last_byte) {
  std::unique_ptr<io::ByteSourceBase> inner =
      gzip ? gzip_source(file) : std::unique_ptr<io::ByteSourceBase>(std::make_unique<FileSource>(file));
  return std::make_unique<LastByteSource>(std::move(inner), std::move(last_byte));
}

std::unique_ptr<io::ByteSourceBase> gzip_source(const std::filesystem::path& gz) {
  return std::make_unique<GzipSource>(gz);
}

std::string csv_error_text(const std::string& what) {
  if (what.rfind("Header missing", 0) == 0) return "no header line (an empty file)";
  std::string text = what;
  const std::size_t in_file = text.find(" in file \"");
  if (in_file != std::string::npos) text.erase(in_file);
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  // The parser's words for a quote left open, and "line -1" for its header line (it counts lines from the first row).
  if (const std::size_t at = text.find("Escaped string was not closed"); at != std::string::npos)
    text.replace(at, std::string("Escaped string was not closed").size(), "a quoted cell is not closed");
  if (const std::size_t at = text.find(" in line -1"); at != std::string::npos)
    text.replace(at, std::string(" in line -1").size(), " in the header line (not a CSV file bench_mps wrote?)");
  return text;
}

double parse_cell_double(const std::string& cell, const std::string& where, bool allow_empty) {
  if (cell.empty()) {
    if (allow_empty) return std::numeric_limits<double>::quiet_NaN();
    throw ResultsError(where + ": empty cell where a number belongs");
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  // strtod reads hexadecimal too ("0x10" as 16); bench_mps writes decimal numbers only.
  if (end != cell.c_str() + cell.size() || cell.find_first_of("xX") != std::string::npos)
    throw ResultsError(where + ": '" + cell.substr(0, 40) + "' is not a number");
  // ERANGE: past a double's range (HUGE_VAL), or below its normal numbers (1e-320: read as the tiny number it is).
  if ((errno == ERANGE && std::fabs(v) > 1) || !std::isfinite(v))
    throw ResultsError(where + ": '" + cell.substr(0, 40) + "' is not a finite number");
  return v;
}

long parse_cell_long(const std::string& cell, const std::string& where) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(cell.c_str(), &end, 10);
  if (cell.empty() || end != cell.c_str() + cell.size() || errno == ERANGE)
    throw ResultsError(where + ": '" + cell.substr(0, 40) + "' is not an integer");
  return v;
}

}  // namespace bench_mps::harness
