#pragma once
// The errors that end bench_mps with a documented exit code (see README: Exit codes).
#include "harness/common/wing.hpp"

#include <stdexcept>

namespace bench_mps::harness {

/// Bad command line or input files: exit 2, nothing written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A results folder or file that cannot be used: exit 2.
class ResultsError : public UsageError {
 public:
  using UsageError::UsageError;
};

/// The machine cannot run what was asked (no GPU, foreign MPS daemon, compute mode): exit 3.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;

}  // namespace bench_mps::harness
