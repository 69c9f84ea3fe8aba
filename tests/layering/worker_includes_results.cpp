// Must not build: bench_worker links only workers, kernels and common (tests/layering/check.sh).
#include "harness/results/results_writer.hpp"
