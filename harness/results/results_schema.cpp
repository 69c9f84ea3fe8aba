#include "harness/results/results_schema.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "harness/common/csv_table.hpp"
#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

std::string num(double v) { return fmt_num(v, 7); }
std::string whole(long long v) { return std::to_string(v); }
template <class T>
std::string opt(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "";
}

/// A configuration column, written from the run's RunSpec and read into any record with the config.
using ConfigColumn = Column<RunSpec, RunConfig>;

const std::vector<ConfigColumn>& config_schema() {
  static const std::vector<ConfigColumn> cols{
      {"run_id", "", "the run's identity in the folder, e.g. `r2-mps:50-spin-n4` (repeat, mode, workload, N)",
       [](const RunSpec& s) { return s.run_id(); },
       [](RunConfig& r, const Cell& c) {
         if (c.text.empty()) throw ResultsError(c.at + ": empty run_id");
         r.run_id = c.text;
       }},
      {"repeat", "", "1..", [](const RunSpec& s) { return whole(s.repeat); },
       [](RunConfig& r, const Cell& c) { r.repeat = static_cast<int>(c.whole()); }},
      {"workload", "", "`spin`, `mlp`, `exec` (`cpu` in tests)", [](const RunSpec& s) { return s.workload; },
       [](RunConfig& r, const Cell& c) { r.workload = c.text; }},
      {"params", "",
       "canonical parameters, e.g. `blocks=4;threads=256;launch_us=100;launches=100`; mlp's start with "
       "`profile=gpu-bound` or `profile=seed001` (rows written before profiles existed are read as "
       "`profile=gpu-bound`); exec's end with `command=<the command>` (after `metric=<regex>` and `check=<regex>` "
       "where given)",
       [](const RunSpec& s) { return s.params; },
       [](RunConfig& r, const Cell& c) {  // after workload: older mlp rows hold the gpu-bound step
         r.params = r.workload == "mlp" && c.text.rfind("profile=", 0) != 0 ? "profile=gpu-bound;" + c.text : c.text;
       }},
      {"mode", "",
       "`timeslice`; `mps`, `mps:<percent>`, `mps:auto`, `mps:<p0>/<p1>/...` with `+prio`, `+mem=...`; `streams`, "
       "`threads`, `green` (N instances in one process)",
       [](const RunSpec& s) { return s.mode.name; }, [](RunConfig& r, const Cell& c) { r.mode = c.text; }},
      {"active_thread_pct", "%",
       "MPS modes: the percent every client ran with (100 for `mps`, 100/N for `mps:auto`), empty when the clients' "
       "differ (runs.csv has each) and when not under MPS",
       [](const RunSpec& s) {
         if (!s.mode.mps) return std::string();
         const int pct = s.mode.uniform_active_thread_pct(s.procs);
         return pct < 0 ? std::string() : whole(pct ? pct : 100);
       },
       [](RunConfig& r, const Cell& c) {  // after mode: a percentage beside a mode not under MPS is damage
         r.active_thread_pct = c.text.empty() ? 0 : c.percent();
         const std::optional<Mode> mode = mode_in_results(r.mode);  // external-mps too; an unknown name: elsewhere
         if (r.active_thread_pct && mode && !mode->mps)
           throw ResultsError(c.at + ": " + c.text + " beside mode " + r.mode.substr(0, 40) +
                              ", which is not under MPS (empty there)");
       }},
      {"procs", "", "N, worker processes sharing the GPU", [](const RunSpec& s) { return whole(s.procs); },
       [](RunConfig& r, const Cell& c) {
         r.procs = static_cast<int>(c.whole());
         if (r.procs <= 0) throw ResultsError(c.at + ": '" + c.text + "' is not a positive integer");
         if (r.repeat <= 0) throw ResultsError(c.at + ": procs and repeat must be positive");
       }},
  };
  return cols;
}

/// The configuration columns as columns of a file whose rows hold a RunSpec at `spec_of`.
template <class In, class Out>
std::vector<Column<In, Out>> config_part(std::function<const RunSpec&(const In&)> spec_of) {
  std::vector<Column<In, Out>> out;
  for (const ConfigColumn& c : config_schema())
    out.push_back({c.name, c.unit, c.meaning, [spec_of, w = c.write](const In& in) { return w(spec_of(in)); },
                   [r = c.read](Out& o, const Cell& cell) { r(o, cell); }});
  return out;
}

