// bench_mps: how much do processes sharing one GPU lose to time-slicing, and how much does MPS win
// back? See README.md for the commands and docs/RESULTS.md for what they write.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <iostream>

#include "harness/advise/advise.hpp"
#include "harness/advise/advise_cli.hpp"
#include "harness/common/cli_checks.hpp"
#include "harness/common/errors.hpp"
#include "harness/common/fatal_signal.hpp"
#include "harness/common/files.hpp"
#include "harness/common/format.hpp"
#include "harness/common/parallel.hpp"
#include "harness/compare/compare.hpp"
#include "harness/report/history_cli.hpp"
#include "harness/conform/conform.hpp"
#include "harness/conform/conform_cli.hpp"
#include "harness/plan/sweep_cli.hpp"
#include "harness/predict/predict_cli.hpp"
#include "harness/predict/predict_columns.hpp"
#include "harness/report/profile_command.hpp"
#include "harness/report/report.hpp"
#include "harness/results/meta.hpp"
#include "harness/results/results_reader.hpp"
#include "harness/results/results_schema.hpp"
#include "harness/sweep/cpu_affinity.hpp"
#include "harness/sweep/external_mps.hpp"
#include "harness/sweep/multi_gpu.hpp"
#include "harness/sweep/resume.hpp"
#include "harness/sweep/sweep.hpp"

using namespace bench_mps::harness;

