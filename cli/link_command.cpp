// The `link` object: `fastlink link { add | set | del | replace | show } ...`, iproute2 grammar.
// Parsing lives here; printing in link_show.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "args.hpp"
#include "command.hpp"
#include "link_show.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink link add [link DEV] [name] NAME [OPTIONS] type KIND [KIND OPTIONS]
       fastlink link replace [name] NAME [OPTIONS] type KIND [KIND OPTIONS]
       fastlink link set { [dev] NAME | group GROUP } [OPTIONS] [type KIND [KIND OPTIONS]]
       fastlink link del { [dev] NAME | group GROUP }
       fastlink link [show] [[dev] NAME] [type KIND] [master DEV] [group GROUP] [up]

OPTIONS := mtu MTU | address LLADDR | group GROUP | master DEV | nomaster | up | down |
           txqlen N | qlen N | alias TEXT | numtxqueues N | numrxqueues N | link DEV |
           netns NETNSNAME | name NEWNAME (set: rename)
KIND := veth | bridge | vxlan | macvlan | macvtap | dummy | ifb | wireguard | vlan | vrf | bond
KIND OPTIONS:
  veth:    peer [name] PEER [address LLADDR] [netns NETNSNAME]
  bridge:  vlan_filtering 0|1 | vlan_default_pvid VID | stp_state 0|1 | ageing_time CENTISECONDS |
           no_linklocal_learn 0|1
  vxlan:   id VNI | local IP | remote IP | group IP | dstport PORT | dev DEV | learning | nolearning | ttl TTL
  macvlan, macvtap: mode { private | vepa | bridge | passthru | source }
  vlan:    id VID | protocol { 802.1Q | 802.1ad }   (parent: link DEV)
  vrf:     table TABLE
  bond:    mode { balance-rr | active-backup | balance-xor | broadcast | 802.3ad | balance-tlb |
           balance-alb } | miimon MS
  dummy, ifb, wireguard: no options)";

enum class Verb { Add, Replace, Set };

/// A parsed link command: the LinkInfo, plus the names the kernel wants as ifindexes.
struct ParsedLink {
  LinkInfo info;
  std::optional<std::string> master;
  std::optional<std::string> parent;
  std::optional<std::string> vxlanDev;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto* n : {&master, &parent, &vxlanDev})
      if (*n) out.push_back(**n);
    return out;
  }

  LinkInfo resolved(Resolver& resolver) const {
    LinkInfo out = info;
    if (master) out.master = Ifref(resolver.index(*master));
    if (parent) out.parent = Ifref(resolver.index(*parent));
    if (vxlanDev) out.vxlan->dev = Ifref(resolver.index(*vxlanDev));
    return out;
  }
};

uint32_t parseGroup(std::string_view text) {
  if (text == "default") return 0;
  return parseU32(text, "group");
}

