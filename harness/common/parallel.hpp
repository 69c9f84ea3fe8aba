#pragma once
// The CPUs this process may use (its affinity mask: `taskset -c 0-3 bench_mps predict ...` keeps it to four), and
// independent pieces of work spread over them. Each piece writes its own slot, so the result is the same, to the
// bit, whatever the number of threads and their order.
#include "harness/common/wing.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace bench_mps::harness {

/// The CPUs the calling thread may run on (sched_getaffinity), ascending; empty where it cannot be read.
std::vector<int> allowed_cpus();

/// How many of them, at least 1.
unsigned usable_cpus();

/// Calls fn(0) .. fn(count - 1), each once, on up to min(count, usable_cpus()) threads of a Boost.Asio
/// thread_pool (in this thread where one would do). Returns once all have ended; the first exception any threw
/// (by index) is then rethrown.
void for_each_index(std::size_t count, const std::function<void(std::size_t)>& fn);

}  // namespace bench_mps::harness
