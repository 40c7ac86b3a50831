// `fastlink monitor` against `ip monitor` on the same changes: both run at once, their lines are
// compared (trailing spaces aside: iproute2 leaves some).
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli_fixture.hpp"
#include "support/monitor_wait.hpp"

namespace fastlink::test {
namespace {

using nlohmann::json;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    while (!l.empty() && l.back() == ' ') l.pop_back();
    // Netconf events are not monitored by fastlink (docs/cli/monitor.md); `ip monitor` without
    // an object prints them unlabelled ("inet va forwarding off ...", "Deleted inet6 va").
    static const std::regex netconf(R"(^(\[NETCONF\])?(Deleted )?inet6? \S+( forwarding .*)?$)");
    if (std::regex_match(l, netconf)) continue;
    out.push_back(l);
  }
  return out;
}

class MonitorCliTest : public CliTest {
 protected:
  /// Where both() waits for every monitor to have printed what it received (`drained`): a route
  /// monitor names a route's device by asking the kernel when it prints the event (ip's
  /// ll_index_to_name does too), so a monitor that lags under load behind a `link del` prints the
  /// gone device as `if2` (seen with load 25); the devices go only after both have printed.
  static constexpr const char* kSettle = "@settle@";
  /// The changes every comparison sees: one of each object, created, changed and deleted, with
  /// the fields the monitor's own printers once left out or put elsewhere than the show
  /// commands' (an address's metric, a route's tos, prefsrc before metric, metrics, expires, a
  /// rule's protocol), now printed by the show commands' printers.
  std::string changes() const {
    std::string ip = "ip -n " + ns.name() + " ";
    return ip + "link add va type veth peer name vb; " + ip + "link set va mtu 1400; " + ip + "link set va up; " + ip +
           "link set vb up; " + ip + "addr add 10.9.0.1/24 dev va metric 77; " + ip + "-6 addr add 2001:db8::1/64 dev va nodad; " +
           ip + "route add 10.10.0.0/16 via 10.9.0.2; " + ip + "route add blackhole 10.11.0.0/16 table 100; " + ip +
           "route add 10.13.0.0/16 via 10.9.0.2 src 10.9.0.1 metric 9 tos 0x10 window 1000 initcwnd 10 hoplimit 5; " + ip +
           "-6 route add 2001:db8:2::/64 dev va expires 300; " + ip +
           "route replace 10.10.0.0/16 via 10.9.0.3; " + ip + "neigh add 10.9.0.7 lladdr 02:00:00:00:00:07 dev va; " +
           ip + "neigh del 10.9.0.7 dev va; " + ip + "rule add from 10.1.0.0/16 table 100 pref 100 proto static; " + ip +
           "rule del pref 100; " + ip + "nexthop add id 5 via 10.9.0.2 dev va; " + ip + "nexthop del id 5; " + ip +
           // A nexthop's text names every protocol but unspec, boot included (a route's leaves out boot).
           "nexthop add id 7 dev va proto boot; " + ip + "nexthop add id 8 dev va proto static; " + ip +
           "nexthop del id 7; " + ip + "nexthop del id 8; " + ip + "route del 10.10.0.0/16; " + ip + "addr del 10.9.0.1/24 dev va; " +
           kSettle + "; " + ip + "link del va";
  }

  /// Runs `ip ARGS monitor WORDS` and `fastlink ARGS monitor WORDS` while changes() happen;
  /// returns their standard outputs (the events).
  std::pair<std::string, std::string> both(const std::string& options, const std::string& words) {
    return both(options, words, changes());
  }
  /// The same while `script_` (shell text) makes its changes. Standard error is kept apart from
  /// the events: `ip monitor` reads the id of every namespace under /run/netns when it starts
  /// (netns_map_init), and one that another test is adding or deleting just then (a plain file,
  /// not yet or no longer a namespace's mount) makes it print `Error: Peer netns reference is
  /// invalid.` on stderr, which, in the same file as the events, was one line more than
  /// fastlink's (the "44 vs 45" flake under parallel tests). fastlink's stderr must stay empty;
  /// ip's may hold only that line. `halfMadeNetns`: run it all in a private mount namespace whose
  /// /run/netns holds, beside this test's namespace, such a file, as a parallel test leaves it.
  std::pair<std::string, std::string> both(const std::string& options, const std::string& words, const std::string& script_,
                                           bool halfMadeNetns = false) {
    std::string a = "/tmp/fastlink-mon-ip-" + ns.name(), b = "/tmp/fastlink-mon-fl-" + ns.name();
    std::string script = monitorWaitFunctions(ns.name()) + "ip -n " + ns.name() + " " + options + " monitor " + words + " >" + a +
                         " 2>" + a + ".err & A=$!; " + cliPath() + " -n " + ns.name() + " " + options + " monitor " + words +
                         " >" + b + " 2>" + b + ".err & B=$!; listening $A; listening $B; " + settled(script_, a, b) +
                         "; drained $A " + a + " $B " + b + "; kill $A $B; wait";
    std::string ref = "/tmp/fastlink-mon-ref-" + ns.name();
    if (halfMadeNetns) {
      std::string nsFile = "/run/netns/" + ns.name();
      script = "touch " + ref + " && mount --bind " + nsFile + " " + ref + " && mount -t tmpfs fastlink-mon /run/netns && touch " +
               nsFile + " /run/netns/" + ns.name() + "-halfmade && mount --bind " + ref + " " + nsFile + " && umount " + ref +
               " && " + script;
      // /bin/sh by its path: the VM's busybox unshare would run its own sh, whose `ip` is busybox's.
      script = "unshare --mount --propagation private /bin/sh -c " + shellQuote(script);
    }
    auto r = run("sh -c " + shellQuote(script));
    std::string ipOut = run("cat " + a).out, flOut = run("cat " + b).out;
    ipErr = run("cat " + a + ".err").out;
    std::string flErr = run("cat " + b + ".err").out;
    run("rm -f " + a + " " + b + " " + a + ".err " + b + ".err " + ref);
    EXPECT_EQ(flErr, "") << "fastlink's stderr";
    std::istringstream in(ipErr);
    for (std::string line; std::getline(in, line);)
      EXPECT_TRUE(line == "Error: Peer netns reference is invalid." || line == "RTNETLINK answers: Invalid argument")
          << "ip's stderr: " << ipErr;
    return {ipOut, flOut};
  }
  std::string ipErr;  ///< ip's stderr in the last both()
  /// `script` with each kSettle replaced by a `drained` of both monitors' outputs.
  static std::string settled(std::string script, const std::string& a, const std::string& b) {
    const std::string token = kSettle, wait = "drained $A " + a + " $B " + b;
    for (std::size_t at; (at = script.find(token)) != std::string::npos;) script.replace(at, token.size(), wait);
    return script;
  }
};

