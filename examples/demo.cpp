// fastlink demo: in throwaway network namespaces, create a few thousand interfaces, change them
// by group and by batch, list them with kernel-side filters, and time the same work done with
// `ip` in a twin namespace. Every fastlink result is checked with `ip -j` afterwards.
//
//   fastlink-demo [--pairs N]      (default 1500 veth pairs = 3000 interfaces)
#include <fastlink/fastlink.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace fastlink;
using Clock = std::chrono::steady_clock;

namespace {

std::string sh(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  if (status != 0) throw std::runtime_error("command failed: " + command);
  return out;
}

double secondsOf(const std::function<void()>& work) {
  auto t0 = Clock::now();
  work();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A named namespace that is removed however the demo ends.
struct DemoNetns {
  std::string name;
  explicit DemoNetns(std::string n) : name(std::move(n)) { sh("ip netns add " + name); }
  ~DemoNetns() { std::system(("ip netns del " + name + " 2>/dev/null").c_str()); }
};

std::vector<std::string> g_namespaces;
void cleanupOnSignal(int sig) {
  for (const auto& n : g_namespaces) std::system(("ip netns del " + n + " 2>/dev/null").c_str());
  _exit(128 + sig);
}

struct Row {
  std::string step;
  double fastlink;
  double ip;
  std::string ipHow;
};

std::string fmtTime(double s) { return s < 0.1 ? fmt::format("{:.2f} ms", s * 1e3) : fmt::format("{:.3f} s", s); }

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("verification with ip -j failed: " + what);
}

nlohmann::json ipJson(const std::string& ns, const std::string& args) {
  // iproute2 6.1 prints `{}` for each device a `group G` filter drops: skip those.
  nlohmann::json out = nlohmann::json::array();
  for (auto& e : nlohmann::json::parse(sh("ip -n " + ns + " -j " + args)))
    if (!e.empty()) out.push_back(e);
  return out;
}

// Listings are compared by name, both ways: equal counts could hide a wrong or missing device.
std::set<std::string> ipNames(const std::string& ns, const std::string& args) {
  std::set<std::string> out;
  for (const auto& l : ipJson(ns, args)) out.insert(l["ifname"].get<std::string>());
  return out;
}
std::set<std::string> names(const std::vector<LinkInfo>& links) {
  std::set<std::string> out;
  for (const auto& l : links) out.insert(*l.name);
  return out;
}
std::set<std::string> numbered(const char* prefix, int from, int to) {
  std::set<std::string> out;
  for (int i = from; i < to; ++i) out.insert(fmt::format("{}{}", prefix, i));
  return out;
}

std::string writeBatchFile(const std::string& path, const std::function<void(std::ofstream&)>& fill) {
  std::ofstream f(path);
  fill(f);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  int pairs = 1500;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--pairs" && i + 1 < argc) pairs = std::atoi(argv[++i]);
    else {
      fmt::print(stderr, "usage: fastlink-demo [--pairs N]\n");
      return 2;
    }
  }
  if (pairs < 10 || pairs > 20000) {
    fmt::print(stderr, "--pairs must be 10..20000\n");
    return 2;
  }
  signal(SIGINT, cleanupOnSignal);
  signal(SIGTERM, cleanupOnSignal);
  std::string tag = std::to_string(getpid());
  DemoNetns fl("fastlink-demo-" + tag), ipns("fastlink-demo-ip-" + tag);
  g_namespaces = {fl.name, ipns.name};
  fmt::print("fastlink demo: {} veth pairs ({} interfaces) in namespace {}, the same with ip in {}\n\n", pairs,
             2 * pairs, fl.name, ipns.name);

