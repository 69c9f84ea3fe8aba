// Must not build: the report reads results folders and never reaches the sweep (tests/layering/check.sh).
#include "harness/sweep/sweep.hpp"