class MonitorObjectTest : public MonitorCliTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(MonitorObjectTest, TextEqualsIpMonitor) {
  auto [ip, mine] = both("", GetParam());
  auto expected = lines(ip);
  ASSERT_FALSE(expected.empty()) << "ip monitor saw nothing";
  EXPECT_EQ(lines(mine), expected) << "ip:\n" << ip << "\nfastlink:\n" << mine;
}

INSTANTIATE_TEST_SUITE_P(Objects, MonitorObjectTest,
                         ::testing::Values("link", "address", "route", "neigh", "rule", "nexthop", "all", ""),
                         [](const auto& info) { return *info.param ? std::string(info.param) : std::string("none"); });

TEST_F(MonitorCliTest, LinkLinesAreLinkShowsWithoutWhatOnlyIpLinkPrints) {
  // ip's print_linkinfo for the monitor: no alias line, link mode or qlen (`ip link`'s own), but
  // `event FEATURE CHANGE` when the kernel says why it sent the link (a feature switched by
  // ethtool), and the broadcast address as set.
  std::string ip = "ip -n " + ns.name() + " ";
  std::string script = ip + "link add va type veth peer name vb; " + ip + "link set va alias uplink; " + ip +
                       "link set va mtu 1400 brd 02:00:00:00:00:01; ip netns exec " + ns.name() +
                       " ethtool -K va tso off; " + ip + "link set vb up; " + ip + "link del va";
  auto [theirs, mine] = both("", "link", script);
  auto expected = lines(theirs);
  ASSERT_FALSE(expected.empty()) << "ip monitor saw nothing";
  EXPECT_NE(theirs.find(" event FEATURE CHANGE"), std::string::npos) << theirs;
  EXPECT_EQ(lines(mine), expected) << "ip:\n" << theirs << "\nfastlink:\n" << mine;
}

TEST_F(MonitorCliTest, TunnelLinksPrintedAsIpMonitorPrintsThem) {
  // `ip monitor link` prints a link as `ip link show` does (print_linkinfo): a tunnel bound to no
  // device as NAME@NONE, its endpoints as addresses (`link/gre 10.0.0.1 peer 10.0.0.2`, 16 bytes
  // for ip6tnl), a point-to-point device's `peer`. The fallback devices the modules make (gre0,
  // tunl0, sit0, ip6tnl0, ...) come as events too when a module is loaded by the first add.
  FASTLINK_REQUIRE_KIND("gre");
  FASTLINK_REQUIRE_KIND("ip6tnl");
  std::string ip = "ip -n " + ns.name() + " ";
  std::string script = ip + "link add t1 type gre remote 10.0.0.2 local 10.0.0.1; " + ip +
                       "link add t2 type ipip local 192.0.2.1; " + ip + "link add t3 type sit remote 192.0.2.5; " + ip +
                       "link add t4 type ip6tnl remote 2001:db8::2 local 2001:db8::1; " + ip +
                       "link add t5 type gretap remote 10.0.0.3 local 10.0.0.1; " + ip + "link set t1 up; " + ip +
                       "link set t2 mtu 1400; " + ip + "link del t1; " + ip + "link del t4";
  auto [theirs, mine] = both("", "link", script);
  auto expected = lines(theirs);
  ASSERT_FALSE(expected.empty()) << "ip monitor saw nothing";
  EXPECT_NE(theirs.find("t1@NONE"), std::string::npos) << theirs;
  EXPECT_EQ(lines(mine), expected) << "ip:\n" << theirs << "\nfastlink:\n" << mine;
}

TEST_F(MonitorCliTest, IpsWarningAboutAHalfMadeNamespaceIsNoEvent) {
  // The cause of the "44 vs 45" flake, on demand: a namespace file that is not (yet, or any
  // more) a namespace under /run/netns when `ip monitor` starts makes it print a line on stderr;
  // the events on stdout are still the same as fastlink's.
  auto [ip, mine] = both("-t", "route", changes(), true);
  EXPECT_NE(ipErr.find("Peer netns reference is invalid"), std::string::npos) << "the race was not made: " << ipErr;
  auto theirs = lines(ip), ours = lines(mine);
  ASSERT_EQ(ours.size(), theirs.size()) << "ip:\n" << ip << "\nfastlink:\n" << mine;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (theirs[i].rfind("Timestamp: ", 0) != 0) {
      EXPECT_EQ(ours[i], theirs[i]);
    }
  }
}

TEST_F(MonitorCliTest, TimestampsLikeIp) {
  auto [ip, mine] = both("-t", "route");
  auto theirs = lines(ip), ours = lines(mine);
  ASSERT_EQ(ours.size(), theirs.size()) << "ip:\n" << ip << "\nfastlink:\n" << mine;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (theirs[i].rfind("Timestamp: ", 0) == 0) {
      // Same shape ("Timestamp: Sun Nov 22 21:33:19 2026 605545 usec"), not the same instant.
      EXPECT_EQ(ours[i].rfind("Timestamp: ", 0), 0u) << ours[i];
      // Both lines in that shape: ip prints the microseconds without padding, so the lengths
      // differ with the instant (46 against 189 usec); compare the shapes, not the lengths.
      const std::regex shape(R"(Timestamp: [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4} [0-9]{1,6} usec)");
      EXPECT_TRUE(std::regex_match(theirs[i], shape)) << "ip: " << theirs[i];
      EXPECT_TRUE(std::regex_match(ours[i], shape)) << ours[i] << " vs ip's " << theirs[i];
    } else {
      EXPECT_EQ(ours[i], theirs[i]);
    }
  }
}

TEST_F(MonitorCliTest, ShortTimestampsLikeIp) {
  // -ts ([-]tshort): one prefix on the event's own line, "[2026-11-26T18:40:09.954345] ".
  auto [ip, mine] = both("-ts", "route");
  auto theirs = lines(ip), ours = lines(mine);
  ASSERT_FALSE(theirs.empty()) << "ip monitor saw nothing";
  ASSERT_EQ(ours.size(), theirs.size()) << "ip:\n" << ip << "\nfastlink:\n" << mine;
  const std::regex stamp(R"(^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\] )");
  for (std::size_t i = 0; i < ours.size(); ++i) {
    std::smatch a, b;
    bool stamped = std::regex_search(theirs[i], a, stamp);
    ASSERT_EQ(std::regex_search(ours[i], b, stamp), stamped) << ours[i] << " vs ip's " << theirs[i];
    // The same event after the stamps (not the same instant).
    EXPECT_EQ(stamped ? b.suffix().str() : ours[i], stamped ? a.suffix().str() : theirs[i]);
  }
}

