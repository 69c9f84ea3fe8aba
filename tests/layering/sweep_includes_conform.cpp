// Must not build: the sweep sits below conform, whose child sweeps run it (tests/layering/check.sh).
#include "harness/conform/conform.hpp"
