#pragma once
// report.md for a fault-isolation folder (bench_mps --scenario fault): what became of the victims
// when one of N processes made an illegal memory access, per mode, beside the MPS recovery time.
// The throughput figures of a sweep report would mislead here (dead victims finish early), so this
// report is tables only.
#include "harness/report/wing.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/results/sweep_meta.hpp"

namespace bench_mps::harness {

/// True when meta.json says the folder holds a fault scenario.
bool is_fault_folder(const SweepMeta& meta);

/// The whole report.md of a fault folder; throws ResultsError for a folder it cannot read.
std::string render_fault_report(const std::filesystem::path& dir, const SweepMeta& meta, const std::string& name);

}  // namespace bench_mps::harness