template <class T>
std::vector<T> joined(std::vector<T> head, const std::vector<T>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

using S = Column<RunRecord, SummaryRecord>;
using W = Column<WorkerCells, WorkerRecord>;
using T = Column<TaskCells, TaskSample>;
using G = Column<SampleCells, NoRecord>;

/// A summary column: the number at `field` of the run's SummaryRow, read back as a number >= 0 into
/// the same field of the record.
S summary_real(const char* name, const char* unit, const char* meaning, double SummaryRow::*field) {
  const bool ratio = std::string(unit) == "x";  // a ratio of two measurements: bounded (Cell::ratio)
  return {name, unit, meaning, [field](const RunRecord& r) { return num(r.summary.*field); },
          [field, ratio](SummaryRecord& o, const Cell& c) { o.*field = ratio ? c.ratio() : c.real(); }};
}

/// A summary column newer than the first results folders: readable, empty (NaN) where a file lacks it.
S summary_newer(const char* name, const char* unit, const char* meaning, double SummaryRow::*field) {
  S c = summary_real(name, unit, meaning, field);
  c.optional = true;
  return c;
}

/// A newer column whose value may be below zero: a difference of two measurements (a switch cost, a
/// wait) that noise can push past zero.
S summary_difference(const char* name, const char* unit, const char* meaning, double SummaryRow::*field) {
  S c = summary_newer(name, unit, meaning, field);
  c.read = [field](SummaryRecord& o, const Cell& cell) { o.*field = cell.text.empty() ? NAN : cell.any_real(); };
  return c;
}

/// A text column, read back whole (optional: the report reads it where a file has it).
S summary_text(const char* name, const char* meaning, std::string SummaryRow::*field) {
  S c{name, "", meaning, [field](const RunRecord& r) { return r.summary.*field; },
      [field](SummaryRecord& o, const Cell& cell) { o.*field = cell.text; }};
  c.optional = true;
  return c;
}

/// A count column, written only where `written` holds for the run; read back as 0 where empty.
S summary_count(const char* name, const char* meaning, int SummaryRow::*field, bool (*written)(const RunRecord&)) {
  S c{name, "", meaning, [field, written](const RunRecord& r) { return written(r) ? whole(r.summary.*field) : ""; },
      [field](SummaryRecord& o, const Cell& cell) {
        o.*field = cell.text.empty() ? 0 : static_cast<int>(cell.whole());
      }};
  c.optional = true;
  return c;
}

bool fault_run(const RunRecord& r) { return r.spec.scenario == RunKind::fault; }
bool has_set(const RunRecord& r) { return r.summary.worker_set > 0; }

}  // namespace

double Cell::real() const {
  const double v = parse_cell_double(text, at);
  if (v < 0) throw ResultsError(at + ": " + text + " is negative");
  return v;
}
double Cell::ratio() const {
  const double v = real();
  if (v > 1e6) throw ResultsError(at + ": " + text + " is no ratio of two measurements (over 1e6)");
  return v;
}
double Cell::any_real() const { return parse_cell_double(text, at); }
long Cell::whole() const {
  const long v = parse_cell_long(text, at);
  if (v < 0) throw ResultsError(at + ": " + text + " is negative");  // every whole-number column is a count or an id
  return v;
}

int Cell::percent() const {
  const long v = whole();
  if (v < 1 || v > 100) throw ResultsError(at + ": " + text + " is no percentage of the SMs (1 to 100)");
  return static_cast<int>(v);
}

double Cell::length() const {
  if (text.empty()) throw ResultsError(at + ": empty cell where a number belongs");
  return real();
}
RunStatus Cell::status() const {
  if (text.empty()) throw ResultsError(at + ": empty status");
  const std::optional<RunStatus> status = parse_run_status(text);
  if (!status) throw ResultsError(at + ": unknown status '" + text.substr(0, 40) + "'");
  return *status;
}

RunConfig run_config(const RunSpec& spec) {
  RunConfig config;
  const std::string at = "run " + spec.run_id();
  for (const ConfigColumn& column : config_schema()) {
    const std::string text = column.write(spec);
    column.read(config, Cell{text, at});
  }
  return config;
}

