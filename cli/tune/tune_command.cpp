// `fastlink tune DEV`: spread a device's queues over the CPUs (fastlink/tune.hpp), printing the
// plan before applying it.
//   fastlink [-n NS] [-j] tune DEV [ --dry-run ] [ cpus CPUS ]
//   fastlink [-n NS] [-j] tune DEV --restore
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/tune.hpp"
#include "kit/output.hpp"
#include "steer/steer_support.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink tune DEV [ --dry-run ] [ cpus CPUS ]
       fastlink tune DEV --restore
Spreads DEV's queues over the CPUs: channels = CPUs (up to the device's maximum), one queue
interrupt per CPU, RPS/XPS masks to match. Prints the plan, applies it, verifies it, and saves
a snapshot that --restore puts back. -j prints the plan as JSON.       (see docs/cli/tune.md))";

/// The channel counts the device reports, as JSON (null: they could not be read).
nlohmann::ordered_json channelsJson(const std::optional<ChannelsInfo>& c) {
  if (!c) return nullptr;
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (auto [name, v] : {std::pair{"rx", c->rx}, {"tx", c->tx}, {"other", c->other}, {"combined", c->combined}})
    if (v) j[name] = *v;
  return j;
}

/// The same in words: "rx 4 combined 2" ("none" without counts, "n/a" when not read).
std::string channelsText(const std::optional<ChannelsInfo>& c) {
  if (!c) return "n/a";
  std::string s;
  const nlohmann::ordered_json counts = channelsJson(c);
  for (const auto& [name, v] : counts.items()) s += fmt::format("{}{} {}", s.empty() ? "" : " ", name, v.get<uint32_t>());
  return s.empty() ? "none" : s;
}

const std::vector<unsigned>* irqCpus(const TuneState& s, unsigned irq) {
  for (const auto& i : s.irqs)
    if (i.irq == irq) return &i.cpus;
  return nullptr;
}

template <class Queue, class Cpus>
const std::vector<unsigned>* queueCpus(const std::vector<Queue>& qs, uint32_t queue, Cpus cpus) {
  for (const auto& q : qs)
    if (q.queue == queue) return &(q.*cpus);
  return nullptr;
}

std::string maybeList(const std::vector<unsigned>* cpus) { return cpus ? cpuListText(*cpus) : "(absent)"; }

std::string planText(const TunePlan& p) {
  std::string s = fmt::format("tune {}: {} CPUs ({})\n", p.after.device, p.cpus.size(), cpuListText(p.cpus));
  if (!p.channelsNote.empty()) s += "  channels: " + p.channelsNote + "\n";
  else s += fmt::format("  channels: {} -> {}\n", channelsText(p.before.channels), channelsText(p.after.channels));
  if (!p.irqNote.empty()) s += "  irqs: " + p.irqNote + "\n";
  for (const auto& i : p.after.irqs) s += fmt::format("  irq {}: cpus {} -> {}\n", i.irq, maybeList(irqCpus(p.before, i.irq)), cpuListText(i.cpus));
  for (const auto& q : p.after.rx)
    s += fmt::format("  rx-{} rps_cpus {} -> {}\n", q.queue, maybeList(queueCpus(p.before.rx, q.queue, &RxQueueSteering::rpsCpus)), cpuListText(q.rpsCpus));
  for (const auto& q : p.after.tx)
    s += fmt::format("  tx-{} xps_cpus {} -> {}\n", q.queue, maybeList(queueCpus(p.before.tx, q.queue, &TxQueueSteering::xpsCpus)), cpuListText(q.xpsCpus));
  return s;
}

nlohmann::ordered_json stateJson(const TuneState& s) {
  nlohmann::ordered_json j{{"channels", channelsJson(s.channels)}};
  j["irqs"] = nlohmann::ordered_json::array();
  for (const auto& i : s.irqs) j["irqs"].push_back({{"irq", i.irq}, {"cpus", i.cpus}});
  j["rx"] = nlohmann::ordered_json::array();
  for (const auto& q : s.rx) j["rx"].push_back({{"queue", q.queue}, {"rps_cpus", q.rpsCpus}});
  j["tx"] = nlohmann::ordered_json::array();
  for (const auto& q : s.tx) j["tx"].push_back({{"queue", q.queue}, {"xps_cpus", q.xpsCpus}});
  return j;
}

