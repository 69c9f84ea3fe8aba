// The usable CPUs and work spread over them: see parallel.hpp.
#include "harness/common/parallel.hpp"

#include <sched.h>

#include <algorithm>
#include <exception>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace bench_mps::harness {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

unsigned usable_cpus() { return static_cast<unsigned>(std::max<std::size_t>(1, allowed_cpus().size())); }

void for_each_index(std::size_t count, const std::function<void(std::size_t)>& fn) {
  const std::size_t threads = std::min<std::size_t>(count, usable_cpus());
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::vector<std::exception_ptr> failed(count);
  {
    boost::asio::thread_pool pool(threads);
    for (std::size_t i = 0; i < count; ++i)
      boost::asio::post(pool, [&fn, &failed, i] {
        try {
          fn(i);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    pool.join();
  }
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace bench_mps::harness