TEST_F(MonitorCliTest, JsonOneObjectPerEventWithShowFields) {
  auto [ip, mine] = both("-j", "route");
  // ip 6.1 ignores -j for monitor: its text says how many events there were.
  std::size_t events = lines(ip).size();
  auto ours = lines(mine);
  ASSERT_EQ(ours.size(), events) << "ip:\n" << ip << "\nfastlink:\n" << mine;
  std::multiset<std::string> seen;
  for (const auto& l : ours) {
    json j = json::parse(l);
    EXPECT_EQ(j["object"], "route");
    seen.insert(j["event"].get<std::string>() + " " + j["dst"].get<std::string>());
  }
  EXPECT_EQ(seen.count("new 10.10.0.0/16"), 2u);  // add, then replace
  EXPECT_EQ(seen.count("deleted 10.10.0.0/16"), 1u);
  EXPECT_EQ(seen.count("new 10.11.0.0/16"), 1u);
}

/// Every key `fastlink -j monitor` printed for an object must be in the object `ip -j ... show`
/// prints for it now, with the same value; `skip` names the event's own keys.
void expectSubsetOfIp(const json& ours, const json& ip, const std::set<std::string>& skip, const std::string& what) {
  for (const auto& [key, value] : ours.items()) {
    if (skip.count(key)) continue;
    ASSERT_TRUE(ip.contains(key)) << what << ": ip has no \"" << key << "\"\nours: " << ours.dump() << "\nip: " << ip.dump();
    EXPECT_EQ(value, ip[key]) << what << ": \"" << key << "\"\nours: " << ours.dump() << "\nip: " << ip.dump();
  }
}

TEST_F(MonitorCliTest, JsonOfEveryObjectCarriesTheValuesOfIpShow) {
  // The oracle is the state afterwards: the last event of each object that still exists must
  // say what `ip -j OBJECT show` says of it (ip 6.1's monitor has no JSON of its own). The
  // alias needs escaping; the routes cover a gateway, a type and table, multipath, IPv6, tos,
  // prefsrc and metrics; an address's metric, a router neighbour, a rule's tos and protocol, a
  // blackhole nexthop (`null`, as ip's print_null), all keys the monitor's own printers missed
  // or wrote otherwise before it printed with the show commands' printers.
  std::string out = "/tmp/fastlink-mon-json-" + ns.name(), ip = "ip -n " + ns.name() + " ";
  std::string script =
      monitorWaitFunctions(ns.name()) + cliPath() + " -n " + ns.name() + " -j monitor all >" + out + " 2>&1 & B=$!; listening $B; " + ip +
      "link add va type veth peer name vb; " + ip + "link set va mtu 1400 alias 'a \"quoted\" \\ alias'; " + ip +
      "link set va up; " + ip + "link set vb up; " + ip + "addr add 10.9.0.1/24 brd + dev va label va:one metric 77; " + ip +
      "-6 addr add 2001:db8::1/64 dev va nodad; " + ip + "route add 10.10.0.0/16 via 10.9.0.2 proto static metric 5; " +
      ip + "route add blackhole 10.11.0.0/16 table 100; " + ip +
      "route add 10.12.0.0/16 nexthop via 10.9.0.2 weight 2 nexthop via 10.9.0.3; " + ip +
      "-6 route add 2001:db8:1::/64 via 2001:db8::2 dev va; " + ip +
      "route add 10.13.0.0/16 via 10.9.0.2 src 10.9.0.1 metric 9 tos 0x10 window 1000 initcwnd 10; " + ip +
      "neigh add 10.9.0.7 lladdr 02:00:00:00:00:07 dev va router; " + ip +
      "rule add from 10.1.0.0/16 tos 0x10 table 100 pref 100 proto static; " + ip + "nexthop add id 5 via 10.9.0.2 dev va; " +
      ip + "nexthop add id 9 blackhole; " + ip + "nexthop add id 6 group 5; holds " + out + " '\"id\":6'; drained $B " + out + "; kill $B; wait";
  run("sh -c " + shellQuote(script));
  std::string text = run("cat " + out).out;
  run("rm -f " + out);
  // The last event of each object, by the identity ip's listing is searched with.
  std::map<std::string, json> last;
  for (const auto& l : lines(text)) {
    json j = json::parse(l);
    std::string kind = j["object"], id;
    if (kind == "link") id = std::to_string(j["ifindex"].get<int>());
    else if (kind == "address") id = j["local"].get<std::string>() + "/" + std::to_string(j["prefixlen"].get<int>());
    else if (kind == "route") id = j["dst"].get<std::string>() + " " + j.value("table", "main");
    else if (kind == "neigh") id = j["dst"].get<std::string>() + " " + j["dev"].get<std::string>();
    else if (kind == "rule") id = std::to_string(j["priority"].get<int>());
    else if (kind == "nexthop") id = std::to_string(j["id"].get<int>());
    last[kind + " " + id] = j;
  }
  std::map<std::string, json> theirs;
  for (const auto& l : ns.ipJson("link show")) theirs["link " + std::to_string(l["ifindex"].get<int>())] = l;
  for (const auto& l : ns.ipJson("addr show"))
    for (auto a : l["addr_info"]) {
      a["ifindex"] = l["ifindex"], a["ifname"] = l["ifname"];
      theirs["address " + a["local"].get<std::string>() + "/" + std::to_string(a["prefixlen"].get<int>())] = a;
    }
  for (const char* family : {"-4", "-6"})
    for (const auto& r : ns.ipJson(std::string(family) + " route show table all"))
      theirs["route " + r["dst"].get<std::string>() + " " + r.value("table", "main")] = r;
  for (const auto& n : ns.ipJson("neigh show")) theirs["neigh " + n["dst"].get<std::string>() + " " + n["dev"].get<std::string>()] = n;
  for (const auto& r : ns.ipJson("rule show")) theirs["rule " + std::to_string(r["priority"].get<int>())] = r;
  for (const auto& n : ns.ipJson("nexthop show")) theirs["nexthop " + std::to_string(n["id"].get<int>())] = n;

  for (const char* expected : {"link", "address 10.9.0.1/24", "address 2001:db8::1/64", "route 10.10.0.0/16 main",
                               "route 10.11.0.0/16 100", "route 10.12.0.0/16 main", "route 2001:db8:1::/64 main",
                               "route 10.13.0.0/16 main", "neigh 10.9.0.7 va", "rule 100", "nexthop 5", "nexthop 6",
                               "nexthop 9"})
    EXPECT_TRUE(std::any_of(last.begin(), last.end(), [&](const auto& e) { return e.first.rfind(expected, 0) == 0; }))
        << "no event for " << expected << "\n" << text;
  const std::set<std::string> eventKeys = {"event", "object", "nsid"};
  std::size_t compared = 0;
  for (const auto& [id, ours] : last) {
    auto it = theirs.find(id);
    if (ours["event"] == "deleted") {
      EXPECT_EQ(it, theirs.end()) << id << " was deleted, ip still lists it";
      continue;
    }
    ASSERT_NE(it, theirs.end()) << id << " is not listed by ip\n" << ours.dump();
    expectSubsetOfIp(ours, it->second, eventKeys, id);
    ++compared;
  }
  EXPECT_GE(compared, 13u);
  bool aliasSeen = std::any_of(last.begin(), last.end(), [](const auto& e) {
    return e.second.value("ifname", "") == "va" && e.second.value("ifalias", "") == R"(a "quoted" \ alias)";
  });
  EXPECT_TRUE(aliasSeen) << "the escaped alias did not come back whole\n" << text;
}

