#include "harness/results/sweep_meta.hpp"

#include <type_traits>

namespace bench_mps::harness {

const char* sweep_status_name(SweepStatus status) {
  switch (status) {
    case SweepStatus::running:
      return "running";
    case SweepStatus::complete:
      return "complete";
    case SweepStatus::failed:
      return "failed";
    case SweepStatus::interrupted:
      return "interrupted";
    case SweepStatus::environment_error:
      return "environment_error";
  }
  return "running";
}

std::optional<SweepStatus> sweep_status_of_name(const std::string& name) {
  for (const SweepStatus k : {SweepStatus::running, SweepStatus::complete, SweepStatus::failed,
                              SweepStatus::interrupted, SweepStatus::environment_error})
    if (name == sweep_status_name(k)) return k;
  return std::nullopt;
}

namespace {

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_map : std::false_type {};
template <class T>
struct is_map<std::map<std::string, T>> : std::true_type {};

/// Whether `v` has the type a member of type T holds (numbers: whole ones only, so a value read and
/// written again dumps the same).
template <class T>
bool fits(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean();
  } else if constexpr (std::is_integral_v<T>) {
    return v.is_number_integer();
  } else if constexpr (std::is_same_v<T, nlohmann::json>) {
    return !v.is_null();
  } else if constexpr (is_vector<T>::value) {
    if (!v.is_array()) return false;
    for (const auto& e : v)
      if (!fits<typename T::value_type>(e)) return false;
    return true;
  } else if constexpr (is_map<T>::value) {
    if (!v.is_object()) return false;
    for (const auto& e : v)
      if (!fits<typename T::mapped_type>(e)) return false;
    return true;
  } else {
    return v.is_object();  // a section of its own
  }
}

/// Moves `key` from `rest` into `member` where its value fits; leaves it in `rest` otherwise.
struct Take {
  nlohmann::json& rest;
  template <class T>
  void operator()(const char* key, std::optional<T>& member) const {
    member.reset();
    const auto it = rest.find(key);
    if (it == rest.end() || !fits<T>(*it)) return;
    member = it->template get<T>();
    rest.erase(it);
  }
};

/// Puts a member that holds a value over `out`.
struct Put {
  nlohmann::json& out;
  template <class T>
  void operator()(const char* key, const std::optional<T>& member) const {
    if (member) out[key] = *member;
  }
};

// Each section's members and their keys, listed once for reading and writing.
template <class T>
struct Fields;

template <>
struct Fields<GpuMeta> {
  template <class M, class F>
  static void each(M& m, F&& f) {
    f("sm_count", m.sm_count);
    f("cuda_runtime_version", m.cuda_runtime_version);
    f("sm_clock_peak_khz", m.sm_clock_peak_khz);
    f("footprint_bytes", m.footprint_bytes);
    f("conditions_start", m.conditions_start);
    f("conditions_end", m.conditions_end);
    f("gpm", m.gpm);
  }
};

template <>
struct Fields<ModeMeta> {
  template <class M, class F>
  static void each(M& m, F&& f) {
    f("name", m.name);
    f("server_pids", m.server_pids);
  }
};

template <>
struct Fields<MpsMeta> {
  template <class M, class F>
  static void each(M& m, F&& f) {
    f("modes", m.modes);
    f("external", m.external);
  }
};

template <>
struct Fields<SweepSection> {
  template <class M, class F>
  static void each(M& m, F&& f) {
    f("scenario", m.scenario);
    f("procs", m.procs);
    f("workloads", m.workloads);
    f("repeats", m.repeats);
    f("max_repeats", m.max_repeats);
    f("demo", m.demo);
    f("cpu_stand_in", m.cpu_stand_in);
    f("params", m.params);
  }
};

template <>
struct Fields<SweepMeta> {
  template <class M, class F>
  static void each(M& m, F&& f) {
    f("schema_version", m.schema_version);
    f("argv", m.argv);
    f("status", m.status);
    f("started_utc", m.started_utc);
    f("finished_utc", m.finished_utc);
    f("resumed_utc", m.resumed_utc);
    f("resumes", m.resumes);
    f("runs_recorded", m.runs_recorded);
    f("runs_failed", m.runs_failed);
    f("stop_reason", m.stop_reason);
    f("monitor_error", m.monitor_error);
    f("gpu", m.gpu);
    f("mps", m.mps);
    f("sweep", m.sweep);
    f("cpus", m.cpus);
    f("device", m.device);
    f("timing", m.timing);
    f("noise", m.noise);
    f("xray", m.xray);
    f("exec_slow_first_runs", m.exec_slow_first_runs);
    f("gpu_profile", m.gpu_profile);
    f("exec_warmup_runs", m.exec_warmup_runs);
    f("exec_gate", m.exec_gate);
  }
};

// Reading: `j` whole into m.other, then each listed key that fits out of it into its member (a `j` that
// is no object stays whole in m.other). Writing: m.other, then every member that holds a value over it.
template <class T>
void read_fields(const nlohmann::json& j, T& m) {
  m.other = j;
  if (j.is_object()) Fields<T>::each(m, Take{m.other});
}

template <class T>
void write_fields(nlohmann::json& j, const T& m) {
  j = m.other;
  Fields<T>::each(m, Put{j});
}

/// What a member of type T holds, in words ("a whole number", "a list of strings").
template <class T>
std::string kind_words() {
  if constexpr (std::is_same_v<T, std::string>) {
    return "a string";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "true or false";
  } else if constexpr (std::is_integral_v<T>) {
    return "a whole number";
  } else if constexpr (std::is_same_v<T, nlohmann::json>) {
    return "a value";
  } else if constexpr (is_vector<T>::value) {
    return "a list, each " + kind_words<typename T::value_type>();
  } else if constexpr (is_map<T>::value) {
    return "an object, each value " + kind_words<typename T::mapped_type>();
  } else {
    return "an object";
  }
}

/// Finds the first key of a section whose value is neither null nor of its member's type, sections within included.
struct Misfit {
  const nlohmann::json& j;
  std::string prefix;
  std::string& found;
  template <class T>
  void operator()(const char* key, const std::optional<T>& /*member*/) const {
    const auto it = j.find(key);
    if (!found.empty() || it == j.end() || it->is_null()) return;
    if (!fits<T>(*it)) {
      const std::string text = it->dump();
      found =
          prefix + key + " is " + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + ", not " + kind_words<T>();
    } else if constexpr (is_vector<T>::value) {
      if constexpr (std::is_class_v<typename T::value_type> &&
                    !std::is_same_v<typename T::value_type, std::string>)  // sections in a list: mps.modes
        for (std::size_t i = 0; i < it->size() && found.empty(); ++i) {
          const typename T::value_type none{};
          Fields<typename T::value_type>::each(none,
                                               Misfit{(*it)[i], prefix + key + "[" + std::to_string(i) + "].", found});
        }
    } else if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string> && !std::is_same_v<T, nlohmann::json> &&
                         !is_map<T>::value) {
      const T none{};
      Fields<T>::each(none, Misfit{*it, prefix + key + ".", found});
    }
  }
};

}  // namespace

