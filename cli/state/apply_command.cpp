// `fastlink apply FILE`, `fastlink commit`, `fastlink rollback` and `fastlink show state`: the
// declarative state of issue 26. A thin layer over fastlink/state.hpp: read the document, plan,
// journal, send, verify.
//
// --confirm SECONDS: before the first change is sent, apply starts a watchdog: a detached copy of
// this program (`fastlink [-n NS] rollback --watch ID`, its own session, stdio on /dev/null and
// its messages in the journal's watchdog.log) that sleeps until the journal's deadline and then
// rolls back unless `fastlink commit` removed the journal. It outlives the apply (a SIGKILL of
// the apply is the case it is for) and needs no daemon. It watches the journal's directory
// (inotify) and exits as soon as commit or rollback removes the journal, rather than sleeping
// until the deadline. Commit, rollback and the next apply of the namespace see an expired
// journal too (the watchdog was killed, or the host slept past the deadline): commit and apply
// roll it back first, as the watchdog would have.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/state.hpp"
#include "kit/output.hpp"
#include "state/apply_journal.hpp"
#include "state/document_cache.hpp"

namespace fastlink::cli {

/// The namespace's journal: under $FASTLINK_RUN_DIR (default /run/fastlink), one directory per
/// network namespace, named by the namespace's cookie (the same for `-n NAME` and for a process
/// inside it).
Checkpoint checkpointOf(const Context& ctx) {
  uint64_t cookie = ctx.options().netns ? netnsCookie(Netns::named(*ctx.options().netns)) : netnsCookie();
  return Checkpoint::forNamespace(runDirectory(), cookie);
}

std::string runDirectory() {
  const char* root = std::getenv("FASTLINK_RUN_DIR");
  return root && *root ? root : "/run/fastlink";
}

namespace {

/// apply's own exit statuses (docs/cli/apply.md), not ip's: a request failed or the verification
/// found a difference; the document (or the command line) is bad, nothing was sent; `--check`
/// found a difference (`terraform plan -detailed-exitcode`'s convention).
constexpr int kApplyFailed = 1;
constexpr int kApplyBadInput = 2;
constexpr int kExitDiffers = 2;

constexpr const char* kApplyUsage = R"(Usage: fastlink apply [ --check ] [ --confirm SECONDS ] FILE
Makes the host what the state document FILE says (YAML or JSON, nmstate's keys; - reads
standard input): one dump per object class, a plan of the differences in dependency order,
a journal of what it changes (fastlink rollback undoes it), one pipelined batch, then a
verification from fresh dumps. --check prints the plan and exits 2 when the host differs,
0 when it matches. --confirm SECONDS rolls the change back after SECONDS unless fastlink
commit comes first. -j prints the steps and their results as JSON.  (see docs/cli/apply.md))";

constexpr const char* kCommitUsage = R"(Usage: fastlink commit
Keeps the last apply of the namespace: stops its --confirm rollback and removes its journal
(fastlink rollback can no longer undo it). Too late (the deadline passed): rolls back and
exits 1.                                                            (see docs/cli/apply.md))";

constexpr const char* kRollbackUsage = R"(Usage: fastlink rollback
Puts back what the last apply of the namespace changed, from its journal (also after the apply
was killed half-way), verifies, and removes the journal. -j prints the steps as JSON.
                                                                    (see docs/cli/apply.md))";

constexpr const char* kShowUsage = R"(Usage: fastlink show state [ --yaml ]
Prints the host as a state document (YAML; -j JSON), which fastlink apply reads back as a
no-op.                                                              (see docs/cli/apply.md))";

