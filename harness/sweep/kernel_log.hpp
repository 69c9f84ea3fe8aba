#pragma once
// The driver's own account of a fault: NVIDIA's Xid messages in the kernel log (dmesg), read before
// and after a fault run so that the run records the ones it caused. The kernel log is often not
// readable without root (kernel.dmesg_restrict); then the run says so instead.
#include "harness/sweep/wing.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace bench_mps::harness {

struct XidLines {
  bool readable = false;
  std::string why_not;             ///< when not readable: dmesg's complaint, or that there is no dmesg
  std::vector<std::string> lines;  ///< kernel log lines with "NVRM: Xid", oldest first
};

/// The Xid lines of the kernel log now (dmesg, 10 s at most; scratch files go to `scratch_dir`).
XidLines read_xid_lines(const std::filesystem::path& scratch_dir);

/// What to record for a run: the Xid lines in `after` but not in `before` ("; "-joined), "none in the
/// kernel log", or "kernel log not readable: <why>".
std::string new_driver_messages(const XidLines& before, const XidLines& after);

}  // namespace bench_mps::harness
