#include "harness/common/json_text.hpp"

namespace bench_mps::harness {

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace bench_mps::harness
