// The `steer` object: per-queue RPS/RFS/XPS settings (fastlink/steering.hpp) without shell loops.
//   fastlink [-n NS] [-j] steer show DEV
//   fastlink [-n NS] steer set DEV [ queue N ] [ rps CPUS ] [ rps-flow-cnt N ] [ xps CPUS ]
// CPUS is a list like 0-3,6 (or "none"). Without `queue`, rps/rps-flow-cnt apply to every
// receive queue and xps to every transmit queue. Every write is read back by the library.
//
// sysfs shows the namespace of whoever mounted it, so with -n the command does what `ip netns
// exec` does: a private mount namespace (dies with this process) and a fresh sysfs on /sys,
// mounted from inside the target network namespace.
#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/fields.hpp"
#include "fastlink/error.hpp"
#include "fastlink/steering.hpp"
#include "kit/output.hpp"
#include "steer/steer_support.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink steer show DEV
       fastlink steer set DEV [ queue N ] [ rps CPUS ] [ rps-flow-cnt N ] [ xps CPUS ] [ threaded on|off ]
       fastlink steer irq show DEV
       fastlink steer irq set DEV { spread [ cpus CPUS ] | irq N cpus CPUS }
       CPUS := LIST like 0-3,6 | none       (see docs/cli/steer.md))";

int show(Context& ctx, const std::string& dev) {
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
  auto rx = steer.rxQueues(dev);
  auto tx = steer.txQueues(dev);
  bool threaded = steer.threaded(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}, {"threaded", threaded}};
    j["rx"] = nlohmann::ordered_json::array();
    for (const auto& q : rx)
      j["rx"].push_back({{"queue", q.queue}, {"rps_cpus", q.rpsCpus}, {"rps_flow_cnt", q.rpsFlowCount}});
    j["tx"] = nlohmann::ordered_json::array();
    for (const auto& q : tx) j["tx"].push_back({{"queue", q.queue}, {"xps_cpus", q.xpsCpus}});
    JsonArrayWriter out(stdout, ctx.options().pretty);
    out.add(j);
    out.finish();
    return kExitOk;
  }
  std::string s;
  for (const auto& q : rx)
    s += fmt::format("{} rx-{} rps_cpus {} rps_flow_cnt {}\n", dev, q.queue, cpuListText(q.rpsCpus), q.rpsFlowCount);
  for (const auto& q : tx) s += fmt::format("{} tx-{} xps_cpus {}\n", dev, q.queue, cpuListText(q.xpsCpus));
  s += fmt::format("{} threaded {}\n", dev, threaded ? "on" : "off");
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

bool parseOnOff(const std::string& text, const char* what);

int set(Context& ctx, const std::string& dev, Args& args) {
  std::optional<uint32_t> queue, flows;
  std::optional<std::vector<unsigned>> rps, xps;
  std::optional<bool> threaded;
  while (!args.done()) {
    if (args.accept("queue")) queue = parseU32(args.value("queue"), "queue");
    else if (args.accept("rps")) rps = parseCpuList(args.value("rps"), "rps");
    else if (args.accept("rps-flow-cnt")) flows = parseU32(args.value("rps-flow-cnt"), "rps-flow-cnt");
    else if (args.accept("xps")) xps = parseCpuList(args.value("xps"), "xps");
    else if (args.accept("threaded")) threaded = parseOnOff(args.value("threaded"), "threaded");
    else args.unknown("steer set takes: queue N, rps CPUS, rps-flow-cnt N, xps CPUS, threaded on|off");
  }
  if (!rps && !flows && !xps && !threaded) throw UsageError("steer set: nothing to set (rps, rps-flow-cnt, xps, threaded)");
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
  // Every CPU is checked before the first write, as tune and irq set do: the kernel refuses a
  // CPU it cannot hold only when a queue's file is written, after earlier queues were changed.
  const std::vector<unsigned> online = steer.onlineCpus();
  for (const auto& [keyword, cpus] : {std::pair{"rps", &rps}, std::pair{"xps", &xps}})
    if (*cpus)
      for (unsigned c : **cpus)
        if (!std::binary_search(online.begin(), online.end(), c))
          throw Error(std::make_error_code(std::errc::invalid_argument), "steer set " + dev,
                      fmt::format("{}: CPU {} is not online (online: {})", keyword, c, cpuListText(online)));
  std::vector<uint32_t> rxQueues, txQueues;
  if (queue) {
    rxQueues = txQueues = {*queue};
  } else {
    for (const auto& q : steer.rxQueues(dev)) rxQueues.push_back(q.queue);
    for (const auto& q : steer.txQueues(dev)) txQueues.push_back(q.queue);
  }
  for (uint32_t q : rxQueues) {
    if (rps) steer.setRpsCpus(dev, q, *rps);
    if (flows) steer.setRpsFlowCount(dev, q, *flows);
  }
  if (xps)
    for (uint32_t q : txQueues) steer.setXpsCpus(dev, q, *xps);
  if (threaded) steer.setThreaded(dev, *threaded);
  return kExitOk;
}

