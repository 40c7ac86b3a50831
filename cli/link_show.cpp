#include "link_show.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "link_kind.hpp"

namespace fastlink::cli {
namespace {

using json = nlohmann::ordered_json;

/// What other links' lines need to know about a device: its name (master, @peer) and flags
/// (iproute2 prints M-DOWN when the lower device is down).
struct Peer {
  std::string name;
  uint32_t flags = 0;
};
using PeerMap = std::unordered_map<uint32_t, Peer>;

// Device flag bits (the interface flags ABI of <linux/if.h>), in the order `ip link` prints them.
constexpr std::pair<uint32_t, const char*> kFlagNames[] = {
    {1u << 3, "LOOPBACK"}, {1u << 1, "BROADCAST"},  {1u << 4, "POINTOPOINT"}, {1u << 12, "MULTICAST"},
    {1u << 7, "NOARP"},    {1u << 9, "ALLMULTI"},   {1u << 8, "PROMISC"},     {1u << 10, "MASTER"},
    {1u << 11, "SLAVE"},   {1u << 2, "DEBUG"},      {1u << 15, "DYNAMIC"},    {1u << 14, "AUTOMEDIA"},
    {1u << 13, "PORTSEL"}, {1u << 5, "NOTRAILERS"}, {1u << 0, "UP"},          {1u << 16, "LOWER_UP"},
    {1u << 17, "DORMANT"}, {1u << 18, "ECHO"}};
constexpr uint32_t kFlagUp = 1u << 0;
constexpr uint32_t kFlagRunning = 1u << 6;  // never printed, like iproute2

std::vector<std::string> flagNames(uint32_t flags, bool lowerDown) {
  std::vector<std::string> out;
  if ((flags & kFlagUp) && !(flags & kFlagRunning)) out.emplace_back("NO-CARRIER");
  flags &= ~kFlagRunning;
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) out.emplace_back(name);
    flags &= ~bit;
  }
  if (flags) out.push_back(fmt::format("{:x}", flags));
  if (lowerDown) out.emplace_back("M-DOWN");
  return out;
}

std::string linkTypeName(uint16_t type) {
  // ARPHRD_* values (<net/if_arp.h>) of the device types fastlink users meet.
  switch (type) {
    case 1: return "ether";
    case 6: return "ieee802";
    case 768: return "ipip";
    case 769: return "tunnel6";
    case 772: return "loopback";
    case 776: return "sit";
    case 778: return "gre";
    case 823: return "gre6";
    case 65534: return "none";
    case 0xffff: return "void";
    default: return fmt::format("[{}]", type);
  }
}

std::string groupName(uint32_t group) { return group == 0 ? "default" : std::to_string(group); }

std::string nameOf(const PeerMap& peers, uint32_t index) {
  auto it = peers.find(index);
  return it != peers.end() ? it->second.name : fmt::format("if{}", index);
}

/// The kind options fastlink decodes, printed by the kind's file in cli/link_kinds/, as one
/// (key, JSON value, text) list so text and JSON agree.
std::vector<KindOption> kindOptions(const LinkInfo& l, const PeerMap& peers) {
  const CliLinkKind* cli = l.kind ? findCliLinkKind(*l.kind) : nullptr;
  if (!cli || !cli->print) return {};
  return cli->print(l, [&](uint32_t index) { return nameOf(peers, index); });
}

/// The lower device of `l` as iproute2 shows it: a name ("@v1"), or "if5" in another namespace.
struct LowerDevice {
  uint32_t index = 0;
  bool otherNetns = false;
  bool down = false;
};

LowerDevice lowerDevice(const LinkInfo& l, const PeerMap& peers) {
  LowerDevice d;
  d.index = l.parentIndex();
  if (d.index == 0 || (l.index && d.index == *l.index)) return {};
  d.otherNetns = l.linkNetnsId.has_value();
  if (d.otherNetns) return d;  // its flags are not ours to see; iproute2 prints no M-DOWN either
  auto it = peers.find(d.index);
  d.down = !((it != peers.end() ? it->second.flags : 0) & kFlagUp);
  return d;
}

json statsJson(const LinkStats& s) {
  return {{"rx",
           {{"bytes", s.rxBytes}, {"packets", s.rxPackets}, {"errors", s.rxErrors}, {"dropped", s.rxDropped},
            {"over_errors", s.rxOverErrors}, {"multicast", s.multicast}}},
          {"tx",
           {{"bytes", s.txBytes}, {"packets", s.txPackets}, {"errors", s.txErrors}, {"dropped", s.txDropped},
            {"carrier_errors", s.txCarrierErrors}, {"collisions", s.collisions}}}};
}

