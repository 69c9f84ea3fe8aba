#pragma once
// `bench_mps compare A B` on two conform folders: the rows paired by lever, old and new verdict and
// evidence side by side; a lever that went from PASS to FAIL is a REGRESSION (exit 1 under
// --fail-on-regression). See docs/CONFORM.md.
#include "harness/compare/wing.hpp"

#include <string>

#include "harness/results/conform_rows.hpp"

namespace bench_mps::harness {

struct ConformComparison {
  std::string markdown, csv;
  int paired = 0;          ///< levers in both
  int regressions = 0;     ///< PASS -> FAIL
  int unjudged = 0;        ///< levers of base that new lacks or could not judge (ERROR): --fail-on-insufficient
  std::string incomplete;  ///< the sides whose run did not complete ("new: status running"), "" where both did
};

/// Pairs the rows of `base` and `next` by lever id (base's order, then levers only `next` has).
ConformComparison compare_conform(const ConformResults& base, const ConformResults& next, const std::string& base_label,
                                  const std::string& next_label);

}  // namespace bench_mps::harness
