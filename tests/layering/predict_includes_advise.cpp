// Must not build: predict sits below advise (tests/layering/check.sh).
#include "harness/advise/advise.hpp"