std::string knownKindsText() {
  std::string s;
  for (const auto& k : knownLinkKinds()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

std::string parseKind(std::string_view text) {
  auto kinds = knownLinkKinds();
  if (std::find(kinds.begin(), kinds.end(), text) == kinds.end())
    throw UsageError(fmt::format("unknown link type \"{}\" (known: {})", text, knownKindsText()));
  return std::string(text);
}

// ---- kind options ----------------------------------------------------------------------------

void parseVeth(Args& args, ParsedLink& p) {
  if (args.done()) return;  // the kernel names the peer (vethN), like `ip link add v0 type veth`
  VethInfo v;
  if (!args.accept("peer")) args.unknown("type veth takes: peer [name] PEER [address LLADDR] [netns NETNSNAME]");
  while (!args.done()) {
    if (args.accept("name")) v.peerName = parseIfname(args.value("name"), "peer name");
    else if (args.accept("address")) v.peerAddress = parseMac(args.value("address"), "peer address");
    else if (args.accept("netns")) v.peerNetns = Netns::named(args.value("netns"));
    else if (!v.peerName) v.peerName = parseIfname(args.next(), "peer name");
    else args.unknown("after \"peer\": name, address, netns");
  }
  if (!v.peerName) throw UsageError("veth: \"peer\" needs a name (peer name PEER)");
  p.info.veth = v;
}

void parseBridge(Args& args, ParsedLink& p) {
  BridgeInfo b;
  while (!args.done()) {
    if (args.accept("vlan_filtering")) b.vlanFiltering = parseBool01(args.value("vlan_filtering"), "vlan_filtering");
    else if (args.accept("vlan_default_pvid"))
      b.vlanDefaultPvid = static_cast<uint16_t>(parseInteger(args.value("vlan_default_pvid"), "vlan_default_pvid", 0, 4094));
    else if (args.accept("stp_state")) b.stpState = parseBool01(args.value("stp_state"), "stp_state") ? 1 : 0;
    else if (args.accept("ageing_time")) b.ageingTime = parseU32(args.value("ageing_time"), "ageing_time");
    else if (args.accept("no_linklocal_learn"))
      b.noLinklocalLearn = parseBool01(args.value("no_linklocal_learn"), "no_linklocal_learn");
    else args.unknown("type bridge takes: vlan_filtering, vlan_default_pvid, stp_state, ageing_time, no_linklocal_learn");
  }
  p.info.bridge = b;
}

void parseVxlan(Args& args, ParsedLink& p) {
  VxlanInfo v;
  while (!args.done()) {
    if (args.acceptAny({"id", "vni"})) v.vni = parseU32(args.value("id"), "vxlan id", 0, (1u << 24) - 1);
    else if (args.accept("local")) v.local = parseIp(args.value("local"), "local");
    else if (args.accept("remote")) {
      v.remote = parseIp(args.value("remote"), "remote");
      if (v.remote->isMulticast()) throw UsageError("remote: use \"group\" for a multicast address");
    } else if (args.accept("group")) {
      v.remote = parseIp(args.value("group"), "group");
      if (!v.remote->isMulticast()) throw UsageError("group: use \"remote\" for a unicast address");
    } else if (args.acceptAny({"dstport", "port"})) v.dstPort = static_cast<uint16_t>(parseInteger(args.value("dstport"), "dstport", 0, 65535));
    else if (args.accept("dev")) p.vxlanDev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("learning")) v.learning = true;
    else if (args.accept("nolearning")) v.learning = false;
    else if (args.acceptAny({"ttl", "hoplimit"})) {
      std::string t = args.value("ttl");
      v.ttl = t == "auto" || t == "inherit" ? 0 : static_cast<uint8_t>(parseInteger(t, "ttl", 0, 255));
    } else args.unknown("type vxlan takes: id, local, remote, group, dstport, dev, learning, nolearning, ttl");
  }
  p.info.vxlan = v;
}

void parseMacvlan(Args& args, ParsedLink& p) {
  static const std::pair<const char*, MacvlanMode> kModes[] = {{"private", MacvlanMode::Private}, {"vepa", MacvlanMode::Vepa},
                                                               {"bridge", MacvlanMode::Bridge},   {"passthru", MacvlanMode::Passthru},
                                                               {"source", MacvlanMode::Source}};
  MacvlanInfo m;
  while (!args.done()) {
    if (!args.accept("mode")) args.unknown(fmt::format("type {} takes: mode", *p.info.kind));
    std::string mode = args.value("mode");
    auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const auto& e) { return mode == e.first; });
    if (it == std::end(kModes))
      throw UsageError(fmt::format("mode: unknown {} mode \"{}\" (known: private, vepa, bridge, passthru, source)", *p.info.kind, mode));
    m.mode = it->second;
  }
  p.info.macvlan = m;
}

void parseVlan(Args& args, ParsedLink& p) {
  VlanInfo v;
  while (!args.done()) {
    if (args.accept("id")) v.id = static_cast<uint16_t>(parseInteger(args.value("id"), "vlan id", 0, 4094));
    else if (args.accept("protocol")) {
      std::string proto = args.value("protocol");
      if (proto == "802.1Q" || proto == "802.1q") v.protocol = VlanProtocol::Dot1Q;
      else if (proto == "802.1ad" || proto == "802.1AD") v.protocol = VlanProtocol::Dot1AD;
      else throw UsageError(fmt::format("protocol: unknown vlan protocol \"{}\" (known: 802.1Q, 802.1ad)", proto));
    } else args.unknown("type vlan takes: id, protocol");
  }
  p.info.vlan = v;
}

void parseVrf(Args& args, ParsedLink& p) {
  VrfInfo v;
  while (!args.done()) {
    if (args.accept("table")) v.table = parseU32(args.value("table"), "table", 1);
    else args.unknown("type vrf takes: table");
  }
  p.info.vrf = v;
}

void parseBond(Args& args, ParsedLink& p) {
  static const char* const kModes[] = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                       "802.3ad",    "balance-tlb",   "balance-alb"};
  BondInfo b;
  while (!args.done()) {
    if (args.accept("mode")) {
      std::string mode = args.value("mode");
      auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const char* m) { return mode == m; });
      if (it == std::end(kModes))
        throw UsageError(fmt::format("mode: unknown bond mode \"{}\" (known: balance-rr, active-backup, balance-xor, "
                                     "broadcast, 802.3ad, balance-tlb, balance-alb)", mode));
      b.mode = static_cast<BondMode>(it - std::begin(kModes));
    } else if (args.accept("miimon")) b.miimon = parseU32(args.value("miimon"), "miimon");
    else args.unknown("type bond takes: mode, miimon");
  }
  p.info.bond = b;
}