TEST_F(MonitorCliTest, TcEventsEqualTcMonitor) {
  // `fastlink monitor tc` prints what `tc monitor` prints for qdiscs and classes (tc's "deleted "),
  // both watching the same changes; -j carries the fields of `tc -j qdisc show`.
  std::string a = "/tmp/fastlink-mon-tc-" + ns.name(), b = a + "-fl", c = a + "-json", tc = "tc -n " + ns.name() + " ";
  std::string script = monitorWaitFunctions(ns.name()) + "ip -n " + ns.name() + " link add va type veth peer name vb; tc -n " + ns.name() +
                       " monitor >" + a + " 2>&1 & A=$!; " + cliPath() + " -n " + ns.name() + " monitor tc >" + b +
                       " 2>&1 & B=$!; " + cliPath() + " -n " + ns.name() + " -j monitor qdisc class >" + c +
                       " 2>&1 & C=$!; listening $A; listening $B; listening $C; " + tc +
                       "qdisc add dev va root handle 1: htb default 10; " + tc +
                       "class add dev va parent 1: classid 1:10 htb rate 10mbit 2>/dev/null; " + tc +
                       "class change dev va parent 1: classid 1:10 htb rate 20mbit 2>/dev/null; " + tc +
                       "qdisc add dev va parent 1:10 handle 10: pfifo limit 50; " + tc + "class del dev va classid 1:10; " +
                       tc + "qdisc add dev vb ingress; " + tc + "qdisc del dev vb ingress; " + tc + "qdisc del dev va root; " +
                       tc + "qdisc add dev vb root bfifo limit 10kb; drained $A " + a + " $B " + b + " $C " + c +
                       "; kill $A $B $C; wait";
  run("sh -c " + shellQuote(script));
  std::string theirs = run("cat " + a).out, mine = run("cat " + b).out, jsonText = run("cat " + c).out;
  run("rm -f " + a + " " + b + " " + c);
  ASSERT_GE(lines(theirs).size(), 9u) << theirs;
  EXPECT_EQ(lines(mine), lines(theirs)) << "tc monitor:\n" << theirs << "\nfastlink:\n" << mine;
  auto objects = lines(jsonText);
  ASSERT_EQ(objects.size(), lines(theirs).size()) << jsonText;
  for (const auto& l : objects) EXPECT_TRUE(json::accept(l)) << l;  // whole JSON lines
  json last = json::parse(objects.back());
  json shown = json::parse(run(tc + "-j qdisc show dev vb").out).at(0);
  EXPECT_EQ(last["event"], "new");
  EXPECT_EQ(last["object"], "qdisc");
  for (const char* key : {"kind", "handle", "root", "options"}) EXPECT_EQ(last[key], shown[key]) << key << "\n" << jsonText;
  EXPECT_EQ(last["dev"], "vb");
  json deletedClass = json::parse(objects[4]);
  EXPECT_EQ(deletedClass["event"], "deleted");
  EXPECT_EQ(deletedClass["object"], "class");
}

TEST_F(MonitorCliTest, TcFilterEventsEqualTcMonitor) {
  // Filters (u32 with a mirred action: what the host has) added, replaced, changed and deleted:
  // `fastlink monitor filter` prints `tc monitor`'s lines ("added ", "replaced ", "deleted ");
  // -j nests the filter as `tc -j filter show` writes it.
  std::string a = "/tmp/fastlink-mon-filter-" + ns.name(), b = a + "-fl", c = a + "-json", tc = "tc -n " + ns.name() + " ";
  std::string filter = "dev va ingress protocol ip pref 1 handle 800::1 u32 match ip dst 10.0.0.1/32 ";
  std::string script = monitorWaitFunctions(ns.name()) + "ip -n " + ns.name() + " link add va type veth peer name vb; " + tc +
                       "qdisc add dev va clsact; " + tc + "monitor >" + a + " 2>&1 & A=$!; " + cliPath() + " -n " + ns.name() +
                       " monitor filter >" + b + " 2>&1 & B=$!; " + cliPath() + " -n " + ns.name() + " -j monitor filter >" + c +
                       " 2>&1 & C=$!; listening $A; listening $B; listening $C; " + tc + "filter add " + filter +
                       "action mirred egress redirect dev vb; " + tc + "filter replace " + filter + "classid 1:2; " + tc +
                       "filter change " + filter + "classid 1:3; " + tc + "filter del dev va ingress pref 1; drained $A " + a +
                       " $B " + b + " $C " + c + "; kill $A $B $C; wait";
  run("sh -c " + shellQuote(script));
  std::string theirs = run("cat " + a).out, mine = run("cat " + b).out, jsonText = run("cat " + c).out;
  run("rm -f " + a + " " + b + " " + c);
  ASSERT_NE(theirs.find("added filter dev va ingress"), std::string::npos) << theirs;
  ASSERT_NE(theirs.find("replaced filter dev va ingress"), std::string::npos) << theirs;
  // tc also prints the chain that the first filter creates and the last one's deletion removes
  // ("added chain dev va parent ffff: chain 0"): chain events are not decoded by fastlink.
  std::vector<std::string> theirFilters;
  for (const auto& l : lines(theirs))
    if (l.find(" chain dev ") == std::string::npos) theirFilters.push_back(l);
  EXPECT_EQ(lines(mine), theirFilters) << "tc monitor:\n" << theirs << "\nfastlink:\n" << mine;
  auto objects = lines(jsonText);
  ASSERT_EQ(objects.size(), 4u) << jsonText;
  std::vector<std::string> events;
  for (const auto& l : objects) {
    json e = json::parse(l);
    EXPECT_EQ(e["object"], "filter") << l;
    EXPECT_EQ(e["filter"]["kind"], "u32") << l;
    EXPECT_EQ(e["filter"]["dev"], "va") << l;
    events.push_back(e["event"]);
  }
  EXPECT_EQ(events, (std::vector<std::string>{"new", "new", "new", "deleted"}));
}