SummaryRecord summary_record(const RunRecord& run) {
  SummaryRecord record;
  static_cast<RunConfig&>(record) = run_config(run.spec);
  static_cast<SummaryRow&>(record) = run.summary;
  record.scenario = run.spec.scenario;
  return record;
}

const std::vector<Column<RunRecord, SummaryRecord>>& summary_schema() {
  static const std::vector<S> cols = joined(
      config_part<RunRecord, SummaryRecord>([](const RunRecord& r) -> const RunSpec& { return r.spec; }),
      std::vector<S>{
          {"status", "",
           "`ok`, or what went wrong first (`error`, `crashed`, `timeout`, `aborted`, `mode_mismatch`, `mps_error`; "
           "exec: `exec_not_found`, `exec_failed`, `exec_timeout`, `exec_left_children`, `mps_unproven`)",
           [](const RunRecord& r) { return to_string(r.summary.status); },
           [](SummaryRecord& o, const Cell& c) { o.status = c.status(); }},
          {"reason", "", "why, when status is not `ok`", [](const RunRecord& r) { return r.summary.reason; },
           [](SummaryRecord& o, const Cell& c) { o.reason = c.text; }},
          {"workers_ok", "", "workers that finished cleanly",
           [](const RunRecord& r) { return whole(r.summary.workers_ok); },
           [](SummaryRecord& o, const Cell& c) { o.workers_ok = static_cast<int>(c.whole()); }},
          {"tasks_total", "", "timed tasks of all workers",
           [](const RunRecord& r) { return whole(r.summary.tasks_total); },
           [](SummaryRecord& o, const Cell& c) { o.tasks_total = c.whole(); }},
          summary_real("makespan_s", "s",
                       "start of the first task to the end of the last task (after GO, the start barrier; how fast a "
                       "worker wakes up to GO stays out)",
                       &SummaryRow::makespan_s),
          summary_real("throughput_tasks_per_s", "1/s", "tasks_total / makespan_s: the aggregate throughput",
                       &SummaryRow::throughput_tasks_per_s),
          summary_real("task_mean_ms", "ms", "mean over every task of every worker", &SummaryRow::task_mean_ms),
          summary_real("task_p50_ms", "ms", "median over every task of every worker", &SummaryRow::task_p50_ms),
          summary_real("task_p99_ms", "ms", "99th percentile over every task of every worker",
                       &SummaryRow::task_p99_ms),
          summary_real("slowdown_vs_alone", "x",
                       "task_mean_ms / task_mean_ms of the N=1 run of the same workload, mode and repeat",
                       &SummaryRow::slowdown_vs_alone),
          summary_real("jain_fairness", "", "Jain's index over the workers' throughputs: 1 = perfectly even",
                       &SummaryRow::jain_fairness),
          summary_real("gpu_util_mean", "fraction",
                       "NVML utilisation over the timed window (first task start to last task end): the mean of "
                       "the samples whose sampling period lies inside it; empty when the run is shorter than one "
                       "period (see gpu_util_source)",
                       &SummaryRow::gpu_util_mean),
          summary_real("sm_clock_mean_mhz", "MHz", "NVML SM clock, mean of the 100 ms samples in the timed window",
                       &SummaryRow::sm_clock_mean_mhz),
          summary_real("power_mean_w", "W", "NVML board power, mean of the 100 ms samples in the timed window",
                       &SummaryRow::power_mean_w),
          {"mem_used_max_bytes", "bytes", "NVML device memory used, the largest 100 ms sample in the timed window",
           [](const RunRecord& r) {
             return r.summary.mem_used_max_bytes ? whole(static_cast<long long>(r.summary.mem_used_max_bytes)) : "";
           },
           [](SummaryRecord& o, const Cell& c) {
             const double bytes = c.real();
             o.mem_used_max_bytes = std::isnan(bytes) ? 0 : static_cast<std::uint64_t>(bytes);
           }},
          {"sm_count_seen", "", "SMs the workers' contexts reported",
           [](const RunRecord& r) { return whole(r.summary.sm_count_seen); },
           [](SummaryRecord& o, const Cell& c) { o.sm_count_seen = static_cast<int>(c.whole()); }},
          {"scenario", "",
           "empty, `fault_baseline` (the victims alone) or `fault` (the victims beside a faulter); `interference_fg` "
           "(the foreground alone), `interference_bg` (the background jobs alone) or `interference` (side by side); "
           "each a kind meta.json's `sweep.scenario` records (a row of another, or a scenario no bench_mps knows, is a "
           "damaged folder: exit 2)",
           [](const RunRecord& r) { return r.spec.scenario.name(); },
           [](SummaryRecord& o, const Cell& c) {
             const auto scenario = parse_run_scenario(c.text);
             if (!scenario) throw ResultsError(c.at + ": unknown scenario '" + c.text.substr(0, 40) + "'");
             o.scenario = *scenario;
           },
           true},
          summary_count("victims", "fault: victim workers", &SummaryRow::victims, fault_run),
          summary_count("victims_survived", "fault: victims that finished all their tasks",
                        &SummaryRow::victims_survived, fault_run),
          summary_newer("victim_slowdown", "x",
                        "fault: surviving victims' task time over the fault_baseline's, whole run",
                        &SummaryRow::victim_slowdown),
          summary_newer("victim_post_fault_slowdown", "x",
                        "fault: the same over the tasks that started after the faulter died",
                        &SummaryRow::victim_post_fault_slowdown),
          summary_text("fault_error", "fault: what the faulting worker reported", &SummaryRow::fault_error),
          summary_text("mps_server_state",
                       "fault under MPS: the server after the fault (`survived`, `exited`, `replaced`)",
                       &SummaryRow::mps_server_state),
          summary_newer("mps_recovery_s", "s", "fault under MPS: faulter's death to a new client's first finished task",
                        &SummaryRow::mps_recovery_s),
          summary_count("gpu_util_samples", "utilisation samples gpu_util_mean is over", &SummaryRow::gpu_util_samples,
                        [](const RunRecord& r) { return !r.summary.gpu_util_source.empty(); }),
          summary_text(
              "gpu_util_source",
              "`driver`: NVML's own samples (nvmlDeviceGetSamples), each over the driver's sampling period; "
              "`polled`: our 100 ms reads, each taken as covering NVML's longest period (1 s); empty without NVML",
              &SummaryRow::gpu_util_source),
          summary_text(
              "driver_messages",
              "fault: the NVIDIA Xid lines the run added to the kernel log (dmesg), `none in the kernel log`, or "
              "`kernel log not readable: <why>`",
              &SummaryRow::driver_messages),
          summary_newer("gpm_sm_util", "fraction",
                        "GPM (Hopper and newer): the share of SMs busy, over SMs and the run's time (GO to the last "
                        "worker's end); empty where GPM is unavailable (meta.json gpu.gpm says why)",
                        &SummaryRow::gpm_sm_util),
          summary_newer("gpm_sm_occupancy", "fraction", "GPM: resident warps over the SMs' maximum, same window",
                        &SummaryRow::gpm_sm_occupancy),
          summary_newer("gpm_dram_bw_util", "fraction", "GPM: DRAM bandwidth used over its peak, same window",
                        &SummaryRow::gpm_dram_bw_util),
          summary_newer("startup_s", "s",
                        "the harness's own time: spawning the run's worker set until every worker was READY "
                        "(contexts, allocation, warm-up); 0 for the later runs (rounds) of a set",
                        &SummaryRow::startup_s),
          summary_newer("settle_s", "s", "the idle pause before the run's worker set (--settle); 0 for later rounds",
                        &SummaryRow::settle_s),
          summary_newer("teardown_s", "s",
                        "closing the set's workers until they exited, on the set's last run; 0 before it",
                        &SummaryRow::teardown_s),
          summary_newer("fg_latency_p50_ms", "ms",
                        "interference: the foreground's median latency (mlp-infer: a request's arrival to its "
                        "completion; other workloads: the task time)",
                        &SummaryRow::fg_latency_p50_ms),
          summary_newer("fg_latency_p95_ms", "ms", "interference: the foreground's 95th percentile latency",
                        &SummaryRow::fg_latency_p95_ms),
          summary_newer("fg_latency_p99_ms", "ms", "interference: the foreground's 99th percentile latency",
                        &SummaryRow::fg_latency_p99_ms),
          summary_newer("fg_throughput_per_s", "1/s", "interference: the foreground's tasks (requests) per second",
                        &SummaryRow::fg_throughput_per_s),
          summary_newer("fg_p99_vs_alone", "x",
                        "interference: fg_latency_p99_ms over the foreground's alone (interference_fg, same mode and "
                        "repeat); 1 = undisturbed",
                        &SummaryRow::fg_p99_vs_alone),
          summary_newer("fg_throughput_vs_alone", "x", "interference: fg_throughput_per_s over the foreground's alone",
                        &SummaryRow::fg_throughput_vs_alone),
          summary_newer("bg_throughput_per_s", "1/s",
                        "interference: the background jobs' tasks per second, together; beside the foreground, their "
                        "tasks inside its timed span over that span (a task partly inside by its share), so time a "
                        "background ran alone after the foreground is not counted (folders written before fg_overlap "
                        "counted their whole runs)",
                        &SummaryRow::bg_throughput_per_s),
          summary_newer("bg_throughput_kept", "x",
                        "interference: bg_throughput_per_s over the same background jobs' alone (interference_bg, same "
                        "mode and repeat): the share of their throughput they keep beside the foreground",
                        &SummaryRow::bg_throughput_kept),
          summary_newer("fg_overlap", "fraction",
                        "interference: the share of the foreground's timed span (its first task's start to its last "
                        "task's end) during which every background job was inside its own; under 0.8 the run did not "
                        "run them side by side (`not side by side`): shown, counted, left out of its cell",
                        &SummaryRow::fg_overlap),
          summary_newer("burst_ms", "ms",
                        "the regime's burst as this run saw it: mean GPU time of a synchronising step (CUDA events "
                        "around the device work between two host waits), mean over the workers; alone it is the "
                        "workload's burst, beside time-sliced contexts it also holds their slices; empty where the "
                        "workload does not measure it (exec, cpu)",
                        &SummaryRow::burst_ms),
          summary_newer("gpu_busy_share", "fraction",
                        "burst_ms x steps / the worker's timed window, mean over the workers: the duty cycle as the "
                        "GPU's own clock saw it (NVML's gpu_util_mean counts any kernel in a sampling period)",
                        &SummaryRow::gpu_busy_share),
          summary_newer("burst_alone_ms", "ms",
                        "the regime's first coordinate: burst_ms of the same workload and parameters alone (N=1, same "
                        "mode and repeat)",
                        &SummaryRow::burst_alone_ms),
          summary_newer("duty_alone", "fraction", "the second: gpu_busy_share of that alone run (its duty cycle)",
                        &SummaryRow::duty_alone),
          summary_newer("xray_slice_ms", "ms",
                        "X-ray, xray_busy: mean length of a context's time slice (an interval it ran without a pause), "
                        "N contexts that always have work; empty where none was cut (one context, MPS)",
                        &SummaryRow::xray_slice_ms),
          summary_difference(
              "xray_switch_ms", "ms",
              "xray_busy: the GPU's time per switch between two contexts' slices: (a context's mean pause - "
              "(N-1) x slice) / N",
              &SummaryRow::xray_switch_ms),
          summary_difference("xray_lost_share", "fraction",
                             "xray_busy: switch / (slice + switch), the GPU's time lost to switching",
                             &SummaryRow::xray_lost_share),
          summary_newer("xray_on_share", "fraction",
                        "xray_busy: a context's time running over its kernel's time, mean over the contexts (1/N "
                        "time-sliced without switch costs; 1 under MPS)",
                        &SummaryRow::xray_on_share),
          summary_difference(
              "xray_wait_ms", "ms",
              "xray_wait: what one context of short synchronising steps waits per step beside N-1 busy ones: "
              "its mean step time less the same step alone (xray_turns, N=1, same mode and repeat)",
              &SummaryRow::xray_wait_ms),
          summary_difference("xray_wait_p99_ms", "ms",
                             "xray_wait: the 99th percentile of that step time, less the mean alone",
                             &SummaryRow::xray_wait_p99_ms),
          summary_newer("xray_turn_ms", "ms",
                        "xray_turns: N contexts of short steps; the GPU time per context turn: the mean time from one "
                        "of a context's kernels' start to its next, over N",
                        &SummaryRow::xray_turn_ms),
          summary_difference("xray_turn_switch_ms", "ms",
                             "xray_turns: xray_turn_ms less a kernel's own GPU time: what a turn costs beyond its work "
                             "when bursts end before the slice does",
                             &SummaryRow::xray_turn_switch_ms),
          summary_newer("xray_hold_us", "us",
                        "xray_gaps: how long a context's queue may stay empty (no host wait, launches to come) and it "
                        "still holds the GPU beside N-1 busy ones: the shortest idle bin where under half of its next "
                        "kernels started at once",
                        &SummaryRow::xray_hold_us),
          summary_newer("xray_hold_bound", "",
                        "xray_gaps: 1 where no sampled idle lost the GPU (xray_hold_us is then a lower bound)",
                        &SummaryRow::xray_hold_bound),
          summary_newer("xray_idle_kept_share", "fraction",
                        "xray_gaps: of the kernels launched into an empty queue, the share that started at once",
                        &SummaryRow::xray_idle_kept_share),
          summary_newer(
              "energy_j", "J",
              "NVML's board energy counter (nvmlDeviceGetTotalEnergyConsumption) over the timed window: its rise "
              "from the first to the last 100 ms sample inside it, scaled to the whole window; idle draw "
              "included; empty without the counter or where those samples span under half the window",
              &SummaryRow::energy_j),
          summary_count("set",
                        "the worker set (one set of worker processes, started together) the run's workers "
                        "belong to, numbered from 1 in the order the sweep started them; a resumed sweep goes on from "
                        "the largest; compare and the noise target count these sets",
                        &SummaryRow::worker_set, has_set),
          summary_count("round",
                        "the run's round within its worker set, from 1 (a set runs --rounds repeats, each "
                        "behind its own start barrier)",
                        &SummaryRow::round, has_set),
      });
  return cols;
}

