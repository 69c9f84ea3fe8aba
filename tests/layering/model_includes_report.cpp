// Must not build: the models sit below report, predict and advise (tests/layering/check.sh).
#include "harness/report/report_data.hpp"
