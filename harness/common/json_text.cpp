#include "harness/common/json_text.hpp"

#include <cmath>

namespace bench_mps::harness {

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json interval_json(const RatioInterval& r) {
  return {{"ratio", json_number(r.ratio)}, {"lo", json_number(r.lo)}, {"hi", json_number(r.hi)}};
}

}  // namespace bench_mps::harness
