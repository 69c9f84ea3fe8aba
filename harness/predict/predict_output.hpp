#pragma once
// predict's outputs (docs/PREDICT.md "Files"): the measured cells a ladder gives, predict.md's heading and table,
// predict.csv's rows and predict.json, written into --out all or none.
#include "harness/predict/wing.hpp"

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/predict/host_calibration.hpp"
#include "harness/predict/mps_calibration.hpp"
#include "harness/predict/measured_units.hpp"
#include "harness/predict/predict_cli.hpp"
#include "harness/predict/prediction.hpp"

namespace bench_mps::harness {

/// A measured cell: the runs of one mode at one N, each the mean over its copies.
struct ScoredCell {
  std::vector<double> run_s, unit_ms;  ///< one per run (repeat) whose copies all ended ok
  int failed = 0;                      ///< runs with a copy not ok
  int not_co_run = 0;                  ///< ok runs with a copy not co-run: not N copies at once, left out of both bases
  int other_phase = 0;  ///< ok runs with a copy of another kind of step (mark_other_phase), left out of both bases
  int no_unit = 0;      ///< ok runs with a copy without a unit (no profile, no steps): per whole run only
  int copies = 0, common = 0;  ///< copies of the ok runs, and of them those measured in the common window
};

/// The measured cells of `units`, by mode name and N.
std::map<std::pair<std::string, int>, ScoredCell> measured_cells(const std::vector<MeasuredUnit>& units);

/// What is written of the cells: predict.md (its heading first), predict.csv, and predict.json's cells.
struct PredictTables {
  std::ostringstream md, csv;
  nlohmann::json cells = nlohmann::json::array();
};

/// The calibrations predict was given (each empty where not): the host's (--host-calibration) and MPS contention's
/// (--mps-calibration).
struct Calibrations {
  HostCalibration host;
  MpsCalibration mps;
};

/// predict.md's heading: the program, each copy alone, the scheduler and the calibrations (where given), and
/// with `every_draw` (--draws all) which runs alone were replayed.
void write_md_head(std::ostringstream& md, const std::string& label, const std::vector<AloneRun>& alone,
                   const SchedulerFacts& sched, const std::string& xray, const Calibrations& cal,
                   bool every_draw = false);

/// Every cell, per unit and per whole run, into the tables: predict.md's table (scored: with the measured
/// columns), predict.csv with its header, predict.json's cells.
void write_cells(PredictTables& t, const std::vector<PredictedRow>& cells,
                 const std::map<std::pair<std::string, int>, ScoredCell>& measured, const std::string& label,
                 bool scored);

/// predict.md, predict.csv and predict.json into --out (none of them where one cannot be written).
void write_outputs(const PredictArgs& a, const std::string& label, const SchedulerFacts& sched,
                   const std::vector<AloneRun>& alone, const Calibrations& cal, const PredictTables& t);

}  // namespace bench_mps::harness