void parseKindOptions(Args& args, ParsedLink& p) {
  const std::string& kind = *p.info.kind;
  if (kind == "veth") return parseVeth(args, p);
  if (kind == "bridge") return parseBridge(args, p);
  if (kind == "vxlan") return parseVxlan(args, p);
  if (kind == "macvlan" || kind == "macvtap") return parseMacvlan(args, p);
  if (kind == "vlan") return parseVlan(args, p);
  if (kind == "vrf") return parseVrf(args, p);
  if (kind == "bond") return parseBond(args, p);
  if (!args.done()) args.unknown(fmt::format("type {} takes no options", kind));
}

// ---- common options --------------------------------------------------------------------------

/// Consumes one common option; false when the current word is not one.
bool parseCommonOption(Args& args, ParsedLink& p, Verb verb) {
  LinkInfo& l = p.info;
  if (args.accept("mtu")) l.mtu = parseU32(args.value("mtu"), "mtu");
  else if (args.acceptAny({"address", "addr"})) l.address = parseMac(args.value("address"), "address");
  else if (args.accept("group")) l.group = parseGroup(args.value("group"));
  else if (args.accept("master")) p.master = parseIfname(args.value("master"), "master");
  else if (args.accept("nomaster")) l.setNoMaster(), p.master.reset();
  else if (args.accept("up")) l.admin = true;
  else if (args.accept("down")) l.admin = false;
  else if (args.acceptAny({"txqlen", "qlen", "txqueuelen"})) l.txqlen = parseU32(args.value("txqlen"), "txqlen");
  else if (args.acceptAny({"alias"})) {
    l.alias = args.value("alias");
    if (l.alias->size() > 255) throw UsageError("alias: longer than 255 bytes");
  } else if (args.accept("numtxqueues")) l.numTxQueues = parseU32(args.value("numtxqueues"), "numtxqueues", 1, 4096);
  else if (args.accept("numrxqueues")) l.numRxQueues = parseU32(args.value("numrxqueues"), "numrxqueues", 1, 4096);
  else if (args.accept("link")) p.parent = parseIfname(args.value("link"), "link");
  else if (args.accept("netns")) l.netns = Netns::named(args.value("netns"));
  else if (args.accept("name")) {
    std::string name = parseIfname(args.value("name"), "name");
    if (verb != Verb::Set && l.name && *l.name != name) throw UsageError(fmt::format("two names given: \"{}\" and \"{}\"", *l.name, name));
    l.name = name;
  } else return false;
  return true;
}

/// Parses `[link DEV] [name] NAME [OPTIONS] type KIND [KIND OPTIONS]` (add, replace).
ParsedLink parseCreate(Args& args, Verb verb) {
  ParsedLink p;
  while (!args.done()) {
    if (args.accept("type")) {
      p.info.kind = parseKind(args.value("type"));
      parseKindOptions(args, p);
      break;
    }
    if (args.accept("dev")) {
      if (p.info.name) throw UsageError(fmt::format("two names given: \"{}\" and \"{}\"", *p.info.name, args.peek()));
      p.info.name = parseIfname(args.value("dev"), "dev");
    } else if (!parseCommonOption(args, p, verb)) {
      if (p.info.name) args.unknown("expected a link option or \"type KIND\"");
      if (args.peek() == "help") throw UsageError(kUsage);
      p.info.name = parseIfname(args.next(), "name");
    }
  }
  if (!p.info.name) throw UsageError(fmt::format("link {}: a device name is required", verb == Verb::Add ? "add" : "replace"));
  if (!p.info.kind) throw UsageError(fmt::format("link {}: \"type KIND\" is required (known: {})", verb == Verb::Add ? "add" : "replace", knownKindsText()));
  // The kernel silently drops IFLA_IFALIAS when it creates a device: refuse rather than lie.
  if (p.info.alias) throw UsageError("alias cannot be set when creating a device: use \"link set dev NAME alias TEXT\"");
  return p;
}

PreparedRequest prepareCreate(Args& args, Verb verb) {
  auto p = std::make_shared<ParsedLink>(parseCreate(args, verb));
  PreparedRequest r;
  r.needs = p->names();
  r.touches = {*p->info.name};
  if (p->info.veth && p->info.veth->peerName) r.touches.push_back(*p->info.veth->peerName);
  r.encode = [p, verb](Resolver& res) {
    LinkInfo l = p->resolved(res);
    return verb == Verb::Add ? LinkRequests::add(l) : LinkRequests::replace(l);
  };
  return r;
}

