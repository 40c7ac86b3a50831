// Small helpers shared by the benchmark programs: a monotonic stopwatch, interface-name lists
// and the one-line JSON result every measuring program prints for bench/run.
#pragma once

#include <fcntl.h>
#include <net/if.h>
#include <spawn.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace bench {

/// What a shell command printed on stdout (empty if it could not start); for the set-up and the
/// oracles of the kernel-side benches (tap_drop, wg_dataplane), never for a timed peer.
inline std::string capture(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

/// Runs argv (looked up in PATH) with its stdout sent to `out` (and its stderr to `err` if given);
/// returns its exit status, or -1 when it could not start or did not exit normally. The CLI's
/// peers are timed through this.
inline int spawn(const std::vector<std::string>& argv, const char* out = "/dev/null", const char* err = nullptr) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (err) posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// This process's CPU time (user + system: the kernel's work for its system calls counts).
inline double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Peak resident set size of this process so far, in KiB.
inline long maxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/// PREFIX0 .. PREFIX{count-1}: the naming convention of every scenario (veth pairs are
/// PREFIX{2i} with peer PREFIX{2i+1}).
inline std::vector<std::string> names(const std::string& prefix, std::size_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

/// Resolved before the stopwatch starts, for the peers whose API wants an ifindex.
inline std::vector<int> indexes(const std::vector<std::string>& names) {
  std::vector<int> out;
  out.reserve(names.size());
  for (const auto& n : names) {
    unsigned idx = if_nametoindex(n.c_str());
    if (idx == 0) throw std::runtime_error("no such device: " + n);
    out.push_back(static_cast<int>(idx));
  }
  return out;
}

/// The result line read by bench/run: {"seconds":..,"ops":..,"failed":..,"bytes":..,"found":[..]}
inline void report(double seconds, std::size_t ops, std::size_t failed, uint64_t bytes = 0,
                   const std::vector<std::string>& found = {}) {
  std::string line = "{\"seconds\":" + std::to_string(seconds) + ",\"ops\":" + std::to_string(ops) +
                     ",\"failed\":" + std::to_string(failed) + ",\"bytes\":" + std::to_string(bytes) + ",\"found\":[";
  for (std::size_t i = 0; i < found.size(); ++i) line += (i ? ",\"" : "\"") + found[i] + "\"";
  line += "]}\n";
  std::fputs(line.c_str(), stdout);
}

}  // namespace bench
