#include "harness/common/csv_table.hpp"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace bench_mps::harness {
namespace {

/// A gzip file's bytes for the CSV reader, unpacked by zlib as they are read.
class GzipSource final : public io::ByteSourceBase {
 public:
  explicit GzipSource(const std::filesystem::path& gz) : name_(gz.string()), file_(gzopen(name_.c_str(), "rb")) {
    if (!file_) throw ResultsError(name_ + ": cannot be opened");
  }
  ~GzipSource() override {
    if (file_) gzclose(file_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  int read(char* buffer, int size) override {
    const int n = gzread(file_, buffer, static_cast<unsigned>(size));
    if (n < 0) {
      int code = 0;
      const char* why = gzerror(file_, &code);
      throw ResultsError(name_ + ": not a readable gzip file (" + std::string(why ? why : "zlib error") + ")");
    }
    return n;
  }

 private:
  std::string name_;
  gzFile file_;
};

}  // namespace

std::filesystem::path packed_csv(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return {};
  std::filesystem::path gz = file;
  gz += ".gz";
  return std::filesystem::is_regular_file(gz, ec) ? gz : std::filesystem::path();
}

bool csv_exists(const std::filesystem::path& file) {
  std::error_code ec;
  return std::filesystem::is_regular_file(file, ec) || !packed_csv(file).empty();
}

std::unique_ptr<io::ByteSourceBase> gzip_source(const std::filesystem::path& gz) {
  return std::make_unique<GzipSource>(gz);
}

std::string read_gzip_text(const std::filesystem::path& gz) {
  GzipSource source(gz);
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = source.read(buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
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
  if (end != cell.c_str() + cell.size() || errno == ERANGE)
    throw ResultsError(where + ": '" + cell.substr(0, 40) + "' is not a number");
  if (!std::isfinite(v)) throw ResultsError(where + ": '" + cell.substr(0, 40) + "' is not a finite number");
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
