// The regimes report's markdown: the X-ray, the model, the map, the placed workloads, the seeds, and
// how well the model predicts them.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harness/common/format.hpp"
#include "harness/common/markdown_table.hpp"
#include "harness/report/report_data.hpp"
#include "harness/report/report_meta.hpp"
#include "harness/report/report_regimes_parts.hpp"
#include "harness/plan/mode_names.hpp"

namespace bench_mps::harness {
namespace {

std::string pct(double share) {
  return std::isfinite(share) ? fmt_fixed(100 * share, std::abs(share) < 0.1 ? 1 : 0) + "%" : "-";
}
std::string signed_pct(double e) {
  return std::isfinite(e) ? fmt_signed(100 * e, std::abs(e) < 0.1 ? 1 : 0) + "%" : "-";
}
std::string ms(double v) { return fmt_sig(v, 3); }
std::string times(double v) { return fmt_times(v); }
/// The model's loss, with the convoy's upper end where it has one: "1.08x" or "1.08-1.81x".
std::string model_text(const Prediction& p) {
  return std::isfinite(p.upper) && p.upper > p.loss * 1.005 ? fmt_fixed(p.loss, 2) + "–" + times(p.upper)
                                                            : times(p.loss);
}

std::string figure(const PlotPlan& plan, const std::string& name) {
  for (const FigureInfo& f : plan.figures)
    if (f.name == name) return figure_markdown(f);
  for (const std::string& why : plan.not_drawn)
    if (why.rfind(name, 0) == 0) return "(" + why + ")\n\n";
  return "";
}

/// Time-sliced cells (of `kind`, "grid" or "placed"; both where empty) whose bursts outlast a slice, and how
/// many of their measured losses lie between the turns' loss and the convoy's (within 3%).
struct Bracket {
  int cells = 0, inside = 0;
};
Bracket bracket_count(const std::vector<Evaluated>& rows, const std::string& kind = "") {
  Bracket b;
  for (const Evaluated& e : rows)
    if (e.kind != "seed" && (kind.empty() || e.kind == kind) && std::isfinite(e.predicted.upper)) {
      ++b.cells;
      b.inside += e.measured >= e.predicted.loss * 0.97 && e.measured <= e.predicted.upper * 1.03;
    }
  return b;
}

bool is_regimes(const RegimesInput& in) { return meta_scenario(in.meta) == Scenario::regimes; }

std::string headline(const RegimesInput& in) {
  const SchedulerFacts& s = in.sched;
  const bool stand_in = in.meta.sweep && in.meta.sweep->cpu_stand_in.value_or(false);
  std::string h = stand_in ? "CPU stand-ins (--cpu-stand-in), no GPU: the operating system's scheduler, not a GPU's: "
                           : "On " + gpu_and_driver(in.meta) + ": ";
  if (!s.usable()) return h + "the X-ray measured no time slices (see the table).";
  // A median below 0 (contexts that truly ran side by side, or noise) is taken as 0: said with what was measured.
  const auto held_at_zero = [](double measured) {
    return measured < 0 ? " (measured " + ms(measured) + " ms, below 0: taken as 0)" : std::string();
  };
  h += "time-slicing gives each context " + ms(s.slice_ms) + " ms slices, switches between two in " + ms(s.switch_ms) +
       " ms" + held_at_zero(s.switch_measured_ms) + " (medians over N) and charges a step that ends before its slice " +
       ms(s.turn_cost_ms) + " ms per turn" + held_at_zero(s.turn_cost_measured_ms) +
       ": N copies of a step lose about N x (its kernels' time + " + ms(s.turn_cost_ms) + " ms) over the step alone.";
  const ErrorSummary ts = summarize_errors(in.evaluated, "grid", kTimesliceMode);
  if (ts.count) {
    h += " The regime model's median error over the grid's " + std::to_string(ts.count) + " time-sliced cells is " +
         pct(ts.median_abs) + " (largest " + pct(ts.max_abs);
    const Bracket b = bracket_count(in.evaluated, "grid");  // the grid's cells, as the sentence counts them
    if (b.cells)
      h += "; of the " + std::to_string(b.cells) + " whose bursts outlast a slice, " + std::to_string(b.inside) +
           " lie in its convoy bracket";
    h += ").";
  }
  return h;
}

std::string xray_section(const RegimesInput& in, const PlotPlan& plan) {
  std::string md = "## The time-slice X-ray\n\n";
  md +=
      "Three probes at each N (`--scenario xray`; kernels/xray.hpp), time-sliced and under MPS for contrast. "
      "*busy*: N contexts that always have work each run a one-thread kernel that reads the GPU's clock "
      "(%globaltimer) and logs every interval it ran; an interval is a **time slice**, and a context's pause holds "
      "the other N-1 contexts' slices and N **switches**: switch = (pause - (N-1) x slice) / N; *lost* = switch / "
      "(slice + switch), the GPU's time spent switching. *wait*: one context of short synchronising steps (a " +
      workload_params(in.meta, "xray") +
      " kernel, then a wait) beside N-1 busy ones: what a step waits beyond its time alone. *turns*: N contexts of "
      "short steps: a context's kernel start to its next is a round of N turns; a turn's **cost** beyond its "
      "kernel is what a step that ends before its slice pays to get the GPU. Medians over the repeats.\n\n";
  MarkdownTable t({"mode", "N", "slice ms", "switch ms", "lost", "each context ran", "wait per step ms (p99)",
                   "(N-1) x (slice + switch) ms, the medians over N", "turn ms", "turn cost ms", "runs ok"},
                  {false, true, true, true, true, true, true, true, true, true, true});
  for (const XrayCell& c : in.xray)
    t.add_row({mode_label(c.mode), std::to_string(c.procs), ms(c.slice_ms), ms(c.switch_ms), pct(c.lost_share),
               pct(c.on_share), std::isfinite(c.wait_ms) ? ms(c.wait_ms) + " (" + ms(c.wait_p99_ms) + ")" : "-",
               c.mode == kTimesliceMode ? ms(predict_wait_ms(c.procs, in.sched)) : "-", ms(c.turn_ms),
               ms(c.turn_switch_ms), std::to_string(c.runs - c.failed) + "/" + std::to_string(c.runs)});
  md += t.str() + "\n" + figure(plan, "xray");
  const std::string policy = in.meta.gpu && in.meta.gpu->conditions_start
                                 ? meta_text(*in.meta.gpu->conditions_start, "/timeslice_policy")
                                 : "-";
  md += "The time-slice policy (`nvidia-smi compute-policy -l`, read, never changed): " + policy +
        ". N=1 rows are the short step alone (the reference of *wait*). Under MPS the busy contexts run all the "
        "time side by side, so they have no slices, and a step waits for nothing.\n\n";
  return md;
}

std::string model_section(const RegimesInput& in) {
  const SchedulerFacts& s = in.sched;
  if (!s.usable()) return "";
  return "## The model\n\n"
         "From each workload alone (time-sliced, N=1) and this GPU's X-ray; nothing in it is fitted to the losses it "
         "predicts (harness/report/regime_model.hpp, docs/REGIMES.md):\n\n"
         "- A workload's **step** is one synchronising step alone: its **burst** (CUDA events around the step's device "
         "work) over its **duty cycle** (the bursts' share of the time). Its **kernel time** is the burst less the "
         "launch gaps: min(burst, NVML's busy share x step). A copy that waits for the GPU keeps launching, so its "
         "kernels run back to back once it has the GPU.\n"
         "- **Time-sliced**, a step needs a **turn**: its kernel time, plus " +
         ms(s.turn_cost_ms) + " ms (the turn cost), plus " + ms(s.switch_ms) + " ms (a switch) for every " +
         ms(s.slice_ms) +
         " ms slice it outlasts. N copies are served a turn at a time, one after the other, and spread out: "
         "loss = max(1, N x turn / step). Copies whose kernels outlast a slice share the GPU slice by slice, and "
         "those that overlap finish together and come back together, a convoy whose step is host + N x turns: "
         "(host + N x turn) / step is the upper end of a bracket for them (the model does not guess how much of a "
         "convoy forms).\n"
         "- **MPS**: the copies' kernels run side by side while they fit; a kernel fills a share of the SMs while it "
         "runs (its **footprint**: GPM's SM activity over the duty cycle, alone), so N copies need N x duty x "
         "footprint of the GPU: loss = max(1, that).\n\n";
}

/// Every grid point, one row: its coordinates and its losses at each N and mode beside the model.
std::string grid_section(const RegimesInput& in, const PlotPlan& plan) {
  std::vector<std::string> labels;
  std::set<int> ns;
  std::map<std::pair<std::string, std::string>, std::map<int, const Evaluated*>> by;  // label, mode -> N
  for (const Evaluated& e : in.evaluated) {
    if (e.kind != "grid") continue;
    if (std::find(labels.begin(), labels.end(), e.label) == labels.end()) labels.push_back(e.label);
    ns.insert(e.procs);
    by[{e.label, e.mode}][e.procs] = &e;
  }
  if (labels.empty()) return "";
  std::string md = "## The regime map\n\n" + figure(plan, "regime_map");
  std::vector<std::string> head{"burst alone ms", "duty alone", "NVML busy", "footprint"};
  for (int n : ns) head.push_back("time-sliced N=" + std::to_string(n) + " (model)");
  const int top = *ns.rbegin();
  head.push_back("MPS N=" + std::to_string(top) + " (model)");
  head.push_back("time-sliced / MPS N=" + std::to_string(top));
  MarkdownTable t(head, std::vector<bool>(head.size(), true));
  for (const std::string& label : labels) {
    const auto& ts = by[{label, kTimesliceMode}];
    const auto& mps = by[{label, kMpsMode}];
    const Evaluated* any = !ts.empty() ? ts.begin()->second : mps.begin()->second;
    std::vector<std::string> row{ms(any->burst_ms), pct(any->duty), pct(any->point.kernel_ms / any->point.step_ms),
                                 pct(any->point.footprint)};
    for (int n : ns) {
      const auto it = ts.find(n);
      row.push_back(it == ts.end() ? "-"
                                   : times(it->second->measured) + " (" + model_text(it->second->predicted) + ")");
    }
    const auto m = mps.find(top);
    const auto s = ts.find(top);
    row.push_back(m == mps.end() ? "-" : times(m->second->measured) + " (" + times(m->second->predicted.loss) + ")");
    row.push_back(m == mps.end() || s == ts.end() ? "-" : fmt_fixed(s->second->measured / m->second->measured, 2));
    t.add_row(row);
  }
  md += "One row per grid point (`duty` workload, " + workload_params(in.meta, "duty") +
        " at each point's burst and duty cycle). Losses are per-step time at N over one copy alone time-sliced, the "
        "same repeat (the seeds' basis); medians over the repeats; the model's in brackets. *NVML busy* is the share "
        "of time a kernel ran, alone; *footprint* the share of SMs its kernels fill (GPM). Ideal: MPS 1x; "
        "time-sliced at most N x duty once the GPU is the bottleneck. The last column divides the two losses beside "
        "it.\n\n" +
        t.str() + "\n";
  return md;
}

std::string placed_section(const RegimesInput& in) {
  MarkdownTable t({"workload", "folder", "burst alone ms", "duty alone", "NVML busy", "footprint", "mode", "N",
                   "measured", "model", "why", "error"},
                  {false, false, true, true, true, true, false, true, true, true, false, true});
  for (const Evaluated& e : in.evaluated)
    if (e.kind == "placed")
      t.add_row({e.label, e.source, ms(e.burst_ms), pct(e.duty), pct(e.point.kernel_ms / e.point.step_ms),
                 pct(e.point.footprint), mode_label(e.mode), std::to_string(e.procs),
                 fmt_range(e.measured, e.measured_min, e.measured_max, 3) + "x", model_text(e.predicted),
                 e.predicted.why, signed_pct(e.error())});
  std::string unplaced;
  for (const std::string& p : in.unplaced) unplaced += (unplaced.empty() ? "" : ", ") + ("`" + p + "`");
  if (!unplaced.empty()) unplaced = "Not placed: " + unplaced + ": " + kUnplacedWhy + ".\n\n";
  if (t.empty()) return unplaced.empty() ? "" : "## Workloads placed on the map\n\n" + unplaced;
  std::string md = "## Workloads placed on the map\n\n" + unplaced;
  md +=
      "The workloads of other results folders (`bench_mps report DIR --place FOLDER`, remembered in places.json): "
      "their burst and duty cycle alone, and their losses on the seeds' basis (median, min-max over repeats) "
      "beside the model with this folder's X-ray.";
  for (const auto& [path, meta] : in.places) md += " `" + path + "`: " + gpu_and_driver(meta) + ".";
  md += "\n\n" + t.str() + "\n";
  return md;
}

std::string seeds_section(const RegimesInput& in) {
  MarkdownTable t({"seed", "mode", "N", "their loss", "point (burst, duty)", "model with this GPU's X-ray", "error"},
                  {false, false, true, true, false, true, true});
  for (const Evaluated& e : in.evaluated)
    if (e.kind == "seed")
      t.add_row(
          {e.label, mode_label(e.mode), std::to_string(e.procs), times(e.measured),
           (std::isfinite(e.burst_ms) ? ms(e.burst_ms) + " ms" : std::string("long, not known")) + ", " + pct(e.duty),
           model_text(e.predicted), signed_pct(e.error())});
  if (t.empty()) return "";
  return "## The seeds at their points\n\n"
         "Their losses on their own basis (results/seeds.csv). Seed 001's point comes from its own numbers: 80 s "
         "alone for 10 epochs of 938 steps (PyTorch's 2018 example defaults) is an 8.53 ms step; ten copies "
         "time-sliced took 221 s, 23.6 ms a step, ten turns: its kernel time is 2.36 ms less this GPU's turn cost "
         "(the P100's is not known). Its footprint on the P100 is not known either, so the model cannot say its MPS "
         "loss. Seed 000's copies ran 4x slower at N=4: busy all the time; its burst is not known.\n\n" +
         t.str() + "\n";
}

std::string accuracy_section(const RegimesInput& in, const PlotPlan& plan) {
  std::string md = "## How well the model predicts\n\n" + figure(plan, "model_vs_measured");
  for (const auto& [kind, what] : {std::pair<std::string, std::string>{"grid", "grid"}, {"placed", "placed workloads"}})
    for (const std::string& mode : {kTimesliceMode, kMpsMode}) {
      const std::string line = error_line(summarize_errors(in.evaluated, kind, mode), what + ", " + mode_label(mode));
      if (!line.empty()) md += "- " + line + "\n";
    }
  const Bracket b = bracket_count(in.evaluated);
  if (b.cells)
    md += "- bursts longer than a slice, time-sliced: " + std::to_string(b.inside) + " of " + std::to_string(b.cells) +
          " measured losses lie between the turns' loss and the convoy's (within 3%); the errors above are the turns' "
          "loss alone\n";
  std::vector<const Evaluated*> worst;
  for (const Evaluated& e : in.evaluated)
    if (std::isfinite(e.error()) && e.kind != "seed") worst.push_back(&e);
  std::sort(worst.begin(), worst.end(),
            [](const Evaluated* x, const Evaluated* y) { return std::abs(x->error()) > std::abs(y->error()); });
  if (!worst.empty()) {
    MarkdownTable t({"cell", "mode", "N", "measured", "model", "why", "error"},
                    {false, false, true, true, true, false, true});
    for (std::size_t i = 0; i < std::min<std::size_t>(6, worst.size()); ++i) {
      const Evaluated& e = *worst[i];
      t.add_row({e.label + (e.kind == "placed" ? " (" + e.source + ")" : ""), mode_label(e.mode),
                 std::to_string(e.procs), times(e.measured), model_text(e.predicted), e.predicted.why,
                 signed_pct(e.error())});
    }
    md += "\nThe largest errors:\n\n" + t.str();
  }
  return md + "\n";
}

std::string failed_section(const RegimesInput& in) {
  std::string md = "## Failed runs\n\n";
  bool any = false;
  for (const SummaryRecord& r : in.rows)
    if (r.status != RunStatus::ok) {
      md += "- `" + r.run_id + "`: " + to_string(r.status) + (r.reason.empty() ? "" : " (" + one_line(r.reason) + ")") +
            "\n";
      any = true;
    }
  return md + (any ? "" : "None.\n");
}

}  // namespace

std::string regimes_markdown(const RegimesInput& in, const PlotPlan& plan) {
  std::string md = headline(in) + "\n\n# bench_mps " + (is_regimes(in) ? "regime map" : "time-slice X-ray") + ": " +
                   in.name + "\n\n";
  md +=
      is_regimes(in)
          ? "Why time-slicing costs what it costs. The X-ray measures this GPU's scheduler; the grid measures N copies "
            "of a synthetic step at each burst (GPU time between two host waits) and duty cycle (its share of the "
            "time alone); the model predicts each loss from the X-ray and the point alone, and the report holds "
            "the two side by side, with other workloads and the seeds placed on the same map.\n\n"
          : "How this GPU's scheduler shares it between contexts: the time slice, the switch, what a short step "
            "waits.\n\n";
  md += "## Machine\n\n" + machine_markdown(in.meta) + "\n";
  md += xray_section(in, plan) + model_section(in) + grid_section(in, plan) + placed_section(in) + seeds_section(in);
  if (is_regimes(in)) md += accuracy_section(in, plan);
  return md + failed_section(in);
}

}  // namespace bench_mps::harness
