// Must not build: the simulator is pure arithmetic on common alone, below results (tests/layering/check.sh).
#include "harness/results/gpu_profile.hpp"
