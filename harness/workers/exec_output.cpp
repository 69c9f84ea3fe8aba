#include "harness/workers/exec_output.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace bench_mps::harness {

void LongLine::add(char c) {
  ++size_;
  if (head_.size() < kLineKeepBytes) {
    head_ += c;
    return;
  }
  tail_ += c;
  if (tail_.size() >= 2 * kLineKeepBytes) tail_.erase(0, tail_.size() - kLineKeepBytes);  // amortised O(1)
}

void LongLine::clear() {
  head_.clear();
  tail_.clear();
  size_ = 0;
}

std::string LongLine::tail() const {
  return tail_.size() > kLineKeepBytes ? tail_.substr(tail_.size() - kLineKeepBytes) : tail_;
}

std::string LongLine::text(std::size_t keep) const {
  const std::string last = tail();
  if (!cut() && head_.size() + last.size() <= keep) return head_ + last;
  const std::size_t half = keep / 2;
  const std::string end = last.size() >= half
                              ? last.substr(last.size() - half)
                              : head_.substr(head_.size() - std::min(head_.size(), half - last.size())) + last;
  const std::uint64_t left_out = size_ - std::min<std::uint64_t>(size_, half + end.size());
  return head_.substr(0, half) + " [... " + std::to_string(left_out) + " bytes left out ...] " + end;
}

CappedLog::CappedLog(const std::string& path, std::uint64_t cap, OnLine on_line)
    : cap_(cap), on_line_(std::move(on_line)) {
  if (!path.empty()) {
    file_.open(path, std::ios::binary | std::ios::trunc);
    if (!file_) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
}

void CappedLog::add(const char* data, std::size_t n) {
  total_ += n;
  if (file_.is_open()) {
    const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(n, cap_ - kept_));
    file_.write(data, static_cast<std::streamsize>(keep));
    kept_ += keep;
    if (keep < n && !cut_said_) {  // said once, where a byte past the cap came (--exec-log-cap 0: the file's one line)
      file_ << (kept_ > 0 ? "\n" : "") << "[bench_mps: output cut here, " << cap_ << " bytes kept]\n";
      cut_said_ = true;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (data[i] == '\n') {
      on_line_(partial_);
      partial_.clear();
    } else {
      partial_.add(data[i]);
    }
  }
}

void CappedLog::finish() {
  if (!partial_.empty()) on_line_(partial_);
  partial_.clear();
  if (file_.is_open()) file_.flush();
}

}  // namespace bench_mps::harness