TEST_F(MonitorCliTest, SyncRefusesTc) {
  auto r = cli("monitor qdisc sync");
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("sync mirrors link, address, route and neigh only"), std::string::npos) << r.err;
}

TEST_F(MonitorCliTest, DevFilterKeepsOneDevice) {
  // vb exists before the monitors start (`dev DEV` is resolved then; with stderr apart from the
  // events, a missing vb no longer passes as a line that names it).
  ns.ip("link add va type veth peer name vb");
  std::string ip = "ip -n " + ns.name() + " ";
  std::string script = ip + "link set va up; " + ip + "link set vb up; " + ip + "addr add 10.9.0.1/24 dev va; " + ip +
                       "addr add 10.8.0.1/24 dev vb; " + ip + "route add 10.10.0.0/16 via 10.8.0.2 dev vb; " + ip +
                       "route add 10.11.0.0/16 via 10.9.0.2 dev va; " + ip + "link del va";
  auto [theirs, mine] = both("", "route dev vb", script);
  // vb's routes only, each without `dev vb` (ip's filter leaves the known device out).
  EXPECT_NE(mine.find("10.10.0.0/16 via 10.8.0.2\n"), std::string::npos) << mine;
  EXPECT_EQ(mine.find("10.11.0.0/16"), std::string::npos) << mine;
  EXPECT_EQ(mine.find(" dev "), std::string::npos) << mine;
  EXPECT_EQ(lines(mine), lines(theirs)) << "ip:\n" << theirs << "\nfastlink:\n" << mine;
}

/// A bridge br0 with a port p0, made before the monitors start: a port joining (or leaving) is
/// announced by the bridge too (an AF_BRIDGE RTM_NEWLINK), which `ip monitor` prints as one more
/// link line and fastlink does not (docs/cli/monitor.md).
void addBridgeWithPort(TestNetns& ns) {
  for (const char* line : {"link add br0 type bridge", "link add p0 type veth peer name p1", "link set p0 master br0"}) ns.ip(line);
}

TEST_F(MonitorCliTest, BridgeFdbEntriesAsIpMonitorNeighPrintsThem) {
  // Bridge FDB changes are AF_BRIDGE neighbours on the neighbour group, which `ip monitor neigh`
  // prints with print_neigh ("dev p0 lladdr 02:... NOARP", a remote as dst): a static, a
  // permanent and an externally learned entry, a device's own (`self`: "NOARP PERMANENT" in its
  // notification), a vxlan entry with a remote, a replace and deletions. With `dev p0` only p0's,
  // without "dev p0".
  addBridgeWithPort(ns);
  std::string ip = "ip -n " + ns.name() + " ", bridge = "bridge -n " + ns.name() + " ";
  std::string fdb = bridge + "fdb add 02:00:00:00:00:11 dev p0 master static; " + bridge +
                    "fdb add 02:00:00:00:00:12 dev p0 master permanent; " + bridge + "fdb add 02:00:00:00:00:13 dev p0 self permanent; " +
                    bridge + "fdb add 02:00:00:00:00:14 dev p0 master extern_learn; " + bridge +
                    "fdb replace 02:00:00:00:00:11 dev p0 master permanent; " + bridge + "fdb del 02:00:00:00:00:12 dev p0 master; " +
                    ip + "link add vx0 type vxlan id 5 dstport 4789 local 10.0.0.1; " + bridge +
                    "fdb append 00:00:00:00:00:00 dev vx0 dst 10.0.0.9; " + bridge + "fdb del 02:00:00:00:00:13 dev p0 self; " + kSettle +
                    "; " + ip + "link del vx0; " + bridge + "fdb del 02:00:00:00:00:11 dev p0 master; " + bridge +
                    "fdb del 02:00:00:00:00:14 dev p0 master";
  for (const char* words : {"neigh", "all", "neigh dev p0"}) {
    auto [theirs, mine] = both("", words, fdb);
    EXPECT_NE(theirs.find("lladdr 02:00:00:00:00:11 NOARP"), std::string::npos) << words << ": ip printed no FDB entry\n" << theirs;
    EXPECT_EQ(lines(mine), lines(theirs)) << words << "\nip:\n" << theirs << "\nfastlink:\n" << mine;
  }
}

TEST_F(MonitorCliTest, FamilyOptionKeepsThatFamilysAddressesRoutesRulesAndNeighbours) {
  // ip -4/-6/-0/-B monitor joins only that family's address, route and rule groups (none for -0
  // and -B) and prints only that family's neighbours: the bridge FDB entries with -B alone;
  // links and nexthops whatever it is.
  addBridgeWithPort(ns);
  std::string ip = "ip -n " + ns.name() + " ", bridge = "bridge -n " + ns.name() + " ";
  std::string fdb = bridge + "fdb add 02:00:00:00:00:11 dev p0 master static; " + ip + "-6 neigh add 2001:db8::7 lladdr 02:00:00:00:00:07 dev p0; ";
  for (std::string family : {"-4", "-6", "-0", "-B"}) {
    auto [theirs, mine] = both(family, "", fdb + changes() + "; " + bridge + "fdb del 02:00:00:00:00:11 dev p0 master; " + ip +
                                               "-6 neigh del 2001:db8::7 dev p0");
    EXPECT_EQ(lines(mine), lines(theirs)) << family << "\nip:\n" << theirs << "\nfastlink:\n" << mine;
    EXPECT_EQ(theirs.find("02:00:00:00:00:11") != std::string::npos, family == "-B") << family << ": the FDB entry\n" << theirs;
  }
}

