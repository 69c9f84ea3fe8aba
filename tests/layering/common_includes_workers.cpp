// Must not build: common is the bottom wing and reaches no wing above it (tests/layering/check.sh).
#include "harness/workers/workload_kind.hpp"