bool parseOnOff(const std::string& text, const char* what) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw UsageError(fmt::format("{}: expected on or off, not \"{}\"", what, text));
}

/// `steer irq show DEV`: the device's interrupts, queue ones first, with their CPUs.
int irqShow(Context& ctx, const std::string& dev) {
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
  printRecords(steer.deviceIrqs(dev), ctx.options().json, ctx.options().pretty, [&](FieldOut& f, const auto& i) {
    f.text("{} ", dev).any("irq", "irq {} ", i.irq).any("name", i.name, "{} ", i.name.empty() ? "-" : i.name);
    f.any("queue", i.queue, "{} ", i.queue ? "queue" : "other").any("cpus", i.cpus, "cpus {}", cpuListText(i.cpus));
  });
  return kExitOk;
}

/// `steer irq set DEV spread [cpus CPUS]` or `steer irq set DEV irq N cpus CPUS`.
int irqSet(Context& ctx, const std::string& dev, Args& args) {
  std::optional<std::vector<unsigned>> cpus;
  std::optional<uint32_t> irq;
  bool spread = false;
  while (!args.done()) {
    if (args.accept("spread")) spread = true;
    else if (args.accept("irq")) irq = parseU32(args.value("irq"), "irq");
    else if (args.accept("cpus")) cpus = parseCpuList(args.value("cpus"), "cpus");
    else args.unknown("steer irq set takes: spread [cpus CPUS] | irq N cpus CPUS");
  }
  if (spread == irq.has_value()) throw UsageError("steer irq set: say either spread or irq N");
  if (irq && !cpus) throw UsageError("steer irq set: irq N needs cpus CPUS");
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
  std::vector<IrqAffinity> plan;
  if (spread) {
    plan = steer.planQueueIrqSpread(dev, cpus ? *cpus : steer.onlineCpus());
  } else {
    // Only an interrupt of this device: a typo must not move another device's IRQ.
    bool ours = false;
    for (const auto& d : steer.deviceIrqs(dev)) ours = ours || d.irq == *irq;
    if (!ours) throw Error(std::make_error_code(std::errc::invalid_argument), fmt::format("steer irq set {} irq {}", dev, *irq),
                           fmt::format("IRQ {} is not an interrupt of {} (see: fastlink steer irq show {})", *irq, dev, dev));
    plan = {{*irq, *cpus}};
  }
  steer.applyIrqAffinity(plan);
  return kExitOk;
}

/// `{ show | set } DEV ...` of steer and of steer irq: set takes its words, show only the device.
int runVerb(Context& ctx, Args& args, bool irq) {
  const char* object = irq ? "steer irq" : "steer";
  bool isSet = false;
  if (args.accept("set")) isSet = true;
  else if (!args.acceptAny({"show", "list", "ls"})) args.unknown(irq ? "steer irq verbs: show, set" : "steer verbs: show, set, irq");
  if (args.done()) throw UsageError(fmt::format("{}: a device name is required", object));
  std::string dev = args.next();
  try {
    if (isSet) return irq ? irqSet(ctx, dev, args) : set(ctx, dev, args);
    if (!args.done()) args.unknown(fmt::format("{} show takes only a device", object));
    return irq ? irqShow(ctx, dev) : show(ctx, dev);
  } catch (const Error& e) {
    // A queue's device missing from the namespace's sysfs is named as in every other command.
    printError(irq ? e.reason() + " (" + e.operation() + ")" : failureText(e, dev));
    return kExitFailed;
  }
}

int runSteer(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {  // as tune: no words is a usage error, help is not
    std::fputs((std::string(kUsage) + "\n").c_str(), args.done() ? stderr : stdout);
    return args.done() ? kExitUsage : kExitOk;
  }
  return runVerb(ctx, args, args.accept("irq"));
}

const Registrar kSteer{ObjectCommand{.name = "steer", .aliases = {}, .usage = kUsage, .run = runSteer, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