std::string meta_misfit(const nlohmann::json& meta) {
  std::string found;
  const SweepMeta none{};
  if (meta.is_object()) Fields<SweepMeta>::each(none, Misfit{meta, "", found});
  return found;
}

void to_json(nlohmann::json& j, const GpuMeta& m) { write_fields(j, m); }
void from_json(const nlohmann::json& j, GpuMeta& m) { read_fields(j, m); }
void to_json(nlohmann::json& j, const ModeMeta& m) { write_fields(j, m); }
void from_json(const nlohmann::json& j, ModeMeta& m) { read_fields(j, m); }
void to_json(nlohmann::json& j, const MpsMeta& m) { write_fields(j, m); }
void from_json(const nlohmann::json& j, MpsMeta& m) { read_fields(j, m); }
void to_json(nlohmann::json& j, const SweepSection& m) { write_fields(j, m); }
void from_json(const nlohmann::json& j, SweepSection& m) { read_fields(j, m); }
void to_json(nlohmann::json& j, const SweepMeta& m) { write_fields(j, m); }
void from_json(const nlohmann::json& j, SweepMeta& m) { read_fields(j, m); }

std::optional<Scenario> meta_scenario(const SweepMeta& meta) {
  if (!meta.sweep) return Scenario::sweep;
  if (meta.sweep->scenario) return parse_scenario(*meta.sweep->scenario);
  const auto word = meta.sweep->other.find("scenario");
  if (word == meta.sweep->other.end() || word->is_null()) return Scenario::sweep;
  return parse_scenario(word->get<std::string>());  // a number or a list: throws; the caller names the file
}

}  // namespace bench_mps::harness
