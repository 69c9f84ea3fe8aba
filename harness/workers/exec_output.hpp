#pragma once
// The exec command's output as the worker reads it: each stream kept in a file up to a cap, and cut
// into lines whose head and tail are kept however long the line is (a 5 MB line of a progress bar or
// a traceback squeezed onto one line: its last words are where the error is).
#include "harness/workers/wing.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>

namespace bench_mps::harness {

/// One line of output: its first and last kLineKeepBytes bytes and its whole length.
class LongLine {
 public:
  static constexpr std::size_t kLineKeepBytes = 4096;
  void add(char c);
  void clear();
  bool empty() const { return size_ == 0; }
  std::uint64_t size() const { return size_; }
  /// Whether bytes between head() and tail() were dropped.
  bool cut() const { return size_ > head_.size() + std::min(tail_.size(), kLineKeepBytes); }
  /// The whole line if it was kept whole, else its first kLineKeepBytes bytes.
  const std::string& head() const { return head_; }
  /// The line's last bytes beyond head() (at most kLineKeepBytes): empty for a short line.
  std::string tail() const;
  /// The line in at most about `keep` bytes: whole, or its first and last keep/2 bytes around a mark
  /// saying how many bytes were left out.
  std::string text(std::size_t keep) const;

 private:
  std::string head_, tail_;
  std::uint64_t size_ = 0;
};

/// One of the command's output streams, kept up to a cap in a file; complete lines go to `on_line`.
class CappedLog {
 public:
  using OnLine = std::function<void(const LongLine&)>;
  /// `path` empty: nothing is written. Throws std::runtime_error if the file cannot be written.
  CappedLog(const std::string& path, std::uint64_t cap, OnLine on_line);
  void add(const char* data, std::size_t n);
  /// The last line, if it had no newline; flushes the file.
  void finish();
  std::uint64_t total() const { return total_; }

 private:
  std::ofstream file_;
  std::uint64_t cap_ = 0, kept_ = 0, total_ = 0;
  bool cut_said_ = false;  ///< the cut line is in the file
  LongLine partial_;
  OnLine on_line_;
};

}  // namespace bench_mps::harness
