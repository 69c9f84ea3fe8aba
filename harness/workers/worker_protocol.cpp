#include "harness/workers/worker_protocol.hpp"
#include "harness/common/json_text.hpp"

#include <time.h>

#include <cstdio>
#include <optional>

#include "harness/common/format.hpp"

namespace bench_mps::harness {
namespace {

/// An ERROR line's status and message. A first word that names no failure (an older worker's
/// "ERROR <message>", or a worker claiming ok) leaves status `error` and the whole text as the message.
void read_error(const std::string& rest, WorkerMessage& m) {
  const auto space = rest.find(' ');
  const std::optional<RunStatus> status = parse_run_status(rest.substr(0, space));
  const bool named = status && *status != RunStatus::ok;
  m.status = named ? *status : RunStatus::error;
  const std::string message = !named ? rest : space == std::string::npos ? "" : rest.substr(space + 1);
  m.text = message.empty() ? "worker reported an error without a message" : message;
}

}  // namespace

std::string format_ready(const ReadyInfo& r) {
  const nlohmann::json j{{"pid", r.pid},
                         {"sm_count_seen", r.sm_count_seen},
                         {"mps_enabled", r.mps_enabled},
                         {"mem_bytes", r.mem_bytes},
                         {"device", r.device},
                         {"cuda_runtime_version", r.cuda_runtime_version},
                         {"cuda_driver_version", r.cuda_driver_version},
                         {"clock_khz", r.clock_khz},
                         {"instances", r.instances},
                         {"instance_sms", r.instance_sms}};
  return "READY " + json_text(j);
}

std::string format_task(const TaskRecord& t, bool with_instance) {
  return "TASK " + std::to_string(t.start_ns) + " " + std::to_string(t.end_ns) +
         (with_instance ? " " + std::to_string(t.instance) : std::string());
}

std::string format_done(const nlohmann::json& summary) { return "DONE " + json_text(summary); }

std::string format_facts(const nlohmann::json& facts) { return "FACTS " + json_text(facts); }

std::string format_error(const std::string& message, RunStatus status) {
  return "ERROR " + to_string(status) + " " + one_line(message);
}

std::string format_spawned(long pgid) { return "SPAWNED " + std::to_string(pgid); }

WorkerMessage parse_worker_line(const std::string& raw) {
  WorkerMessage m;
  const std::string line = trim(raw);
  m.text = line;
  const auto space = line.find(' ');
  const std::string word = line.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
  try {
    if (word == "TASK") {
      long long start = 0, end = 0;
      int instance = 0;
      char extra = 0;
      const int n = std::sscanf(rest.c_str(), "%lld %lld %d %c", &start, &end, &instance, &extra);
      if ((n == 2 || n == 3) && end >= start && instance >= 0) {
        m.kind = WorkerMessage::Kind::task;
        m.task = {start, end, n == 3 ? instance : 0};
      }
    } else if (word == "SPAWNED") {
      long pgid = 0;
      char extra = 0;
      if (std::sscanf(rest.c_str(), "%ld %c", &pgid, &extra) == 1 && pgid > 1) {
        m.kind = WorkerMessage::Kind::spawned;
        m.spawned_pgid = pgid;
      }
    } else if (word == "READY") {
      const auto j = nlohmann::json::parse(rest);
      ReadyInfo& r = m.ready;
      r.pid = j.at("pid").get<long>();
      r.sm_count_seen = j.at("sm_count_seen").get<int>();
      r.mps_enabled = j.at("mps_enabled").get<bool>();
      r.mem_bytes = j.at("mem_bytes").get<std::uint64_t>();
      r.device = j.value("device", std::string());
      r.cuda_runtime_version = j.value("cuda_runtime_version", 0);
      r.cuda_driver_version = j.value("cuda_driver_version", 0);
      r.clock_khz = j.value("clock_khz", 0);
      r.instances = j.value("instances", 1);
      r.instance_sms = j.value("instance_sms", std::vector<int>{});
      if (r.instances >= 1) m.kind = WorkerMessage::Kind::ready;
    } else if (word == "DONE") {
      m.done = nlohmann::json::parse(rest);
      if (m.done.is_object()) m.kind = WorkerMessage::Kind::done;
    } else if (word == "FACTS") {
      m.done = nlohmann::json::parse(rest);
      if (m.done.is_object()) m.kind = WorkerMessage::Kind::facts;
    } else if (word == "ERROR") {
      m.kind = WorkerMessage::Kind::error;
      read_error(rest, m);
    }
  } catch (const nlohmann::json::exception&) {
    m.kind = WorkerMessage::Kind::unknown;
  }
  return m;
}

}  // namespace bench_mps::harness