namespace {

/// The sweep the command line asks for (or, `--resume DIR` alone, the one DIR/meta.json stored): on one
/// GPU, or one child bench_mps per GPU (--gpus).
int sweep_command(const CLI::App& app, SweepSpec& spec, const SweepCliValues& raw) {
  const bool resume_alone = !raw.resume_dir.empty() && !sweep_defined_on_command_line(app);
  try {
    finalize_sweep_spec(spec, raw);
  } catch (const UsageError& e) {  // --resume with part of a sweep: say how --resume is given
    if (raw.resume_dir.empty() || resume_alone) throw;
    throw UsageError(std::string(e.what()) + "; with --resume, " + kResumeForms);
  }
  if (resume_alone) {
    SweepSpec stored = with_limits_given(stored_sweep(spec.out_dir), spec, app);
    stored.out_dir = spec.out_dir;
    stored.resume = true;
    spec = stored;
    check_cpus_allowed(spec.cpus, "--resume",  // the stored --cpus, on cores this process may lack
                       "the sweep in " + spec.out_dir + " keeps to --cpus " + format_cpu_list(spec.cpus),
                       "give --cpus to go on with other cores");
  }
  if (!spec.gpus.empty()) return run_multi_gpu(spec);  // --gpus: one child bench_mps per GPU
  attach_external_mps(spec);                           // --external-mps: the site's daemon
  const int code = run_sweep(spec);
  if (spec.resume) note_resumed_gpu(spec.out_dir, code);  // one GPU's folder of a --gpus run: its index follows
  return code;
}

/// The footer of `bench_mps --help`.
const char* const kMainFooter =
    "Each command has its own help, with examples and exit codes:\n"
    "  bench_mps report --help    render report.md and figures for a results or comparison folder\n"
    "  bench_mps compare --help   SAME / FASTER / SLOWER / UNSURE / INSUFFICIENT per configuration\n"
    "  bench_mps history --help   each configuration across many folders (driver versions): changes\n"
    "  bench_mps profile --help   summarise the GPU profiles of --profile-gpu\n"
    "  bench_mps predict --help   N copies predicted from one profiled copy alone and the X-ray\n"
    "  bench_mps conform --help   PASS / FAIL / INCONCLUSIVE / SKIP / ERROR per MPS lever on this GPU\n"
    "  bench_mps advise --help    will MPS help my program? profile, predict, verify, advise\n"
    "  bench_mps columns --help   the results files' columns (RESULTS.md's table), as markdown\n"
    "\n"
    "Exit codes: 0 ok; 1 a run failed, or compare --fail-on-regression found a regression (or\n"
    "compared nothing); 2 bad command line or input files, or a folder it may not write (read-only,\n"
    "not permitted; one line naming the problem, nothing written); 3 the machine cannot run it (no\n"
    "GPU, no nvidia-cuda-mps-control, a foreign MPS daemon, the compute mode, too little GPU memory,\n"
    "a full disk or quota); 128+N stopped by signal N. The same in every command.";

/// Runs `command`, turning each kind of failure into its line on stderr and its exit code, the same in every verb.
int with_exit_codes(const SweepSpec& spec, const std::function<int()>& command) {
  try {
    return command();
  } catch (const UsageError& e) {
    std::cerr << "bench_mps: error: " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const nlohmann::json::exception& e) {  // a stored value of the wrong type, deep in meta.json
    std::cerr << "bench_mps: error: " << (spec.resume ? spec.out_dir + "/meta.json" : std::string("meta.json")) << ": "
              << json_value_problem(e) << "\n";
    return kExitUsage;
  } catch (const EnvironmentError& e) {
    std::cerr << "bench_mps: " << one_line(e.what()) << "\n";
    return kExitEnvironment;
  } catch (const FileWriteError& e) {  // a full disk 3, a read-only folder 2, in every verb (issue 35)
    std::cerr << "bench_mps: " << one_line(e.what()) << "\n";
    return exit_code_of_write_error(e.error());
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "bench_mps: " << one_line(e.what()) << "\n";
    return exit_code_of_write_error(e.code().value());
  } catch (const std::exception& e) {
    std::cerr << "bench_mps: failed: " << one_line(e.what()) << "\n";
    return kExitFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  install_fatal_signal_report();  // a crash of ours says where, and where it left an MPS daemon
  CLI::App app{
      "bench_mps: N processes sharing one GPU, time-sliced vs NVIDIA MPS.\n"
      "Example: bench_mps --procs 1,4,10"};
  SweepSpec spec;
  SweepCliValues raw;
  add_sweep_options(app, spec, raw);
  ReportArgs report;
  CLI::App* report_cmd = add_report_command(app, report);
  CompareArgs compare;
  CLI::App* compare_cmd = add_compare_command(app, compare);
  HistoryArgs history;
  CLI::App* history_cmd = add_history_command(app, history);
  ProfileArgs profile;
  CLI::App* profile_cmd = add_profile_command(app, profile);
  PredictArgs predict;
  CLI::App* predict_cmd = add_predict_command(app, predict);
  ConformSpec conform;
  CLI::App* conform_cmd = add_conform_command(app, conform);
  AdviseSpec advise;
  std::string advise_ladder;
  CLI::App* advise_cmd = add_advise_command(app, advise, advise_ladder);
  CLI::App* columns_cmd =
      app.add_subcommand("columns", "print the columns of the results files (name, unit, meaning) as markdown");
  columns_cmd->footer(
      "Example: bench_mps columns > columns.md   (docs/RESULTS.md holds the same table)\nExit codes: 0 ok; 2 bad "
      "command line.");
  spec.argv.assign(argv, argv + argc);
  app.set_version_flag("--version", version_line(), "print the version, git sha and CUDA version, then exit");
  app.footer(kMainFooter);

  // --help and --version are printed answers too: a reader who did not get them hears so (> /dev/full said 0).
  const auto printed_exit = [&](const CLI::Error& e) {
    return with_exit_codes(spec, [&]() -> int {
      const int rc = app.exit(e);
      check_stdout_written();
      return rc;
    });
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help or --version: printed, then checked that it was written
    return printed_exit(e);
  } catch (const CLI::ExtrasError& e) {
    // Arguments no option took, named in the order typed (CLI11 lists them last first); a word that is no command
    // ("comapre") is said to be that.
    const std::vector<std::string> extra = app.remaining(true);
    std::vector<std::string> typed;
    for (int i = 1; i < argc; ++i)
      if (std::find(extra.begin(), extra.end(), argv[i]) != extra.end()) typed.emplace_back(argv[i]);
    std::string commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands += (commands.empty() ? "" : ", ") + sub->get_name();
    if (app.get_subcommands().empty() && !typed.empty() && !typed.front().empty() && typed.front()[0] != '-') {
      std::cerr << "bench_mps: error: unknown command '" << one_line(typed.front().substr(0, 40))
                << "' (commands: " << commands << "; a sweep takes options only: see --help)\n";
      return kExitUsage;
    }
    std::string listed;
    for (const std::string& a : typed) listed += (listed.empty() ? "" : " ") + a.substr(0, 40);
    std::cerr << "bench_mps: error: "
              << one_line(typed.empty() ? plain_cli_error(e)
                                        : "unknown option or extra argument: " + listed + " (see --help)")
              << "\n";
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::cerr << "bench_mps: error: " << one_line(plain_cli_error(e)) << "\n";
    return kExitUsage;
  }

  return with_exit_codes(spec, [&]() -> int {
    if (report_cmd->parsed()) return run_report(report);
    // The verbs whose answer is what they print: it reached its reader, or the exit code says it did not.
    const auto printed = [](int rc) {
      check_stdout_written();
      return rc;
    };
    if (compare_cmd->parsed()) return printed(run_compare(compare));
    if (history_cmd->parsed()) return printed(run_history(history));
    if (profile_cmd->parsed()) return printed(run_profile(profile));
    if (predict_cmd->parsed()) return printed(run_predict(predict));
    if (conform_cmd->parsed()) {
      conform.argv = spec.argv;
      return run_conform(conform);
    }
    if (advise_cmd->parsed()) {
      finalize_advise_spec(advise, advise_ladder, *advise_cmd);
      advise.argv = spec.argv;
      return run_advise(advise);
    }
    if (columns_cmd->parsed()) {
      print_column_docs(std::cout);
      print_predict_column_docs(std::cout);
      return printed(0);
    }
    return sweep_command(app, spec, raw);
  });
}