TEST_F(MonitorCliTest, BridgeFdbEntriesInJsonCarryTheKeysOfIpBridgeNeighShow) {
  // ip 6.1's monitor has no JSON: an FDB event's keys (object "fdb") are those `ip -j -B neigh
  // show` prints for the entry, with its values.
  std::string out = "/tmp/fastlink-mon-fdb-" + ns.name(), ip = "ip -n " + ns.name() + " ", bridge = "bridge -n " + ns.name() + " ";
  std::string script = monitorWaitFunctions(ns.name()) + cliPath() + " -n " + ns.name() + " -j monitor neigh >" + out +
                       " 2>&1 & B=$!; listening $B; " + ip + "link add br0 type bridge; " + ip + "link add p0 type veth peer name p1; " +
                       ip + "link set p0 master br0; " + bridge + "fdb add 02:00:00:00:00:11 dev p0 master static; " + bridge +
                       "fdb add 02:00:00:00:00:14 dev p0 master extern_learn; " + bridge +
                       "fdb add 02:00:00:00:00:15 dev p0 master permanent; holds " + out + " '02:00:00:00:00:15'; drained $B " + out +
                       "; kill $B; wait";
  run("sh -c " + shellQuote(script));
  std::string text = run("cat " + out).out;
  run("rm -f " + out);
  std::map<std::string, json> theirs;
  for (const auto& e : ns.ipJson("-B neigh show nud all")) theirs[e["lladdr"].get<std::string>() + " " + e.value("dev", "")] = e;
  std::size_t compared = 0;
  for (const auto& l : lines(text)) {
    json j = json::parse(l);
    if (j["object"] != "fdb" || !j.contains("lladdr") || j["lladdr"].get<std::string>().rfind("02:00:00:00:00:1", 0) != 0) continue;
    EXPECT_EQ(j["event"], "new") << l;
    auto it = theirs.find(j["lladdr"].get<std::string>() + " " + j.value("dev", ""));
    ASSERT_NE(it, theirs.end()) << l << " is not listed by ip -B neigh show";
    expectSubsetOfIp(j, it->second, {"event", "object", "nsid"}, l);
    EXPECT_EQ(j.size(), it->second.size() + 2) << "ours: " << l << "\nip: " << it->second.dump();
    ++compared;
  }
  EXPECT_EQ(compared, 3u) << text;
}

TEST_F(MonitorCliTest, BadObjectIsAUsageError) {
  auto r = cli("monitor bogus");
  EXPECT_EQ(r.status, 255);
  EXPECT_NE(r.err.find("bogus"), std::string::npos);
}

TEST_F(MonitorCliTest, AllNsidLabelsOtherNamespaces) {
  // A second namespace with an id in ours: its events arrive with [nsid N].
  TestNetns other;
  ns.ip("netns set " + other.name() + " 7");
  std::string out = "/tmp/fastlink-mon-nsid-" + ns.name();
  std::string script = monitorWaitFunctions(ns.name()) + cliPath() + " -n " + ns.name() + " monitor link all-nsid >" + out +
                       " 2>&1 & B=$!; listening $B; ip -n " + other.name() + " link add xa type veth peer name xb; ip -n " +
                       ns.name() + " link add ya type veth peer name yb; holds " + out + " 'yb'; drained $B " + out +
                       "; kill $B; wait";
  run("sh -c " + shellQuote(script));
  std::string text = run("cat " + out).out;
  run("rm -f " + out);
  EXPECT_NE(text.find("[nsid 7]2: xb"), std::string::npos) << text;
  EXPECT_NE(text.find("[nsid current]"), std::string::npos) << text;
}

TEST_F(MonitorCliTest, LinkInANamedNamespaceIsNamedAsIpNamesIt) {
  // ip prints the nsid of a namespace under /run/netns as `link-netns NAME`, the number otherwise.
  TestNetns other;
  ns.ip("netns set " + other.name() + " 7");
  std::string a = "/tmp/fastlink-mon-ip-" + ns.name(), b = "/tmp/fastlink-mon-fl-" + ns.name();
  std::string ip = "ip -n " + ns.name() + " ";
  std::string script = monitorWaitFunctions(ns.name()) + ip + "monitor link >" + a + " 2>&1 & A=$!; " + cliPath() + " -n " +
                       ns.name() + " monitor link >" + b + " 2>&1 & B=$!; listening $A; listening $B; " + ip +
                       "link add va type veth peer name vb netns " + other.name() + "; drained $A " + a + " $B " + b +
                       "; kill $A $B; wait";
  run("sh -c " + shellQuote(script));
  std::string ipOut = run("cat " + a).out, flOut = run("cat " + b).out;
  run("rm -f " + a + " " + b);
  // Both listened before va was made: what each printed from va on is the same.
  auto fromVa = [](const std::string& text) {
    auto all = lines(text);
    auto first = std::find_if(all.begin(), all.end(), [](const std::string& l) { return l.find(" va@") != std::string::npos; });
    return std::vector<std::string>(first, all.end());
  };
  ASSERT_NE(ipOut.find("link-netns " + other.name()), std::string::npos) << ipOut;
  EXPECT_EQ(fromVa(flOut), fromVa(ipOut)) << "ip:\n" << ipOut << "\nfastlink:\n" << flOut;
}

TEST_F(MonitorCliTest, RestartedSyncMonitorRebuildsTheExactState) {
  // What a monitor claims to have delivered is what it wrote: whole lines. A reader that loses
  // the monitor restarts it with `sync`, which prints the current state first; the reader's
  // view (snapshot + events) then equals the kernel's, whatever happened while no monitor ran.
  std::string first = "/tmp/fastlink-mon-sync1-" + ns.name(), second = "/tmp/fastlink-mon-sync2-" + ns.name();
  std::string ip = "ip -n " + ns.name() + " ";
  // Each waits for its monitor's last event (a sync monitor prints the state before the events).
  std::string script = monitorWaitFunctions(ns.name()) + cliPath() + " -n " + ns.name() + " -j monitor route sync >" + first +
                       " & B=$!; listening $B; " + ip + "route add blackhole 10.1.0.0/16; " + ip +
                       "route add blackhole 10.2.0.0/16; holds " + first + " '10\\.2\\.0\\.0/16'; kill -9 $B; " + ip +
                       "route del blackhole 10.1.0.0/16; " + ip + "route add blackhole 10.3.0.0/16 table 5; " + cliPath() +
                       " -n " + ns.name() + " -j monitor route sync >" + second + " & C=$!; listening $C; " + ip +
                       "route add blackhole 10.4.0.0/16; " + ip + "route del blackhole 10.2.0.0/16; holds " + second +
                       " 'deleted.*10\\.2\\.0\\.0/16'; drained $C " + second + "; kill $C; wait";
  run("sh -c " + shellQuote(script));
  auto firstLines = lines(run("cat " + first).out), secondLines = lines(run("cat " + second).out);
  run("rm -f " + first + " " + second);
  for (const auto& l : firstLines) EXPECT_TRUE(json::accept(l)) << l;  // no half event
  std::set<std::string> view;
  for (const auto& l : secondLines) {
    json j = json::parse(l);
    std::string key = j["dst"].get<std::string>() + " " + j.value("table", "main");
    if (j["event"] == "deleted") view.erase(key);
    else view.insert(key);
  }
  std::set<std::string> kernel;
  for (const char* family : {"-4", "-6"})
    for (const auto& r : ns.ipJson(std::string(family) + " route show table all"))
      kernel.insert(r["dst"].get<std::string>() + " " + r.value("table", "main"));
  EXPECT_EQ(view, kernel);
  EXPECT_TRUE(view.count("10.3.0.0/16 5"));
  EXPECT_FALSE(view.count("10.1.0.0/16 main"));
}

