// `fastlink apply FILE` and `fastlink show state`: the declarative state of issue 26. A thin
// layer over fastlink/state.hpp: read the document, plan, print, send, verify.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "command.hpp"
#include "fastlink/error.hpp"
#include "fastlink/state.hpp"
#include "output.hpp"

namespace fastlink::cli {
namespace {

/// apply's own exit statuses (docs/cli/apply.md), not ip's: a request failed or the verification
/// found a difference; the document (or the command line) is bad, nothing was sent; `--check`
/// found a difference (`terraform plan -detailed-exitcode`'s convention).
constexpr int kApplyFailed = 1;
constexpr int kApplyBadInput = 2;
constexpr int kExitDiffers = 2;

constexpr const char* kApplyUsage = R"(Usage: fastlink apply [ --check ] FILE
Makes the host what the state document FILE says (YAML or JSON, nmstate's keys; - reads
standard input): one dump per object class, a plan of the differences in dependency order,
one pipelined batch, then a verification from fresh dumps. --check prints the plan and
exits 2 when the host differs, 0 when it matches. -j prints the steps and their results as
JSON.                                                               (see docs/cli/apply.md))";

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

int runApply(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {
    std::fputs((std::string(kApplyUsage) + "\n").c_str(), args.done() ? stderr : stdout);
    return args.done() ? kApplyBadInput : kExitOk;
  }
  bool check = args.accept("--check");
  std::string file = args.next();
  if (!args.done()) args.unknown("after the file");
  bool json = ctx.options().json;
  State want;
  try {
    want = State::load(file);
  } catch (const Error& e) {
    if (e.code() == std::errc::invalid_argument) return reportError(e, file);
    // A file that cannot be read is bad input, as a -batch file is: nothing was sent.
    printError(e.operation() + ": " + e.reason());
    return kApplyBadInput;
  }
  try {
    Netlink& nl = ctx.netlink();
    Plan plan = makePlan(nl, want);
    if (check) {
      print(json ? plan.toJson() : plan.toText());
      return plan.empty() ? kExitOk : kExitDiffers;
    }
    BatchResult result = applyPlan(nl, plan);
    if (json) print(plan.toJson(&result));
    else if (!plan.empty()) print(plan.toText());
    if (const Error* error = result.firstError()) {
      std::size_t index = error->batchIndex().value_or(0);
      std::string object = index < plan.steps.size() ? plan.steps[index].object : "";
      printError(error->reason() + " (" + object + ": " + error->operation() + ")");
      return kApplyFailed;
    }
    // Verify from fresh dumps: what is left of the plan is what the kernel did not take.
    Plan rest = makePlan(nl, want);
    for (const auto& step : rest.steps)
      printError("verify: " + step.object + (step.detail.empty() ? " differs" : ": " + step.detail) + " after applying");
    return rest.empty() ? kExitOk : kApplyFailed;
  } catch (const Error& e) {
    return reportError(e, file);
  }
}

int runShow(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {
    std::fputs((std::string(kShowUsage) + "\n").c_str(), args.done() ? stderr : stdout);
    return args.done() ? kApplyBadInput : kExitOk;
  }
  if (!args.accept("state")) args.unknown("(show knows: state)");
  args.accept("--yaml");
  if (!args.done()) args.unknown("after state");
  try {
    State state = captureState(ctx.netlink());
    print(ctx.options().json ? state.toJson() : state.toYaml());
    return kExitOk;
  } catch (const Error& e) {
    return reportError(e);
  }
}

// A bad command line is bad input too: apply's 2, not ip's 255.
int runApplyCommand(Context& ctx, Args& args) {
  return runWithUsageStatus(kApplyBadInput, [&] { return runApply(ctx, args); });
}
int runShowCommand(Context& ctx, Args& args) {
  return runWithUsageStatus(kApplyBadInput, [&] { return runShow(ctx, args); });
}

const Registrar kApply{ObjectCommand{.name = "apply", .aliases = {}, .usage = kApplyUsage, .run = runApplyCommand, .prepare = {}}};
const Registrar kShow{ObjectCommand{.name = "show", .aliases = {}, .usage = kShowUsage, .run = runShowCommand, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
