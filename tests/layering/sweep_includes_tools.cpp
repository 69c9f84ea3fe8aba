// Must not build: the sweep sits below tools, whose child sweeps run it (tests/layering/check.sh).
#include "harness/tools/child_sweeps.hpp"
