#pragma once
// Finding every process an exec command started, wherever it went. A command's children may leave
// its process group and session (setsid, Python's start_new_session=True, a double fork), and a
// command may kill the bench_worker that ran it: neither the group nor the worker then knows them.
// What they all keep is their environment: each bench_worker gets a token of its own in
// BENCH_MPS_EXEC_TOKEN ("<bench_mps pid>.<its start ticks>.<serial>"), its command inherits it and so
// does everything the command starts. The worker (a child subreaper, so orphans come to it) ends its
// command's descendants and tagged processes when the command ends; bench_mps ends what carries the
// token of a worker that is gone; and the next sweep ends tagged processes whose bench_mps is gone
// (killed outright). Only a process that clears its environment and leaves the worker's tree, or one
// that is not the user's own (setuid), escapes; the README's exec section says so.
#include "harness/common/wing.hpp"

#include <functional>
#include <string>
#include <vector>

#include "harness/common/proc_scan.hpp"

namespace bench_mps::harness {

/// The environment variable that tags a worker, its command and everything the command starts.
inline constexpr const char* kExecTokenVar = "BENCH_MPS_EXEC_TOKEN";

/// A token no other worker of this or any other bench_mps has: "<our pid>.<our start ticks>.<serial>".
std::string new_exec_token();

/// Live processes carrying `token`, but not `except` (a worker looking for its command's leftovers).
std::vector<ProcInfo> processes_with_token(const std::string& token, pid_t except = 0);

/// SIGKILLs what `find` lists until it lists nothing (or `give_up_s` passes): a process forking while
/// it is ended is found again. Each is signalled through a pidfd after checking its start time, so a
/// pid reused meanwhile is never hit. Returns every process ended (the first sighting of each).
std::vector<ProcInfo> end_processes(const std::function<std::vector<ProcInfo>()>& find, double give_up_s = 5);

/// "3 (sleep), 17 (python3)" for a message.
std::string describe_processes(const std::vector<ProcInfo>& procs, std::size_t at_most = 8);

/// Tagged processes whose bench_mps is gone (killed outright: no one ended them) are ended; one line
/// per such bench_mps says which. Run before a sweep measures anything.
std::vector<std::string> end_orphaned_exec_processes();

}  // namespace bench_mps::harness