TEST_F(MonitorCliTest, SyncShowsRouteChangesTheKernelDoesNotAnnounce) {
  // Routes over a nexthop group lose a path when a member goes, and a route over a nexthop goes
  // with the nexthop's device: `ip monitor` prints no route line for either. A `sync` monitor's
  // reader still ends with the kernel's routes.
  std::string ip = "ip -n " + ns.name() + " ", out = "/tmp/fastlink-mon-silent-" + ns.name();
  std::string setup = ip + "link add va type veth peer name vb; " + ip + "link add vc type veth peer name vd; ";
  // No IPv6 on the veths: their IPv6 routes (link-local, and ff00::/8 even with addrgenmode
  // none) appear when linkwatch reports the carrier, up to a second after `up`, maybe between the
  // monitor's end and ip's read (seen in the VM, and on a loaded host).
  setup = "ip netns exec " + ns.name() + " sysctl -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null; " + setup;
  for (const char* dev : {"va", "vb", "vc", "vd"}) setup += ip + "link set " + dev + " addrgenmode none up; ";
  setup += ip + "addr add 10.9.0.1/24 dev va; " + ip + "addr add 10.8.0.1/24 dev vc; " + ip +
           "nexthop add id 1 via 10.9.0.2 dev va; " + ip + "nexthop add id 2 via 10.8.0.2 dev vc; " + ip +
           "nexthop add id 3 via 10.9.0.3 dev va; " + ip + "nexthop add id 10 group 1/2/3; " + ip +
           "route add 10.50.0.0/16 nhid 10; " + ip + "route add 10.53.0.0/16 nhid 2 table 7; ";
  std::string script = monitorWaitFunctions(ns.name()) + setup + cliPath() + " -n " + ns.name() + " -j monitor route sync >" + out +
                       " & B=$!; listening $B; " + ip + "nexthop del id 1; " + ip + "link set vc down; holds " + out +
                       " 'deleted.*10\\.53\\.0\\.0/16'; drained $B " + out + "; kill $B; wait";
  run("sh -c " + shellQuote(script));
  auto events = lines(run("cat " + out).out);
  run("rm -f " + out);
  std::map<std::string, json> view;
  bool groupRouteChanged = false, nexthopRouteDeleted = false;
  for (const auto& l : events) {
    json j = json::parse(l);
    std::string key = j["dst"].get<std::string>() + " " + j.value("table", "main");
    if (j["event"] == "deleted") view.erase(key);
    else view[key] = j;
    groupRouteChanged |= j["event"] == "changed" && key == "10.50.0.0/16 main";
    nexthopRouteDeleted |= j["event"] == "deleted" && key == "10.53.0.0/16 7";
  }
  EXPECT_TRUE(groupRouteChanged);
  EXPECT_TRUE(nexthopRouteDeleted);
  std::set<std::string> kernel, mine;
  for (const char* family : {"-4", "-6"})
    for (const auto& r : ns.ipJson(std::string(family) + " route show table all"))
      kernel.insert(r["dst"].get<std::string>() + " " + r.value("table", "main"));
  for (const auto& [key, j] : view) mine.insert(key);
  EXPECT_EQ(mine, kernel);
  // The group route's paths are ip's: 3 only (1 deleted, 2 gone with vc).
  ASSERT_TRUE(view.count("10.50.0.0/16 main"));
  EXPECT_EQ(view["10.50.0.0/16 main"]["gateway"], ns.ipJson("route show 10.50.0.0/16")[0]["gateway"]);
}

TEST_F(MonitorCliTest, StreamIsWholeAndEachEventIsPromptWhenTheStreamStops) {
  // Events that stream in are read in batches (held up to 1 ms so that more queue up); that
  // must neither lose nor cut a line, nor keep an event waiting once nothing else comes.
  // Timed with the shell's clock (bash), polling the output file every 5 ms. What must not happen
  // is a line left in a buffer until the next event, which here never comes: such a line would
  // never show. The bounds (a single event within 1 s, the burst's last line within 5 s) leave
  // room for a sanitizer build on a loaded CI machine; how fast it is belongs to bench/.
  std::string out = "/tmp/fastlink-mon-stream-" + ns.name(), batch = "/tmp/fastlink-mon-batch-" + ns.name();
  std::string lines2000;
  for (int i = 0; i < 1000; ++i) lines2000 += "route add blackhole 10.50." + std::to_string(i / 250) + "." + std::to_string(i % 250) + "/32\n";
  for (int i = 0; i < 1000; ++i) lines2000 += "route del blackhole 10.50." + std::to_string(i / 250) + "." + std::to_string(i % 250) + "/32\n";
  run("printf %s " + shellQuote(lines2000) + " > " + batch);
  std::string ip = "ip -n " + ns.name() + " ";
  // until FILE has N lines: milliseconds waited (or "timeout" after 10 s)
  std::string until = "until_lines() { t0=${EPOCHREALTIME/./}; while [ $(wc -l < $1) -lt $2 ]; do "
                      "[ $(( ${EPOCHREALTIME/./} - t0 )) -gt 10000000 ] && { echo timeout; return; }; sleep 0.005; done; "
                      "echo $(( (${EPOCHREALTIME/./} - t0) / 1000 )); }; ";
  std::string script = monitorWaitFunctions(ns.name()) + until + cliPath() + " -n " + ns.name() + " -j monitor route >" + out +
                       " & B=$!; listening $B; " + ip + "-batch " + batch + "; echo burst $(until_lines " + out +
                       " 2000); sleep 0.3; " + ip +
                       "route add blackhole 10.51.0.0/16; echo single $(until_lines " + out + " 2001); kill $B; wait";
  auto r = run("bash -c " + shellQuote(script));
  std::string text = run("cat " + out).out;
  run("rm -f " + out + " " + batch);
  std::istringstream report(r.out);
  std::string word, burst, single;
  report >> word >> burst >> word >> single;
  ASSERT_NE(burst, "timeout") << r.out;
  ASSERT_NE(single, "timeout") << r.out;
  EXPECT_LE(std::stoi(burst), 5000) << "ms from the end of the burst to its last line";
  EXPECT_LE(std::stoi(single), 1000) << "ms from a single change to its line";
  auto ours = lines(text);
  ASSERT_EQ(ours.size(), 2001u);
  std::multiset<std::string> seen;
  for (const auto& l : ours) {
    json j = json::parse(l);  // throws on a cut line
    seen.insert(j["event"].get<std::string>() + " " + j["dst"].get<std::string>());
  }
  EXPECT_EQ(seen.count("new 10.50.3.249"), 1u);
  EXPECT_EQ(seen.count("deleted 10.50.0.0"), 1u);
  EXPECT_EQ(seen.count("new 10.51.0.0/16"), 1u);
  EXPECT_EQ(ours.back(), R"({"event":"new","object":"route","type":"blackhole","dst":"10.51.0.0/16","flags":[]})");
  // The oracle: the burst left nothing behind, the single route is there.
  EXPECT_EQ(ns.ipJson("route show type blackhole").size(), 1u);
}

