// Must not build: compare works on results folders, never on the worker pool (tests/layering/check.sh).
#include "harness/sweep/worker_pool.hpp"