TuneOptions optionsFor(const GlobalOptions& global, std::optional<std::vector<unsigned>> cpus) {
  TuneOptions o;
  if (cpus) o.cpus = *cpus;
  // Tests and unprivileged experiments keep their snapshots out of /run.
  if (const char* dir = std::getenv("FASTLINK_TUNE_SNAPSHOT_DIR"); dir && *dir) o.snapshotDir = dir;
  // The snapshot is named by the device's namespace (its cookie: see fastlink/netns.hpp).
  if (global.netns) o.netnsCookie = netnsCookie(Netns::named(*global.netns));
  return o;
}

int runTune(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {
    std::fputs((std::string(kUsage) + "\n").c_str(), args.done() ? stderr : stdout);
    return args.done() ? kExitUsage : kExitOk;
  }
  std::string dev = parseIfname(args.next(), "dev");
  bool dryRun = false, restore = false, json = ctx.options().json;
  std::optional<std::vector<unsigned>> cpus;
  while (!args.done()) {
    if (args.accept("--dry-run") || args.accept("dry-run")) dryRun = true;
    else if (args.accept("--restore") || args.accept("restore")) restore = true;
    else if (args.accept("-j") || args.accept("--json")) json = true;
    else if (args.accept("cpus")) cpus = parseCpuList(args.value("cpus"), "cpus");
    else args.unknown("tune takes: --dry-run, --restore, cpus CPUS");
  }
  if (restore && (dryRun || cpus)) throw UsageError("tune --restore takes no other option");
  try {
    TuneOptions options = optionsFor(ctx.options(), cpus);
    Netlink& nl = ctx.netlink();
    enterSysfsOf(ctx.options().netns);
    TuneApi tune = nl.tune(options);
    if (restore) {
      TuneState back = tune.restore(dev);
      if (json) {
        JsonArrayWriter out(stdout, ctx.options().pretty);
        nlohmann::ordered_json j{{"ifname", dev}, {"restored", stateJson(back)}};
        out.add(j);
        out.finish();
      } else {
        printLine(fmt::format("tune {}: restored (channels {}, {} irqs, {} rx and {} tx queues)", dev,
                              channelsText(back.channels), back.irqs.size(), back.rx.size(), back.tx.size()));
      }
      return kExitOk;
    }
    TunePlan plan = tune.plan(dev);
    std::string snapshot = tune.snapshotPath(dev);
    if (!json) {
      // The plan goes out before anything changes, so an interrupted run still says what it meant to do.
      std::fputs(planText(plan).c_str(), stdout);
      std::fflush(stdout);
    }
    if (!dryRun) tune.apply(plan);
    if (json) {
      nlohmann::ordered_json j{{"ifname", dev}, {"cpus", plan.cpus}, {"before", stateJson(plan.before)}, {"after", stateJson(plan.after)}};
      if (!plan.channelsNote.empty()) j["channels_note"] = plan.channelsNote;
      if (!plan.irqNote.empty()) j["irq_note"] = plan.irqNote;
      j["applied"] = !dryRun;
      if (!dryRun) j["snapshot"] = snapshot;
      JsonArrayWriter out(stdout, ctx.options().pretty);
      out.add(j);
      out.finish();
    } else if (dryRun) {
      printLine("dry run: nothing changed");
    } else {
      printLine(fmt::format("applied and verified; snapshot {} (undo: fastlink tune {} --restore)", snapshot, dev));
    }
    return kExitOk;
  } catch (const Error& e) {
    printError(failureText(e, dev));
    return kExitFailed;
  }
}

const Registrar kTune{ObjectCommand{.name = "tune", .aliases = {}, .usage = kUsage, .run = runTune, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