TEST_F(MonitorCliTest, ReaderThatLagsDoesNotStopTheMonitorReadingTheKernel) {
  // A burst of 2,000 route events is ~160 KB of JSON: a default pipe (64 KiB) to a reader that
  // lags would put the monitor to sleep in write() while the notifications pile up in its
  // socket. The monitor grows its pipe to 1 MiB, so it reads on. Oracles, taken while the reader
  // still sleeps: the kernel's receive queue of each of the monitor's netlink sockets (Rmem in
  // the namespace's /proc/net/netlink, by the sockets' inodes) and where the monitor sleeps
  // (/proc/PID/wchan: pipe_write on 6.1, anon_pipe_write on 6.18 when blocked on the pipe).
  std::string dir = "/tmp/fastlink-mon-lag-" + ns.name(), batch = dir + "/batch", out = dir + "/out", fifo = dir + "/fifo";
  run("rm -rf " + dir + " && mkdir " + dir + " && mkfifo " + fifo);
  std::string changes;
  for (int i = 0; i < 2000; ++i) changes += "route add blackhole 10.52." + std::to_string(i / 250) + "." + std::to_string(i % 250) + "/32\n";
  run("printf %s " + shellQuote(changes) + " > " + batch);
  // (one readlink per fd: busybox readlink, in the VM, takes one file)
  std::string queued = "for i in $(for f in /proc/$B/fd/*; do readlink $f; done | grep socket | tr -dc '0-9\\n'); do "
                       "ip netns exec " + ns.name() + " awk -v i=$i '$NF == i {print \"rmem\", $5}' /proc/net/netlink; done; ";
  // The reader starts reading only when told (the file `go`), after the checks; the checks wait
  // (up to 10 s) for the monitor to have read its sockets empty, which a monitor asleep in
  // write() never does.
  std::string go = dir + "/go";
  std::string emptied = "n=0; while [ -n \"$(nl_column $B 5 | tr -d ' 0')\" ] && [ $n -lt 500 ]; do sleep 0.02; n=$((n+1)); done; ";
  std::string script = monitorWaitFunctions(ns.name()) + cliPath() + " -n " + ns.name() + " -j monitor route > " + fifo + " & B=$!; " +
                       "(while [ ! -e " + go + " ]; do sleep 0.02; done; cat > " + out + ") < " + fifo + " & R=$!; listening $B; ip -n " +
                       ns.name() + " -batch " + batch + "; " + emptied + queued + "echo wchan $(cat /proc/$B/wchan); touch " + go +
                       "; n=0; while [ $(wc -l < " + out + " 2>/dev/null || echo 0) -lt 2000 ] && [ $n -lt 500 ]; do sleep 0.02; n=$((n+1)); done; kill $B; wait";
  auto r = run("timeout 60 bash -c " + shellQuote(script));
  auto ours = lines(run("cat " + out).out);
  run("rm -rf " + dir);
  EXPECT_NE(r.out.find("rmem "), std::string::npos) << "no netlink socket of the monitor found: " << r.out;
  std::istringstream report(r.out);
  for (std::string word, value; report >> word >> value;)
    if (word == "rmem") {
      EXPECT_EQ(value, "0") << "notifications left in the monitor's socket: " << r.out;
    }
  EXPECT_NE(r.out.find("wchan "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("pipe_write"), std::string::npos) << "the monitor slept in write(): " << r.out;
  ASSERT_EQ(ours.size(), 2000u);
  for (const auto& l : ours) EXPECT_TRUE(json::accept(l)) << "a cut line: " << l;
  EXPECT_EQ(ns.ipJson("route show type blackhole").size(), 2000u);  // the oracle: the burst happened
}

TEST_F(MonitorCliTest, ReaderClosingThePipeEndsTheMonitorWithStatusZero) {
  // A fifo instead of `|`, so that the script knows the monitor's pid (to wait until it listens)
  // and that `head` is gone before the second change.
  std::string fifo = "/tmp/fastlink-mon-head-" + ns.name();
  std::string script = monitorWaitFunctions(ns.name()) + "rm -f " + fifo + "; mkfifo " + fifo + "; " + cliPath() + " -n " + ns.name() +
                       " -j monitor route > " + fifo + " & B=$!; head -n 1 < " + fifo + " >/dev/null & H=$!; listening $B; ip -n " +
                       ns.name() + " route add blackhole 10.60.0.0/16; wait $H; ip -n " + ns.name() +
                       " route del blackhole 10.60.0.0/16; wait $B; echo status $?; rm -f " + fifo;
  auto r = run("timeout 30 bash -c " + shellQuote(script));
  EXPECT_NE(r.out.find("status 0"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(ns.ipJson("route show type blackhole").empty());  // the oracle: both changes happened
}

}  // namespace
}  // namespace fastlink::test