  std::vector<Row> rows;
  try {
    Netlink nl{NetlinkOptions{.netns = Netns::named(fl.name)}};
    LinkApi& links = nl.links();
    std::string tmp = "/tmp/fastlink-demo-" + tag;

    // 1. Create the pairs, each end in group 10 (its peer in group 11).
    double tFl = secondsOf([&] {
      Batch b;
      for (int i = 0; i < pairs; ++i)
        b.add(LinkRequests::add(LinkInfo(fmt::format("a{}", i), "veth").setGroup(10).setVeth(
            VethInfo().setPeerName(fmt::format("b{}", i)))));
      auto r = nl.run(b, {.onError = OnError::Continue});
      if (!r.ok()) throw *r.firstError();
    });
    auto createFile = writeBatchFile(tmp + "-create", [&](std::ofstream& f) {
      for (int i = 0; i < pairs; ++i) f << fmt::format("link add a{} group 10 type veth peer name b{}\n", i, i);
    });
    double tIp = secondsOf([&] { sh("ip -n " + ipns.name + " -batch " + createFile); });
    check(ipNames(fl.name, "link show group 10") == numbered("a", 0, pairs), "group 10 members");
    rows.push_back({"create veth pairs (pipelined batch)", tFl, tIp, "ip -batch"});

    // 2. MTU of every device of group 10: one request, whatever the group's size.
    tFl = secondsOf([&] { links.setGroup(10, LinkInfo().setMtu(9000)); });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " link set group 10 mtu 9000"); });
    for (const auto& l : ipJson(fl.name, "link show group 10")) check(l["mtu"] == 9000, "group mtu");
    rows.push_back({"mtu of group 10 (one request)", tFl, tIp, "ip link set group"});

    // 3. Per-device MTU changes as one pipelined batch, vs ip -batch and vs one ip per change.
    tFl = secondsOf([&] {
      Batch b;
      for (int i = 0; i < pairs; ++i) b.add(LinkRequests::set(fmt::format("a{}", i), LinkInfo().setMtu(1400 + i % 100)));
      auto r = nl.run(b, {.onError = OnError::Continue});
      if (!r.ok()) throw *r.firstError();
    });
    auto mtuFile = writeBatchFile(tmp + "-mtu", [&](std::ofstream& f) {
      for (int i = 0; i < pairs; ++i) f << fmt::format("link set dev a{} mtu {}\n", i, 1400 + i % 100);
    });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " -batch " + mtuFile); });
    for (const auto& l : ipJson(fl.name, "link show group 10")) {
      int i = std::stoi(l["ifname"].get<std::string>().substr(1));
      check(l["mtu"] == 1400 + i % 100, "batch mtu");
    }
    rows.push_back({"mtu per device (pipelined batch)", tFl, tIp, "ip -batch"});
    int perProcess = std::min(pairs, 300);
    double tEach = secondsOf([&] {
      for (int i = 0; i < perProcess; ++i) sh(fmt::format("ip -n {} link set dev a{} mtu 1500", ipns.name, i));
    });
    rows.push_back({fmt::format("mtu per device, {} devices", perProcess),
                    tFl * perProcess / pairs, tEach, "one ip process each"});

    // 4. Three bridges, 50 ports on br1; list them with filters the kernel applies.
    Batch bridges;
    for (int i = 0; i < 3; ++i) bridges.add(LinkRequests::add(LinkInfo(fmt::format("br{}", i), "bridge")));
    if (!nl.run(bridges, {.onError = OnError::Continue}).ok()) throw std::runtime_error("bridges");
    uint32_t br1 = *links.get("br1").index;
    Batch ports;
    for (int i = 0; i < 50; ++i) ports.add(LinkRequests::set(fmt::format("b{}", i), LinkInfo().setMaster(br1)));
    if (!nl.run(ports, {.onError = OnError::Continue}).ok()) throw std::runtime_error("ports");
    sh("ip -n " + ipns.name + " link add br0 type bridge && ip -n " + ipns.name + " link add br1 type bridge && ip -n " +
       ipns.name + " link add br2 type bridge");
    std::vector<LinkInfo> found;
    tFl = secondsOf([&] { found = links.list(LinkFilter().setKind("bridge")); });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " -d link show type bridge"); });
    const std::set<std::string> threeBridges = {"br0", "br1", "br2"};
    check(names(found) == threeBridges && ipNames(fl.name, "link show type bridge") == threeBridges, "bridges");
    rows.push_back({fmt::format("list 3 bridges among {} netdevs", 2 * pairs + 4), tFl, tIp, "ip -d link show type bridge"});
    tFl = secondsOf([&] { found = links.list(LinkFilter().setMaster("br1")); });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " link show master br1"); });
    check(names(found) == numbered("b", 0, 50) && ipNames(fl.name, "link show master br1") == numbered("b", 0, 50),
          "ports");
    rows.push_back({"list ports of br1 (kernel master filter)", tFl, tIp, "ip link show master"});
    // Views over the receive buffer: each device's name is read where the kernel put it, nothing
    // is decoded into a LinkInfo (what list() builds for every device; see docs/BENCHMARKS.md).
    std::set<std::string> every;
    tFl = secondsOf([&] { links.forEach({}, [&](const LinkView& l) { every.emplace(*l.name()); }); });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " link show"); });
    check(every == ipNames(fl.name, "link show") && every.size() == static_cast<std::size_t>(2 * pairs + 4),
          "full dump");
    rows.push_back({"list every netdev", tFl, tIp, "ip link show"});

    // 5. Delete the whole group in one request.
    tFl = secondsOf([&] { links.delGroup(10); });
    tIp = secondsOf([&] { sh("ip -n " + ipns.name + " link del group 10"); });
    // Deleting one end of a veth pair deletes its peer: only lo and the bridges remain.
    check(ipNames(fl.name, "link show") == std::set<std::string>{"lo", "br0", "br1", "br2"}, "delete");
    rows.push_back({"delete group 10 (one request)", tFl, tIp, "ip link del group"});
    std::remove(createFile.c_str());
    std::remove(mtuFile.c_str());
  } catch (const std::exception& e) {
    fmt::print(stderr, "demo failed: {}\n", e.what());
    return 1;
  }

  fmt::print("{:<44} {:>12} {:>12} {:>9}  {}\n", "step", "fastlink", "ip", "ip/fl", "ip as");
  fmt::print("{}\n", std::string(110, '-'));
  for (const auto& r : rows)
    fmt::print("{:<44} {:>12} {:>12} {:>8.1f}x  {}\n", r.step, fmtTime(r.fastlink), fmtTime(r.ip), r.ip / r.fastlink,
               r.ipHow);
  fmt::print("\nEvery fastlink result above was checked with `ip -j`. Namespaces removed.\n");
  return 0;
}
