// Must not build: the GPU sampler sits below results, which reads its samples (tests/layering/check.sh).
#include "harness/results/run_record.hpp"