const std::vector<Column<WorkerCells, WorkerRecord>>& runs_schema() {
  static const std::vector<W> cols = joined(
      config_part<WorkerCells, WorkerRecord>([](const WorkerCells& w) -> const RunSpec& { return w.run.spec; }),
      std::vector<W>{
          {"worker", "", "0..N-1", [](const WorkerCells& w) { return whole(w.worker.worker); },
           [](WorkerRecord& o, const Cell& c) { o.worker = static_cast<int>(c.whole()); }},
          {"pid", "", "the worker's process id", [](const WorkerCells& w) { return whole(w.worker.pid); },
           [](WorkerRecord& o, const Cell& c) { o.pid = c.text.empty() ? 0 : c.whole(); }},
          {"status", "", "as in summary.csv, for this worker",
           [](const WorkerCells& w) { return to_string(w.worker.status); },
           [](WorkerRecord& o, const Cell& c) { o.status = c.status(); }},
          {"reason", "", "why, when status is not `ok`", [](const WorkerCells& w) { return w.worker.reason; },
           [](WorkerRecord& o, const Cell& c) { o.reason = c.text; }},
          {"tasks", "", "timed tasks this worker finished", [](const WorkerCells& w) { return whole(w.worker.tasks); },
           [](WorkerRecord& o, const Cell& c) { o.tasks = c.whole(); }},
          {"start_s",
           "s",
           "its first task's start, after GO",
           [](const WorkerCells& w) { return num(w.worker.start_s); },
           {}},
          {"end_s", "s", "its last task's end, after GO", [](const WorkerCells& w) { return num(w.worker.end_s); }, {}},
          {"task_mean_ms", "ms", "mean of its tasks", [](const WorkerCells& w) { return num(w.worker.task_mean_ms); },
           [](WorkerRecord& o, const Cell& c) { o.task_mean_ms = c.real(); }},
          {"task_p50_ms",
           "ms",
           "median of its tasks",
           [](const WorkerCells& w) { return num(w.worker.task_p50_ms); },
           {}},
          {"task_p99_ms",
           "ms",
           "99th percentile of its tasks",
           [](const WorkerCells& w) { return num(w.worker.task_p99_ms); },
           {}},
          {"throughput_tasks_per_s", "1/s", "tasks / (end_s - start_s)",
           [](const WorkerCells& w) { return num(w.worker.throughput_tasks_per_s); },
           [](WorkerRecord& o, const Cell& c) { o.throughput_tasks_per_s = c.real(); }},
          {"sm_count_seen", "", "SMs its context reported",
           [](const WorkerCells& w) { return whole(w.worker.sm_count_seen); },
           [](WorkerRecord& o, const Cell& c) { o.sm_count_seen = c.whole(); }},
          {"mps_enabled", "", "1 when its context was an MPS client (`cudaDevAttrMpsEnabled`)",
           [](const WorkerCells& w) { return std::string(w.worker.mps_enabled ? "1" : "0"); },
           [](WorkerRecord& o, const Cell& c) { o.mps_enabled = c.whole() != 0; }},
          {"mem_bytes",
           "bytes",
           "device memory the workload allocated",
           [](const WorkerCells& w) { return whole(static_cast<long long>(w.worker.mem_bytes)); },
           {}},
          {"facts", "",
           "what the workload reported at the end, `key=value;...`: `clock_khz`, `cycles_per_launch`, `blocks` for "
           "spin; "
           "`loss_first`, `loss_last`, `steps`, `host_share` for mlp; every GPU workload's regime "
           "(kernels/step_timer.cuh): "
           "`burst_ms`, `bursts_timed`, `sync_steps`, `gpu_busy_share`; the X-ray's probes: `intervals`, `slices`, "
           "`slice_ms`, `off_ms`, `on_share`, `intervals_lost` (busy), `step_gpu_ms`, `start_period_ms` (step), "
           "`gaps_kernels`, `gaps_kept_share`, `gaps_idle_<us>us_n` and `gaps_idle_<us>us_kept` (per log2 bin of idle "
           "time from <us>), `hold_us`, `hold_bound` (gaps), `globaltimer_tick_ns`; exec's below",
           [](const WorkerCells& w) { return w.worker.facts; },
           [](WorkerRecord& o, const Cell& c) { o.facts = c.text; }},
          {"role",
           "",
           "`worker`, or `victim` / `faulter` in the fault scenario (`victim (ended before the fault)`: its tasks all "
           "done before the faulter failed, not counted among the victims); the X-ray's `busy`, `step`, `gaps`",
           [](const WorkerCells& w) { return w.worker.role; },
           {}},
          {"slowdown_vs_baseline",
           "x",
           "fault victim: its task_mean_ms over the victims' mean without the faulter",
           [](const WorkerCells& w) { return num(w.worker.slowdown_vs_baseline); },
           {}},
          {"post_fault_task_mean_ms",
           "ms",
           "fault victim: mean of its tasks that started after the faulter died",
           [](const WorkerCells& w) { return num(w.worker.post_fault_task_mean_ms); },
           {}},
          {"client_active_thread_pct", "%",
           "MPS: the CUDA_MPS_ACTIVE_THREAD_PERCENTAGE this client ran with; empty: none set",
           [](const WorkerCells& w) {
             return w.worker.client_active_thread_pct ? whole(w.worker.client_active_thread_pct) : std::string();
           },
           [](WorkerRecord& o, const Cell& c) { o.client_active_thread_pct = c.text.empty() ? 0 : c.percent(); }, true},
          {"client_priority",
           "",
           "MPS: CUDA_MPS_CLIENT_PRIORITY (0 normal, 1 below normal); empty: none set",
           [](const WorkerCells& w) {
             return w.worker.client_priority >= 0 ? whole(w.worker.client_priority) : std::string();
           },
           {}},
          {"client_mem_limit_bytes",
           "bytes",
           "MPS: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT of this client; empty: none set",
           [](const WorkerCells& w) {
             return w.worker.client_mem_limit_bytes ? whole(static_cast<long long>(w.worker.client_mem_limit_bytes))
                                                    : std::string();
           },
           {}},
          {"burst_ms",
           "ms",
           "mean GPU time of its synchronising steps (summary.csv's burst_ms, for this worker)",
           [](const WorkerCells& w) { return num(w.worker.burst_ms); },
           {},
           true},
          {"gpu_busy_share",
           "fraction",
           "its bursts' share of its timed window",
           [](const WorkerCells& w) { return num(w.worker.gpu_busy_share); },
           {},
           true},
      });
  return cols;
}

