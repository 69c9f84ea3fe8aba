// Must not build: the sweep's plan sits below results, which records its runs (tests/layering/check.sh).
#include "harness/results/results_reader.hpp"
