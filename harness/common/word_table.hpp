#pragma once
// A domain word table: each value of an enum beside the word the results files, meta.json and the
// command line use for it. One table per enum gives both directions (name and parse), so the words
// live in one place (common/run_status.cpp, plan/scenario.cpp).
#include "harness/common/wing.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace bench_mps::harness {

template <class E, std::size_t N>
using WordTable = std::array<std::pair<E, std::string_view>, N>;

/// The word of `value`; nothing for a value the table lacks.
template <class E, std::size_t N>
constexpr std::optional<std::string_view> word_of(const WordTable<E, N>& table, E value) {
  for (const auto& [v, word] : table)
    if (v == value) return word;
  return std::nullopt;
}

/// The value `word` names; nothing for any other word.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const WordTable<E, N>& table, std::string_view word) {
  for (const auto& [v, w] : table)
    if (w == word) return v;
  return std::nullopt;
}

}  // namespace bench_mps::harness