/// A document or plan error (bad input: nothing was sent) is exit 2, named "(in FILE)"; anything
/// else (a file that cannot be read, a dump the kernel refused) is exit 1.
int reportError(const Error& e, const std::string& file = "") {
  if (e.code() == std::errc::invalid_argument && !file.empty()) {
    printError(e.reason() + " (in " + (file == "-" ? "standard input" : file) + ")");
    return kApplyBadInput;
  }
  printError(e.what());
  return e.code() == std::errc::invalid_argument || e.code() == std::errc::is_a_directory ? kApplyBadInput : kApplyFailed;
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

bool printUsage(Args& args, const char* usage, bool needsWords, int& status) {
  bool bare = needsWords && args.done();
  if (!bare && args.peek() != "help") return false;
  std::fputs((std::string(usage) + "\n").c_str(), bare ? stderr : stdout);
  status = bare ? kApplyBadInput : kExitOk;
  return true;
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}


std::string describe(const Checkpoint::Record& r) {
  std::string what = "the apply of " + r.document;
  if (r.status == Checkpoint::Status::Applying) return what + " was interrupted";
  if (r.deadlineMs) {
    int64_t left = (*r.deadlineMs - nowMs() + 999) / 1000;
    return what + (left > 0 ? " awaits fastlink commit (rolled back in " + std::to_string(left) + " s)" : " was not committed in time");
  }
  return what;
}

/// Progress on a terminal while a plan that takes more than a second is sent: `N/M steps` on
/// standard error, redrawn at most ten times a second and erased at the end (the plan's steps
/// are printed after it). Nothing when standard error is not a terminal.
/// FASTLINK_TEST_PROGRESS_AFTER_MS=N: shown after N ms instead of a second (its test, on a
/// pseudo-terminal, with a plan that is sent in less than a second).
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), enabled_(::isatty(STDERR_FILENO) == 1) {
    if (const char* env = std::getenv("FASTLINK_TEST_PROGRESS_AFTER_MS"); env && *env)
      after_ = std::chrono::milliseconds(std::strtoul(env, nullptr, 10));
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() {
    if (shown_) std::fputs("\r\033[K", stderr);
  }
  void answered(std::size_t done) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < after_ || now - drawn_ < std::chrono::milliseconds(100)) return;
    drawn_ = now;
    shown_ = true;
    std::fprintf(stderr, "\rfastlink: %zu/%zu steps", done, total_);
  }

 private:
  std::size_t total_;
  bool enabled_;
  std::chrono::milliseconds after_{1000};
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point drawn_{};
};

/// Sends a plan and reports the first failure; -j prints the steps with their results (unless
/// `quiet`: a rollback that comes before an apply's own steps).
bool sendPlan(Context& ctx, const Plan& plan, const ResultSink& sink = {}, bool quiet = false) {
  BatchResult result;
  {
    Progress progress(plan.size());
    result = applyPlan(ctx.netlink(), plan, [&](std::size_t index, const RequestResult& r) {
      progress.answered(index + 1);
      if (sink) sink(index, r);
    });
  }
  if (quiet) {
  } else if (ctx.options().json) {
    print(plan.toJson(&result));
  } else if (!plan.empty()) {
    print(plan.toText());
  }
  if (const Error* error = result.firstError()) {
    std::size_t index = error->batchIndex().value_or(0);
    std::string object = index < plan.steps.size() ? plan.steps[index].object : "";
    printError(error->reason() + " (" + object + ": " + error->operation() + ")");
    return false;
  }
  return true;
}

/// Verifies from fresh dumps: what is left of a plan is what the kernel did not take.
bool verify(Netlink& nl, const State& want, const char* after) {
  Plan rest = makePlan(nl, want);
  for (const auto& step : rest.steps)
    printError("verify: " + step.object + (step.detail.empty() ? " differs" : ": " + step.detail) + " after " + after);
  return rest.empty();
}

/// Restores the host from the journal and removes it; the caller holds the lock. On a failure
/// the journal stays, for another try.
int rollbackNow(Context& ctx, const Checkpoint& checkpoint, bool quiet = false) {
  State undo = checkpoint.undo();
  Plan plan = makePlan(ctx.netlink(), undo);
  if (!sendPlan(ctx, plan, {}, quiet) || !verify(ctx.netlink(), undo, "rolling back")) {
    printError("the journal is kept in " + checkpoint.directory() + ": fastlink rollback tries again");
    return kApplyFailed;
  }
  checkpoint.remove();
  return kExitOk;
}