const std::vector<Column<TaskCells, TaskSample>>& tasks_schema() {
  static const std::vector<T> cols{
      {"run_id", "", "the run", [](const TaskCells& t) { return t.run.spec.run_id(); },
       [](TaskSample& o, const Cell& c) { o.run_id = c.text; }},
      {"worker", "", "0..N-1", [](const TaskCells& t) { return whole(t.task.worker); },
       [](TaskSample& o, const Cell& c) { o.worker = static_cast<int>(c.whole()); }},
      {"task", "", "0.., in the worker's order", [](const TaskCells& t) { return whole(t.task.task); },
       [](TaskSample& o, const Cell& c) { o.task = c.whole(); }},
      {"start_ms", "ms", "its start after GO", [](const TaskCells& t) { return fmt_num(t.task.start_ms, 9); },
       [](TaskSample& o, const Cell& c) { o.start_ms = parse_cell_double(c.text, c.at, false); }},
      {"duration_ms", "ms", "its length", [](const TaskCells& t) { return fmt_num(t.task.duration_ms, 7); },
       [](TaskSample& o, const Cell& c) { o.duration_ms = c.length(); }},
  };
  return cols;
}

const std::vector<Column<SampleCells, NoRecord>>& timeline_schema() {
  static const std::vector<G> cols{
      {"run_id", "", "the run", [](const SampleCells& g) { return g.run.spec.run_id(); }, {}},
      {"t_s",
       "s",
       "the sample's time after GO",
       [](const SampleCells& g) { return num(static_cast<double>(g.sample.t_ns - g.run.go_ns) * 1e-9); },
       {}},
      {"gpu_util",
       "fraction",
       "NVML utilisation: a kernel ran during the sampling period",
       [](const SampleCells& g) { return g.sample.gpu_util_pct ? num(*g.sample.gpu_util_pct / 100.0) : ""; },
       {}},
      {"mem_util",
       "fraction",
       "NVML memory utilisation",
       [](const SampleCells& g) { return g.sample.mem_util_pct ? num(*g.sample.mem_util_pct / 100.0) : ""; },
       {}},
      {"sm_clock_mhz", "MHz", "SM clock", [](const SampleCells& g) { return opt(g.sample.sm_clock_mhz); }, {}},
      {"mem_clock_mhz", "MHz", "memory clock", [](const SampleCells& g) { return opt(g.sample.mem_clock_mhz); }, {}},
      {"mem_used_bytes",
       "bytes",
       "device memory used",
       [](const SampleCells& g) { return g.sample.mem_used_bytes ? std::to_string(*g.sample.mem_used_bytes) : ""; },
       {}},
      {"power_w",
       "W",
       "board power",
       [](const SampleCells& g) { return g.sample.power_w ? num(*g.sample.power_w) : ""; },
       {}},
  };
  return cols;
}

