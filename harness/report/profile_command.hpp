#pragma once
// `bench_mps profile PATH`: the summary of GPU profiles (a profile-<pid>.json, or every one under a
// folder, e.g. a results folder's profiles/), as --profile-gpu's copies were summarised, with the gap
// distribution behind the burst threshold. docs/PROFILE.md.
#include "harness/report/wing.hpp"

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace bench_mps::harness {

struct GpuProfile;
struct ProfileSummary;
struct ProfileWindow;

struct ProfileArgs {
  std::string path;
  double gap_us = 20;
};

/// Registers the `profile` subcommand on `app`; returns it.
CLI::App* add_profile_command(CLI::App& app, ProfileArgs& args);

/// Prints the summaries; throws UsageError (exit 2) for a path without profiles or a bad profile.
int run_profile(const ProfileArgs& args);

/// One profile's summary as lines of text; `window`: NVML and GPM over its steady part, as the sweep that
/// wrote it recorded them (null: where its steady part lies on CLOCK_MONOTONIC, or why it cannot be placed).
void print_profile_summary(std::ostream& out, const GpuProfile& p, const ProfileSummary& s,
                           const ProfileWindow* window = nullptr);

}  // namespace bench_mps::harness
