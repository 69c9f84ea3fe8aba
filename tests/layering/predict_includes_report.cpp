// Must not build: predict takes its physics from the model wing, not from report (tests/layering/check.sh).
#include "harness/report/report_data.hpp"
