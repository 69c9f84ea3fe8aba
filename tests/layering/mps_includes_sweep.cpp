// Must not build: the MPS daemon's wing sits below the sweep that drives it (tests/layering/check.sh).
#include "harness/sweep/sweep.hpp"
