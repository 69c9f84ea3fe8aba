// bench_mps_gate_copy: a CPU stand-in for one copy of a user's CUDA program at the start gate
// (harness/profiler/start_gate.hpp), for the tests: where the injected profiler would hold a real program
// at its gate point, this one calls gate_arrive() itself. Each copy (BENCH_MPS_WORKER_INDEX) does what its
// entry in the lists says:
//   --arrive-ms A0,A1,...   sleep Ai ms, then reach the gate (a copy past the list's end takes the last entry)
//   --die I                 copy I exits 1 instead of reaching the gate (a program that fails in its start-up)
//   --never I               copy I never reaches the gate: it runs --never-ms ms and exits 0 (no CUDA)
//   --short I               copy I starts CUDA (the injected library's gate_attach) but ends before the gate point,
//                           after --never-ms ms (a wait:K past its last host wait); "all": every copy
//   --steps K --step-ms S   after the gate, K steps of S ms, each printed as "step_ms=<ms>"
//   --warmup-steps W        before the gate, W warm-up lines "step_ms=99.000" at once (a program that prints
//                           its warm-up steps before the gate point: they are not the steps N copies share)
// It prints "released_ns=<CLOCK_MONOTONIC>" when the gate let it go. Without BENCH_MPS_GATE_FILE it runs
// the same, never held.
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "harness/profiler/start_gate.hpp"

namespace {

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

void sleep_ms(double ms) {
  const std::int64_t until = now_ns() + static_cast<std::int64_t>(ms * 1e6);
  while (now_ns() < until) ::usleep(1000);
}

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atof(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> arrive{0};
  int die = -1, never = -1, short_copy = -2;  // -1: every copy is short
  double never_ms = 1000, step_ms = 10;
  long steps = 5, warmup_steps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--arrive-ms")
      arrive = numbers(v);
    else if (k == "--die")
      die = std::atoi(v.c_str());
    else if (k == "--never")
      never = std::atoi(v.c_str());
    else if (k == "--short")
      short_copy = v == "all" ? -1 : std::atoi(v.c_str());
    else if (k == "--never-ms")
      never_ms = std::atof(v.c_str());
    else if (k == "--steps")
      steps = std::atol(v.c_str());
    else if (k == "--step-ms")
      step_ms = std::atof(v.c_str());
    else if (k == "--warmup-steps")
      warmup_steps = std::atol(v.c_str());
    else {
      std::fprintf(stderr, "bench_mps_gate_copy: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const char* index_text = std::getenv("BENCH_MPS_WORKER_INDEX");
  const int index = index_text ? std::atoi(index_text) : 0;
  const char* gate = std::getenv(bench_mps::profiler::kGateFileVar);
  sleep_ms(arrive[std::min(static_cast<std::size_t>(index), arrive.size() - 1)]);
  if (index == die) {
    std::fprintf(stderr, "copy %d: failed before the gate\n", index);
    return 1;
  }
  if (index == never) {
    sleep_ms(never_ms);
    return 0;
  }
  if (short_copy == -1 || index == short_copy) {
    if (gate && *gate) bench_mps::profiler::gate_attach(gate, index);
    sleep_ms(never_ms);
    return 0;
  }
  for (long s = 0; s < warmup_steps; ++s) {
    std::printf("step_ms=99.000\n");
    std::fflush(stdout);
    sleep_ms(2);
  }
  if (gate && *gate) {
    const std::string why = bench_mps::profiler::gate_arrive(gate, index);
    if (!why.empty()) std::fprintf(stderr, "copy %d: %s\n", index, why.c_str());
  }
  std::printf("released_ns=%lld\n", static_cast<long long>(now_ns()));
  std::fflush(stdout);
  for (long s = 0; s < steps; ++s) {
    const std::int64_t t0 = now_ns();
    sleep_ms(step_ms);
    std::printf("step_ms=%.3f\n", static_cast<double>(now_ns() - t0) * 1e-6);
    std::fflush(stdout);
  }
  return 0;
}
