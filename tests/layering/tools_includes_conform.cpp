// Must not build: tools sit below conform and advise, which use them (tests/layering/check.sh).
#include "harness/conform/conform.hpp"
