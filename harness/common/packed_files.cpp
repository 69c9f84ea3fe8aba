#include "harness/common/packed_files.hpp"

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"

namespace fs = std::filesystem;

namespace bench_mps::harness {

fs::path packed_copy(const fs::path& file) {
  std::error_code ec;
  if (fs::exists(file, ec)) return {};
  fs::path gz = file;
  gz += ".gz";
  return fs::is_regular_file(gz, ec) ? gz : fs::path();
}

bool exists_or_packed(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) || !packed_copy(file).empty();
}

std::string unpacked_name(const fs::path& file) {
  const std::string name = file.filename().string();
  return file.extension() == ".gz" ? name.substr(0, name.size() - 3) : name;
}

bool packed_beside_plain(const fs::path& path) {
  std::error_code ec;
  return path.extension() == ".gz" && fs::exists(path.parent_path() / unpacked_name(path), ec);
}

GzipReader::GzipReader(const fs::path& gz) : name_(gz.string()), file_(gzopen(name_.c_str(), "rb")) {
  if (!file_) throw ResultsError(name_ + ": cannot be opened");
}

GzipReader::~GzipReader() {
  if (file_) gzclose(file_);
}

int GzipReader::read(char* buffer, int size) {
  const int n = gzread(file_, buffer, static_cast<unsigned>(size));
  int code = Z_OK;
  const char* why = gzerror(file_, &code);
  if (n < 0 || (code != Z_OK && code != Z_STREAM_END))
    throw ResultsError(name_ + ": not a readable gzip file (" + std::string(why && *why ? why : "zlib error") + ")");
  // A stream cut short reads as far as it goes and then ends: zlib says so only here (Z_BUF_ERROR above, or the
  // stream's own end never reached).
  if (n == 0 && !gzeof(file_)) throw ResultsError(name_ + ": not a readable gzip file (it ends before its stream)");
  return n;
}

std::string read_gzip_text(const fs::path& gz) {
  GzipReader source(gz);
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = source.read(buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

std::string read_text_unpacked(const fs::path& file) {
  return file.extension() == ".gz" ? read_gzip_text(file) : read_input_file(file);
}

}  // namespace bench_mps::harness