/// `set { [dev] NAME | group G } OPTIONS [type KIND KIND-OPTIONS]`
PreparedRequest prepareSet(Args& args) {
  std::optional<std::string> dev;
  std::optional<uint32_t> group;
  if (args.accept("dev")) dev = parseIfname(args.value("dev"), "dev");
  else if (args.accept("group")) group = parseGroup(args.value("group"));
  else if (!args.done()) dev = parseIfname(args.next(), "dev");
  else throw UsageError("link set: which device? (link set dev NAME ... or link set group G ...)");
  auto p = std::make_shared<ParsedLink>();
  while (!args.done()) {
    if (args.accept("type")) {
      p->info.kind = parseKind(args.value("type"));
      parseKindOptions(args, *p);
      break;
    }
    if (!parseCommonOption(args, *p, Verb::Set)) args.unknown("expected a link option");
  }
  PreparedRequest r;
  r.needs = p->names();
  if (group) {
    r.touchesAll = p->info.netns.has_value();
    r.encode = [p, g = *group](Resolver& res) { return LinkRequests::setGroup(g, p->resolved(res)); };
    return r;
  }
  r.device = dev;
  bool rename = p->info.name && *p->info.name != *dev;
  if (rename) {
    r.needs.push_back(*dev);
    r.touches = {*dev, *p->info.name};
  } else if (p->info.netns) {
    r.touches = {*dev};
  }
  r.encode = [p, d = *dev, rename](Resolver& res) {
    LinkInfo changes = p->resolved(res);
    // The kernel finds a device by IFLA_IFNAME first, so a rename names the device by index.
    return LinkRequests::set(rename ? Ifref(res.index(d)) : Ifref(d), changes);
  };
  return r;
}

/// `del { [dev] NAME | group G }`
PreparedRequest prepareDel(Args& args) {
  PreparedRequest r;
  if (args.accept("group")) {
    uint32_t g = parseGroup(args.value("group"));
    r.touchesAll = true;
    r.encode = [g](Resolver&) { return LinkRequests::delGroup(g); };
  } else {
    std::string dev;
    if (args.accept("dev")) dev = parseIfname(args.value("dev"), "dev");
    else if (!args.done()) dev = parseIfname(args.next(), "dev");
    else throw UsageError("link del: which device? (link del dev NAME or link del group G)");
    r.device = dev;
    // Deleting a device also deletes its veth peer and the devices stacked on it (vlan,
    // macvlan), whose names we cannot know here: forget every cached ifindex.
    r.touchesAll = true;
    r.encode = [dev](Resolver&) { return LinkRequests::del(Ifref(dev)); };
  }
  // iproute2 accepts `type KIND` after the device; it selects nothing, so only check it.
  if (args.accept("type")) parseKind(args.value("type"));
  if (!args.done()) args.unknown("link del takes: dev NAME | group GROUP");
  return r;
}

bool isHelp(const Args& args) { return args.peek() == "help"; }

PreparedRequest prepareLink(Context&, Args& args) {
  if (args.done()) throw UsageError("link: a verb is required (add, set, del, replace, show)");
  if (args.accept("add")) return isHelp(args) ? throw UsageError(kUsage) : prepareCreate(args, Verb::Add);
  if (args.accept("replace")) return isHelp(args) ? throw UsageError(kUsage) : prepareCreate(args, Verb::Replace);
  if (args.acceptAny({"set", "change"})) return isHelp(args) ? throw UsageError(kUsage) : prepareSet(args);
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(kUsage) : prepareDel(args);
  if (args.acceptAny({"show", "list", "lst", "ls", "sh"}))
    throw UsageError("link show cannot be used in a batch (a batch only sends changes)");
  args.unknown("link verbs: add, set, del, replace, show");
}

int runLink(Context& ctx, Args& args) {
  if (args.done()) return showLinks(ctx, args);
  if (args.accept("help")) {
    printLine(kUsage);
    return kExitOk;
  }
  if (args.acceptAny({"show", "list", "lst", "ls", "sh"})) return showLinks(ctx, args);
  return runPrepared(ctx, prepareLink(ctx, args));
}

const Registrar kLink{ObjectCommand{.name = "link", .aliases = {"l", "li", "lin"}, .usage = kUsage, .run = runLink, .prepare = prepareLink}};

}  // namespace
}  // namespace fastlink::cli
