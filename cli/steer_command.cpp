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

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "fastlink/error.hpp"
#include "fastlink/steering.hpp"
#include "output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink steer show DEV
       fastlink steer set DEV [ queue N ] [ rps CPUS ] [ rps-flow-cnt N ] [ xps CPUS ]
       CPUS := LIST like 0-3,6 | none       (see docs/cli/steer.md))";

std::vector<unsigned> parseCpuList(const std::string& text) {
  std::vector<unsigned> cpus;
  if (text == "none") return cpus;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t dash = part.find('-');
    unsigned lo = parseU32(part.substr(0, dash), "cpu", 0, 4095);
    unsigned hi = dash == std::string::npos ? lo : parseU32(part.substr(dash + 1), "cpu", 0, 4095);
    if (hi < lo) throw UsageError(fmt::format("cpu range \"{}\" goes backwards", part));
    for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cpus;
}

std::string cpuListText(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) return "none";
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + (i == j ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]));
    i = j + 1;
  }
  return s;
}

/// With -n NS: a private mount namespace with NS's sysfs on /sys, like `ip netns exec`.
void enterSysfsOf(const std::optional<std::string>& netns) {
  if (!netns) return;
  auto fail = [&](const std::string& what) {
    throw Error(std::error_code(errno, std::generic_category()), "steer -n " + *netns, what);
  };
  if (::unshare(CLONE_NEWNS) != 0) fail("cannot make a private mount namespace");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) fail("cannot make mounts private");
  int fd = ::open(("/run/netns/" + *netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open network namespace \"" + *netns + "\"");
  int err = 0;
  // setns in a helper thread: this process's own sockets stay where they are.
  std::thread t([&] {
    if (::setns(fd, CLONE_NEWNET) != 0) err = errno;
    else if (::umount2("/sys", MNT_DETACH) != 0 && errno != EINVAL) err = errno;
    else if (::mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) err = errno;
  });
  t.join();
  ::close(fd);
  if (err) {
    errno = err;
    fail("cannot mount the namespace's sysfs");
  }
}

int show(Context& ctx, const std::string& dev) {
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
  auto rx = steer.rxQueues(dev);
  auto tx = steer.txQueues(dev);
  if (ctx.options().json) {
    nlohmann::ordered_json j{{"ifname", dev}};
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
  std::fputs(s.c_str(), stdout);
  return kExitOk;
}

int set(Context& ctx, const std::string& dev, Args& args) {
  std::optional<uint32_t> queue, flows;
  std::optional<std::vector<unsigned>> rps, xps;
  while (!args.done()) {
    if (args.accept("queue")) queue = parseU32(args.value("queue"), "queue");
    else if (args.accept("rps")) rps = parseCpuList(args.value("rps"));
    else if (args.accept("rps-flow-cnt")) flows = parseU32(args.value("rps-flow-cnt"), "rps-flow-cnt");
    else if (args.accept("xps")) xps = parseCpuList(args.value("xps"));
    else args.unknown("steer set takes: queue N, rps CPUS, rps-flow-cnt N, xps CPUS");
  }
  if (!rps && !flows && !xps) throw UsageError("steer set: nothing to set (rps, rps-flow-cnt, xps)");
  enterSysfsOf(ctx.options().netns);
  SteeringApi steer;
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
  return kExitOk;
}

int runSteer(Context& ctx, Args& args) {
  if (args.done()) {
    std::fputs((std::string(kUsage) + "\n").c_str(), stderr);
    return kExitUsage;
  }
  if (args.peek() == "help") {
    printLine(kUsage);
    return kExitOk;
  }
  bool isSet = false;
  if (args.accept("set")) isSet = true;
  else if (!args.acceptAny({"show", "list", "ls"})) args.unknown("steer verbs: show, set");
  if (args.done()) throw UsageError("steer: a device name is required");
  std::string dev = args.next();
  try {
    if (isSet) return set(ctx, dev, args);
    if (!args.done()) args.unknown("steer show takes only a device");
    return show(ctx, dev);
  } catch (const Error& e) {
    printError(e.reason() + " (" + e.operation() + ")");
    return kExitFailed;
  }
}

const Registrar kSteer{ObjectCommand{.name = "steer", .aliases = {}, .usage = kUsage, .run = runSteer, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