/// Starts the detached watchdog of a --confirm (see the top of this file). It is started before
/// the first change is sent, so that a SIGKILL of this process at any later point is rolled back.
void startWatchdog(const Context& ctx, const Checkpoint& checkpoint, const std::string& id) {
  std::vector<std::string> words{"fastlink"};
  if (ctx.options().netns) words.insert(words.end(), {"-n", *ctx.options().netns});
  words.insert(words.end(), {"rollback", "--watch", id});
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::string log = checkpoint.directory() + "/watchdog.log";
  pid_t child = ::fork();
  if (child < 0) throw Error(std::error_code(errno, std::generic_category()), "apply --confirm: fork");
  if (child == 0) {
    // A new session, and a grandchild re-parented to init: no terminal signal, no zombie.
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    int in = ::open("/dev/null", O_RDWR);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(in, 1);
    ::dup2(out, 2);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(std::make_error_code(std::errc::no_child_process), "apply --confirm: the watchdog did not start");
}

std::string newId() {
  std::random_device random;
  return std::to_string(nowMs()) + "-" + std::to_string(::getpid()) + "-" + std::to_string(random());
}

/// FASTLINK_TEST_KILL_AFTER_STEPS=N: the process SIGKILLs itself once N steps are answered (the
/// tests of an apply killed half-way; see docs/testing.md).
ResultSink killHookForTests() {
  const char* env = std::getenv("FASTLINK_TEST_KILL_AFTER_STEPS");
  if (!env || !*env) return {};
  std::size_t after = std::strtoul(env, nullptr, 10);
  return [after](std::size_t index, const RequestResult&) {
    if (index + 1 >= after) ::kill(::getpid(), SIGKILL);
  };
}

int runApply(Context& ctx, Args& args) {
  bool check = false;
  std::optional<uint32_t> confirm;
  for (;;) {
    if (args.accept("--check")) check = true;
    else if (args.accept("--confirm")) confirm = parseU32(args.value("--confirm"), "--confirm", 1, 86400);
    else break;
  }
  std::string file = args.next();
  if (!args.done()) args.unknown("after the file");
  if (check && confirm) {
    printError("apply: --check sends nothing, --confirm has nothing to confirm");
    return kApplyBadInput;
  }
  bool json = ctx.options().json;
  State want;
  try {
    want = loadDocument(file, runDirectory() + "/documents");
  } catch (const Error& e) {
    if (e.code() == std::errc::invalid_argument) return reportError(e, file);
    // A file that cannot be read is bad input, as a -batch file is: nothing was sent.
    printError(e.operation() + ": " + e.reason());
    return kApplyBadInput;
  }
  try {
    Netlink& nl = ctx.netlink();
    if (check) {
      Plan plan = makePlan(nl, want);
      print(json ? plan.toJson() : plan.toText());
      return plan.empty() ? kExitOk : kExitDiffers;
    }
    Checkpoint checkpoint = checkpointOf(ctx);
    Checkpoint::Lock lock = checkpoint.lock(false);
    if (auto pending = checkpoint.record(); pending && pending->deadlineMs && nowMs() >= *pending->deadlineMs) {
      // Its deadline passed and its watchdog is gone: the rollback it was promised comes first.
      std::fprintf(stderr, "Note: %s: rolling it back first\n", describe(*pending).c_str());
      if (rollbackNow(ctx, checkpoint, true) != kExitOk) return kApplyFailed;
    }
    if (auto pending = checkpoint.record(); pending && (pending->status != Checkpoint::Status::Applied || pending->deadlineMs)) {
      printError(describe(*pending) + ": fastlink commit keeps it, fastlink rollback undoes it; nothing was changed");
      return kApplyBadInput;
    }
    Plan plan = makePlan(nl, want, true);
    if (plan.empty()) {
      if (json) print(plan.toJson());
      return kExitOk;  // nothing to change, nothing journalled (an earlier journal stays)
    }
    Checkpoint::Record record{newId(), Checkpoint::Status::Applying, std::nullopt, file == "-" ? "standard input" : file};
    if (confirm) record.deadlineMs = nowMs() + int64_t{*confirm} * 1000;
    checkpoint.begin(*plan.undo, record);
    if (confirm) startWatchdog(ctx, checkpoint, record.id);
    bool sent = sendPlan(ctx, plan, killHookForTests());
    bool verified = sent && verify(nl, want, "applying");
    // The time to commit counts from here, when the change is complete.
    record.status = confirm ? Checkpoint::Status::AwaitingCommit : Checkpoint::Status::Applied;
    if (confirm) record.deadlineMs = nowMs() + int64_t{*confirm} * 1000;
    checkpoint.update(record);
    if (!verified) printError("fastlink rollback puts back what this apply changed");
    return verified ? kExitOk : kApplyFailed;
  } catch (const Error& e) {
    return reportError(e, file);
  }
}

/// The journal of commit and rollback, locked; nullopt (and the message) when there is none.
std::optional<Checkpoint::Lock> lockJournal(const Checkpoint& checkpoint, const char* nothingTo) {
  // Looked at before the lock, which creates the journal's directory.
  if (!checkpoint.record()) {
    printError(std::string("nothing to ") + nothingTo + ": no apply journal in this namespace");
    return std::nullopt;
  }
  return checkpoint.lock(false);
}

int runCommit(Context& ctx, Args& args) {
  if (!args.done()) args.unknown("commit takes no arguments");
  Checkpoint checkpoint = checkpointOf(ctx);
  std::optional<Checkpoint::Lock> lock = lockJournal(checkpoint, "commit");
  if (!lock) return kApplyBadInput;
  auto record = checkpoint.record();
  if (!record) {
    printError("nothing to commit: the journal was rolled back meanwhile");
    return kApplyFailed;
  }
  if (record->deadlineMs && nowMs() >= *record->deadlineMs) {
    // The watchdog has not rolled back yet (or is gone): the deadline still holds.
    printError("too late: " + describe(*record) + "; rolling back");
    rollbackNow(ctx, checkpoint);
    return kApplyFailed;
  }
  checkpoint.remove();
  return kExitOk;
}

/// Waits until the wall-clock time `deadlineMs` or, with a watch on the journal's directory,
/// until a file there is renamed into place or removed (apply moved the deadline, commit or
/// rollback removed the journal), whichever comes first.
void sleepUntil(int64_t deadlineMs, int notify) {
  if (notify < 0) {
    timespec at{static_cast<time_t>(deadlineMs / 1000), static_cast<long>(deadlineMs % 1000) * 1000000};
    ::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, nullptr);
    return;
  }
  int64_t left = std::max<int64_t>(0, std::min<int64_t>(deadlineMs - nowMs(), 1 << 30));
  pollfd p{notify, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left)) > 0) {
    char events[4096];
    while (::read(notify, events, sizeof events) > 0) {
    }
  }
}

