#pragma once
// Reads named columns of a CSV file with fast-cpp-csv-parser (Debian's libfccp-dev): quoted cells,
// columns in any order, unknown extra columns ignored; a file committed gzip-packed (NAME.csv.gz, where
// NAME.csv is not there) read as it is unpacked. Any defect (missing file or column, a torn or garbage
// line, a damaged gzip stream) throws ResultsError naming the file, and the line where there is one.
#include "harness/common/wing.hpp"

#include <array>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// csv.h copies file names with strncpy into a fixed buffer, which GCC flags once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
#else
#include <libfccp/csv.h>
#endif

#include "harness/common/errors.hpp"
#include "harness/common/files.hpp"  // not_a_readable_file_why
#include "harness/common/packed_files.hpp"

namespace bench_mps::harness {

template <std::size_t N>
using CsvRows = std::vector<std::array<std::string, N>>;

namespace detail {
template <std::size_t N, typename Reader, std::size_t... I>
void read_all(Reader& in, const std::filesystem::path& file, const std::array<const char*, N>& columns,
              const std::array<bool, N>& optional, CsvRows<N>& rows, std::index_sequence<I...>) {
  in.read_header(io::ignore_extra_column | io::ignore_missing_column, columns[I]...);
  for (std::size_t i = 0; i < N; ++i)
    if (!optional[i] && !in.has_column(columns[i]))
      throw ResultsError(file.string() + ": Missing column \"" + columns[i] + "\"");
  std::array<std::string, N> row;
  while (in.read_row(row[I]...)) rows.push_back(row);  // a missing optional column's cell stays ""
}
}  // namespace detail

/// The CSV reader's message without the file it names again (the caller names it first), e.g. "Too few columns in
/// line 8"; "no header line (an empty file)" for a file without one.
std::string csv_error_text(const std::string& what);

/// Every row of `file`, the cells of `columns` in that order. A column marked optional may be absent
/// (a file written before the column existed): its cells are then empty.
/// The bytes of a gzip file as the CSV reader takes them, decompressed as they are read (zlib); errors name it.
std::unique_ptr<io::ByteSourceBase> gzip_source(const std::filesystem::path& gz);

/// The bytes of `file` for the CSV reader (unpacked by zlib where `gzip`), the last byte read kept in `last_byte`
/// (-1: none yet): a file whose last line has no line end was cut short, which the reader alone takes as a row.
std::unique_ptr<io::ByteSourceBase> tracked_source(const std::filesystem::path& file, bool gzip,
                                                   std::shared_ptr<int> last_byte);

/// Every row of `file` (or, where only its packed copy is there, of `file`.gz: packed_copy), the cells of
/// `columns` in that order. A column marked optional may be absent (a file written before the column
/// existed): its cells are then empty. A file whose last line has no line end (cut short) is refused.
template <std::size_t N>
CsvRows<N> read_csv_columns(const std::filesystem::path& file, const std::array<const char*, N>& columns,
                            const std::array<bool, N>& optional = {}) {
  CsvRows<N> rows;
  std::error_code ec;
  const std::filesystem::path packed = packed_copy(file);
  const std::filesystem::path& source = packed.empty() ? file : packed;
  if (packed.empty() && !std::filesystem::is_regular_file(file, ec))
    throw ResultsError(file.string() + ": " + not_a_readable_file_why(file));
  try {
    using Reader = io::CSVReader<N, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>>;
    const auto last_byte = std::make_shared<int>(-1);
    Reader in(source.string(), tracked_source(source, !packed.empty(), last_byte));
    detail::read_all<N>(in, source, columns, optional, rows, std::make_index_sequence<N>{});
    // The reader takes a last line without its line end as a whole row: a number cut inside it reads as another.
    if (*last_byte != '\n') throw ResultsError(source.string() + ": its last line has no line end (a file cut short)");
  } catch (const io::error::base& e) {
    throw ResultsError(source.string() + ": " + csv_error_text(e.what()));
  }
  return rows;
}

/// Strict number parsing for CSV cells: "" gives NaN when allow_empty, anything unparsable throws.
double parse_cell_double(const std::string& cell, const std::string& where, bool allow_empty = true);
long parse_cell_long(const std::string& cell, const std::string& where);

}  // namespace bench_mps::harness
