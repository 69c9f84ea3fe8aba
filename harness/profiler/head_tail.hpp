#pragma once
// A bounded record of a long sequence: its first `head` items and a ring of its last `tail`, every
// item counted. The profiler keeps its busy spans and its host waits in one each, so the profile
// stays small whatever the program's length. Standard C++ only: the injected library includes it.
#include "harness/profiler/wing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench_mps::profiler {

template <typename T>
class HeadTail {
 public:
  HeadTail(std::size_t head, std::size_t tail) : head_limit_(head), tail_limit_(tail) {
    head_.reserve(std::min<std::size_t>(head_limit_, 1024));
  }

  void push(const T& item) {
    ++count_;
    if (head_.size() < head_limit_) {
      head_.push_back(item);
    } else if (tail_limit_ > 0) {
      if (tail_.size() < tail_limit_) {
        tail_.push_back(item);
      } else {
        tail_[tail_next_] = item;
        tail_next_ = (tail_next_ + 1) % tail_.size();
      }
    }
  }

  std::uint64_t count() const { return count_; }  ///< every item pushed, kept or not
  std::size_t kept_head() const { return head_.size(); }
  std::size_t kept_tail() const { return tail_.size(); }

  /// The kept items in the order pushed: the head, then the ring from its oldest entry.
  template <typename F>
  void for_each(F f) const {
    for (const T& item : head_) f(item);
    for (std::size_t i = 0; i < tail_.size(); ++i) f(tail_[(tail_next_ + i) % tail_.size()]);
  }

 private:
  std::size_t head_limit_, tail_limit_;
  std::vector<T> head_, tail_;  ///< tail_ a ring once full, its oldest at tail_next_
  std::size_t tail_next_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace bench_mps::profiler