/// `rollback --watch ID`: the --confirm watchdog. Sleeps until the deadline of journal ID (again
/// when apply moved it), then rolls back if the journal is still that one; exits as soon as the
/// journal is gone or another's.
int watch(Context& ctx, const std::string& id) {
  Checkpoint checkpoint = checkpointOf(ctx);
  // Watched before the record is first read, so that no change after that read is missed.
  int notify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (notify >= 0 && ::inotify_add_watch(notify, checkpoint.directory().c_str(), IN_DELETE | IN_MOVED_TO | IN_DELETE_SELF) < 0) {
    ::close(notify);
    notify = -1;  // then only the clock wakes it, at the deadline
  }
  for (;;) {
    auto record = checkpoint.record();
    if (!record || record->id != id || !record->deadlineMs) return kExitOk;  // committed or rolled back
    if (nowMs() < *record->deadlineMs) {
      sleepUntil(*record->deadlineMs, notify);
      continue;
    }
    Checkpoint::Lock lock = checkpoint.lock(true);
    record = checkpoint.record();
    if (!record || record->id != id || !record->deadlineMs || nowMs() < *record->deadlineMs) continue;
    std::fprintf(stderr, "fastlink: %s: rolling back\n", describe(*record).c_str());
    return rollbackNow(ctx, checkpoint);
  }
}

int runRollback(Context& ctx, Args& args) {
  if (args.accept("--watch")) {
    std::string id = args.value("--watch");
    return watch(ctx, id);
  }
  if (!args.done()) args.unknown("rollback takes no arguments");
  Checkpoint checkpoint = checkpointOf(ctx);
  std::optional<Checkpoint::Lock> lock = lockJournal(checkpoint, "roll back");
  if (!lock) return kApplyBadInput;
  if (!checkpoint.record()) return kExitOk;  // rolled back meanwhile (the watchdog)
  return rollbackNow(ctx, checkpoint);
}

int runShow(Context& ctx, Args& args) {
  if (!args.accept("state")) args.unknown("(show knows: state)");
  args.accept("--yaml");
  if (!args.done()) args.unknown("after state");
  State state = captureState(ctx.netlink());
  print(ctx.options().json ? state.toJson() : state.toYaml());
  return kExitOk;
}

/// What the four commands share: `help` (or no words where some are needed) prints the usage; a
/// bad command line is bad input too (apply's 2, not ip's 255); an Error is reported as
/// reportError says.
template <int (*Run)(Context&, Args&), const char* const& Usage, bool NeedsWords>
int applyCommand(Context& ctx, Args& args) {
  return runWithUsageStatus(kApplyBadInput, [&] {
    int status = kExitOk;
    if (printUsage(args, Usage, NeedsWords, status)) return status;
    try {
      return Run(ctx, args);
    } catch (const Error& e) {
      return reportError(e);
    }
  });
}

const Registrar kApply{ObjectCommand{.name = "apply", .aliases = {}, .usage = kApplyUsage, .run = applyCommand<runApply, kApplyUsage, true>, .prepare = {}}};
const Registrar kCommit{ObjectCommand{.name = "commit", .aliases = {}, .usage = kCommitUsage, .run = applyCommand<runCommit, kCommitUsage, false>, .prepare = {}}};
const Registrar kRollback{ObjectCommand{.name = "rollback", .aliases = {}, .usage = kRollbackUsage, .run = applyCommand<runRollback, kRollbackUsage, false>, .prepare = {}}};
const Registrar kShow{ObjectCommand{.name = "show", .aliases = {}, .usage = kShowUsage, .run = applyCommand<runShow, kShowUsage, true>, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
