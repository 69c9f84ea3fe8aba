// Must not build: conform writes its rows through results and never reaches the report (tests/layering/check.sh).
#include "harness/report/report_fleet_conform.hpp"