json linkJson(const LinkInfo& l, const PeerMap& peers, const GlobalOptions& o) {
  json j = json::object();
  if (l.index) j["ifindex"] = *l.index;
  LowerDevice lower = lowerDevice(l, peers);
  if (lower.index && lower.otherNetns) j["link_index"] = lower.index;
  else if (lower.index) j["link"] = nameOf(peers, lower.index);
  if (l.name) j["ifname"] = *l.name;
  j["flags"] = flagNames(l.flags.value_or(0), lower.index && lower.down);
  if (l.mtu) j["mtu"] = *l.mtu;
  if (l.qdisc) j["qdisc"] = *l.qdisc;
  if (l.masterIndex()) j["master"] = nameOf(peers, l.masterIndex());
  if (l.operState) j["operstate"] = *l.operState;
  if (l.linkMode) j["linkmode"] = *l.linkMode;
  if (l.group) j["group"] = groupName(*l.group);
  if (l.txqlen) j["txqlen"] = *l.txqlen;
  if (l.type) j["link_type"] = linkTypeName(*l.type);
  if (l.address) j["address"] = l.address->toString();
  if (l.broadcast) j["broadcast"] = l.broadcast->toString();
  if (l.linkNetnsId) j["link_netnsid"] = *l.linkNetnsId;
  if (o.details) {
    if (l.promiscuity) j["promiscuity"] = *l.promiscuity;
    if (l.minMtu) j["min_mtu"] = *l.minMtu;
    if (l.maxMtu) j["max_mtu"] = *l.maxMtu;
    if (l.kind || l.slaveKind) {
      json info = json::object();
      if (l.kind) info["info_kind"] = *l.kind;
      auto opts = kindOptions(l, peers);
      if (!opts.empty()) {
        json data = json::object();
        for (auto& opt : opts)
          if (!opt.value.is_null()) data[opt.key] = opt.value;  // null: a word iproute2 prints in text only
        info["info_data"] = data;
      }
      if (l.slaveKind) info["info_slave_kind"] = *l.slaveKind;
      j["linkinfo"] = info;
    }
    if (l.numTxQueues) j["num_tx_queues"] = *l.numTxQueues;
    if (l.numRxQueues) j["num_rx_queues"] = *l.numRxQueues;
  }
  if (l.alias && !l.alias->empty()) j["ifalias"] = *l.alias;
  if (o.stats && l.stats) j["stats64"] = statsJson(*l.stats);
  return j;
}

void printStats(const LinkStats& s) {
  printLine(fmt::format("    RX: {:>10} {:>8} {:>7} {:>7} {:>7} {:>7}", "bytes", "packets", "errors", "dropped", "missed", "mcast"));
  printLine(fmt::format("        {:>10} {:>8} {:>7} {:>7} {:>7} {:>7}", s.rxBytes, s.rxPackets, s.rxErrors, s.rxDropped,
                        s.rxMissedErrors, s.multicast));
  printLine(fmt::format("    TX: {:>10} {:>8} {:>7} {:>7} {:>7} {:>7}", "bytes", "packets", "errors", "dropped", "carrier", "collsns"));
  printLine(fmt::format("        {:>10} {:>8} {:>7} {:>7} {:>7} {:>7}", s.txBytes, s.txPackets, s.txErrors, s.txDropped,
                        s.txCarrierErrors, s.collisions));
}

void printLinkText(const LinkInfo& l, const PeerMap& peers, const GlobalOptions& o) {
  LowerDevice lower = lowerDevice(l, peers);
  std::string name = l.name.value_or("?");
  if (lower.index) name += "@" + (lower.otherNetns ? fmt::format("if{}", lower.index) : nameOf(peers, lower.index));
  std::string flags;
  for (const auto& f : flagNames(l.flags.value_or(0), lower.index && lower.down)) flags += (flags.empty() ? "" : ",") + f;
  TextLine first(fmt::format("{}: {}: <{}>", l.index.value_or(0), name, flags));
  if (l.mtu) first.add("mtu", *l.mtu);
  if (l.qdisc) first.add("qdisc", *l.qdisc);
  if (l.masterIndex()) first.add("master", nameOf(peers, l.masterIndex()));
  if (l.operState) first.add("state", *l.operState);
  if (l.linkMode) first.add("mode", *l.linkMode);
  if (l.group) first.add("group", groupName(*l.group));
  if (l.txqlen) first.add("qlen", *l.txqlen);
  printLine(first.str());

  TextLine second("    link/" + (l.type ? linkTypeName(*l.type) : std::string("none")));
  if (l.address) second.add(l.address->toString());
  if (l.broadcast) second.add("brd", l.broadcast->toString());
  if (l.linkNetnsId) second.add("link-netnsid", static_cast<uint64_t>(*l.linkNetnsId));
  if (o.details) {
    if (l.minMtu) second.add("minmtu", *l.minMtu);
    if (l.maxMtu) second.add("maxmtu", *l.maxMtu);
  }
  printLine(second.str());

  if (o.details) {
    TextLine kind("    ");
    if (l.kind) kind.add(*l.kind);
    for (const auto& opt : kindOptions(l, peers))
      if (!opt.text.empty()) kind.add(opt.text);  // empty: a key iproute2 prints in JSON only
    if (l.slaveKind) kind.add(*l.slaveKind + "_slave");
    if (l.numTxQueues) kind.add("numtxqueues", *l.numTxQueues);
    if (l.numRxQueues) kind.add("numrxqueues", *l.numRxQueues);
    if (kind.str().size() > 4) printLine(kind.str());
  }
  if (l.alias && !l.alias->empty()) printLine("    alias " + *l.alias);
  if (o.stats && l.stats) printStats(*l.stats);
}

