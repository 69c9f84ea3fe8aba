// Must not build: results sits below the report (tests/layering/check.sh).
#include "harness/report/report.hpp"
