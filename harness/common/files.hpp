#pragma once
// The one place files are read whole, replaced atomically or appended durably.
#include "harness/common/wing.hpp"

#include <filesystem>
#include <string>

namespace bench_mps::harness {

/// The whole file as bytes; "" when it does not exist or cannot be read (callers that must tell
/// those apart check existence first).
std::string read_whole_file(const std::filesystem::path& path);

/// Writes `text` to `path` through a temporary file and rename, so readers never see half a file.
/// Throws std::runtime_error naming the file on an I/O failure.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// Appends `text` (preceded by `header` when the file is new or empty) in one write and fsyncs.
/// Throws std::runtime_error naming the file on an I/O failure.
void append_durably(const std::filesystem::path& path, const std::string& header, const std::string& text);

}  // namespace bench_mps::harness