struct ShowQuery {
  std::optional<std::string> dev;
  std::optional<std::string> master;
  LinkFilter filter;
  bool upOnly = false;
};

ShowQuery parseShow(Args& args) {
  ShowQuery q;
  while (!args.done()) {
    if (args.accept("dev")) q.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("type")) q.filter.kind = args.value("type");
    else if (args.accept("master")) q.master = parseIfname(args.value("master"), "master");
    else if (args.accept("group")) {
      std::string g = args.value("group");
      q.filter.group = g == "default" ? 0 : parseU32(g, "group");
    } else if (args.accept("up")) q.upOnly = true;
    else if (!q.dev && args.peek() != "help") q.dev = parseIfname(args.next(), "dev");
    else args.unknown("link show takes: [dev] NAME, type KIND, master DEV, group GROUP, up");
  }
  return q;
}

bool keep(const LinkInfo& l, const ShowQuery& q, uint32_t masterIndex) {
  if (q.upOnly && !l.isUp()) return false;
  if (q.filter.group && l.group != q.filter.group) return false;
  if (q.filter.kind && l.kind != q.filter.kind) return false;
  if (q.master && l.masterIndex() != masterIndex) return false;
  return true;
}

/// Names and flags of the devices that `links` refer to (masters, lower devices); takes them
/// from `links` when it holds them all, else from one extra dump.
PeerMap peerMap(LinkApi& api, const std::vector<LinkInfo>& links) {
  PeerMap peers;
  for (const auto& l : links)
    if (l.index && l.name) peers[*l.index] = {*l.name, l.flags.value_or(0)};
  bool complete = true;
  for (const auto& l : links) {
    std::vector<uint32_t> refs = {l.masterIndex(), l.parentIndex()};
    if (const CliLinkKind* cli = l.kind ? findCliLinkKind(*l.kind) : nullptr; cli && cli->devices) {
      auto more = cli->devices(l);
      refs.insert(refs.end(), more.begin(), more.end());
    }
    for (uint32_t ref : refs)
      if (ref && !peers.count(ref)) complete = false;
  }
  if (complete) return peers;
  api.forEach({}, [&](const LinkInfo& l) {
    if (l.index && l.name) peers[*l.index] = {*l.name, l.flags.value_or(0)};
  });
  return peers;
}

std::string deviceMissing(const std::string& name) { return fmt::format("Device \"{}\" does not exist.", name); }

}  // namespace

int showLinks(Context& ctx, Args& args) {
  ShowQuery q = parseShow(args);
  const GlobalOptions& o = ctx.options();
  LinkApi& api = ctx.netlink().links();
  try {
    uint32_t masterIndex = 0;
    if (q.master) {
      auto m = api.find(*q.master);
      if (!m) return printError(deviceMissing(*q.master)), kExitFailed;
      masterIndex = *m->index;
      q.filter.setMaster(masterIndex);
    }
    std::vector<LinkInfo> links;
    q.filter.withStats = o.stats > 0;
    if (q.dev) {
      auto l = api.find(*q.dev, q.filter.withStats);
      if (!l) return printError(deviceMissing(*q.dev)), kExitFailed;
      links.push_back(std::move(*l));
    } else {
      links = api.list(q.filter);
    }
    std::erase_if(links, [&](const LinkInfo& l) { return !keep(l, q, masterIndex); });
    PeerMap peers = peerMap(api, links);
    if (o.json) {
      JsonArrayWriter out(stdout, o.pretty);
      for (const auto& l : links) out.add(linkJson(l, peers, o));
    } else {
      for (const auto& l : links) printLinkText(l, peers, o);
    }
  } catch (const Error& e) {
    printError(fmt::format("{} ({})", failureReason(e, nullptr), e.operation()));
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace fastlink::cli