std::vector<std::string> runs_columns() { return column_names(runs_schema()); }
std::vector<std::string> summary_columns() { return column_names(summary_schema()); }
std::vector<std::string> tasks_columns() { return column_names(tasks_schema()); }
std::vector<std::string> timeline_columns() { return column_names(timeline_schema()); }

void print_column_table(std::ostream& out, const std::vector<std::string>& names, const std::vector<std::string>& units,
                        const std::vector<std::string>& meanings, std::size_t skip) {
  MarkdownTable t({"column", "unit", "meaning"});
  for (std::size_t i = skip; i < names.size(); ++i)
    t.add_row({names[i], units[i].empty() ? "-" : units[i], meanings[i]});
  out << t.str();
}

void print_column_docs(std::ostream& out) {
  const std::size_t config = config_schema().size();
  out << "### Configuration columns (runs.csv and summary.csv start with these)\n";
  print_column_table(out, config_schema(), 0);
  out << "\n### summary.csv: one row per run\n";
  print_column_table(out, summary_schema(), config);
  out << "\n### runs.csv: one row per worker per run\n";
  print_column_table(out, runs_schema(), config);
  out << "\n### tasks.csv: one row per task\n";
  print_column_table(out, tasks_schema(), 0);
  out << "\n### timeline.csv: NVML samples\n";
  print_column_table(out, timeline_schema(), 0);
}

}  // namespace bench_mps::harness
