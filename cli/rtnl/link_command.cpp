// The `link` object: `fastlink link { add | set | del | replace | show } ...`, iproute2 grammar.
// Parsing lives here; printing in link_show.cpp.
#include <fmt/format.h>

#include <strings.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/ip_compat.hpp"
#include "rtnl/link_kind.hpp"
#include "rtnl/link_show.hpp"
#include "xdp/xdp_command.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsageHead = R"(Usage: fastlink link add [link DEV] [name] NAME [OPTIONS] type KIND [KIND OPTIONS]
       fastlink link replace [name] NAME [OPTIONS] type KIND [KIND OPTIONS]
       fastlink link set { [dev] NAME | group GROUP } [OPTIONS] [type KIND [KIND OPTIONS]]
       fastlink link set [dev] NAME { xdp | xdpgeneric | xdpdrv | xdpoffload } { obj FILE [sec NAME] [program NAME] | off }
       fastlink link del { [dev] NAME | group GROUP }
       fastlink link [show] [[dev] NAME] [type KIND] [master DEV | vrf NAME | nomaster] [group GROUP] [up]
                     [to PREFIX] [scope SCOPE] [label PATTERN] [ADDR_FLAG] (ip address's filters: see docs/CLI.md)

OPTIONS := mtu MTU | address LLADDR | broadcast LLADDR | group GROUP | master DEV | vrf NAME | nomaster |
           up | down | txqlen N | qlen N | alias TEXT | numtxqueues N | numrxqueues N | link DEV |
           netns NETNSNAME | name NEWNAME (set: rename) | gso_max_size BYTES | gso_max_segs N |
           gro_max_size BYTES | addrgenmode { eui64 | none | stable_secret | random } |
           arp { on | off } | multicast { on | off } | allmulticast { on | off } |
           promisc { on | off } | dynamic { on | off } | trailers { on | off } | carrier { on | off }
ADDR_FLAG := secondary | temporary | nodad | optimistic | dadfailed | home | deprecated | tentative |
             permanent | mngtmpaddr | noprefixroute | autojoin | stable-privacy | dynamic | primary)";

std::string knownKindsText();

/// The usage text: the kinds and their options come from the kind registries (link_kinds/).
std::string usage() {
  std::string s = std::string(kUsageHead) + "\nKIND := " + knownKindsText() + "\nKIND OPTIONS:";
  std::vector<std::string> withoutOptions;
  for (const auto& kind : knownLinkKinds()) {
    const CliLinkKind* cli = findCliLinkKind(kind);
    if (!cli || !cli->parse) withoutOptions.push_back(kind);
  }
  for (const CliLinkKind* cli : allCliLinkKinds())
    if (cli->parse) s += "\n  " + std::string(cli->usage);
  std::string plain;
  for (const auto& k : withoutOptions) plain += (plain.empty() ? "" : ", ") + k;
  if (!plain.empty()) s += "\n  " + plain + ": no options";
  return s;
}

enum class Verb { Add, Replace, Set };

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

// ---- kind options: cli/rtnl/link_kinds/<kind>.cpp ---------------------------------------------

void parseKindOptions(Args& args, ParsedLink& p) {
  const std::string& kind = *p.info.kind;
  if (const CliLinkKind* cli = findCliLinkKind(kind); cli && cli->parse) return cli->parse(args, p);
  if (!args.done()) args.unknown(fmt::format("type {} takes no options", kind));
}

// ---- common options --------------------------------------------------------------------------

/// `ip link set` flag words, each followed by on|off.
constexpr std::pair<std::string_view, LinkFlag> kFlagWords[] = {
    {"arp", LinkFlag::Arp},         {"multicast", LinkFlag::Multicast}, {"allmulticast", LinkFlag::AllMulticast},
    {"promisc", LinkFlag::Promisc}, {"dynamic", LinkFlag::Dynamic},     {"trailers", LinkFlag::Trailers},
    {"carrier", LinkFlag::Carrier}};

/// Consumes `WORD on|off` for a flag word; false when the current word is not one.
bool parseFlagOption(Args& args, LinkInfo& l) {
  for (const auto& [word, flag] : kFlagWords) {
    if (!args.accept(word)) continue;
    l.setFlag(flag, parseOnOff(args.value(word), word));
    return true;
  }
  return false;
}

/// The modes of `addrgenmode`, as ip's get_addr_gen_mode names them (any case).
Ipv6AddrGenMode parseAddrGenMode(const std::string& text) {
  constexpr std::pair<std::string_view, Ipv6AddrGenMode> kModes[] = {{"eui64", Ipv6AddrGenMode::Eui64},
                                                                      {"none", Ipv6AddrGenMode::None},
                                                                      {"stable_secret", Ipv6AddrGenMode::StableSecret},
                                                                      {"random", Ipv6AddrGenMode::Random}};
  for (const auto& [word, mode] : kModes)
    if (strcasecmp(text.c_str(), std::string(word).c_str()) == 0) return mode;
  throw UsageError(fmt::format("argument \"{}\" is wrong: Invalid address generation mode", text));
}

/// Whether `word` is `keyword` as ip's matches() takes it (a prefix of it, at least `shortest`
/// characters: the shorter prefixes are words ip checks first, `a`..`addr` being `address`).
bool ipMatches(std::string_view word, std::string_view keyword, std::size_t shortest) {
  return word.size() >= shortest && keyword.starts_with(word);
}

/// ip refuses a second mtu, txqueuelen (qlen, txqlen), group, numtxqueues, numrxqueues or (set)
/// name with its duparg() message and status 255, where taking the last one would change the
/// device silently otherwise than the script's author read it; a second address, alias, master,
/// flag word or link is taken as ip takes it (the last wins). Call after the word, before its value.
template <class T>
void refuseSecond(const std::optional<T>& field, std::string_view word, Args& args) {
  if (field) throw UsageError(fmt::format("duplicate \"{}\": \"{}\" is the second value.", word, args.peek()));
}

/// `vrf NAME`, ip's `master NAME` for a device that must be a VRF: one that is there and is no
/// VRF is ip's invalid argument (255); one that is not there is resolved as a master's name is
/// (a -batch line after the line that makes it finds it at its turn).
std::string parseVrfMaster(Context& ctx, const std::string& word) {
  std::string name = parseIfname(word, "vrf");
  if (std::optional<LinkInfo> l = ctx.netlink().links().find(Ifref(name)); l && l->kind != "vrf")
    throw UsageError(fmt::format("argument \"{}\" is wrong: Not a valid VRF name", name));
  return name;
}

/// Consumes one common option; false when the current word is not one.
bool parseCommonOption(Context& ctx, Args& args, ParsedLink& p, Verb verb) {
  LinkInfo& l = p.info;
  if (parseFlagOption(args, l)) return true;
  if (args.accept("mtu")) {
    refuseSecond(l.mtu, "mtu", args);
    l.mtu = parseU32(args.value("mtu"), "mtu");
  } else if (args.acceptAny({"address", "addr"})) l.address = parseMac(args.value("address"), "address");
  else if (args.accept("group")) {
    refuseSecond(l.group, "group", args);
    l.group = parseGroup(args.value("group"));
  }
  else if (args.accept("master")) p.master = parseIfname(args.value("master"), "master");
  else if (args.accept("vrf")) p.master = parseVrfMaster(ctx, args.value("vrf"));
  else if (args.accept("nomaster")) l.setNoMaster(), p.master.reset();
  else if (args.accept("up")) l.admin = true;
  else if (args.accept("down")) l.admin = false;
  else if (args.acceptAny({"txqlen", "qlen", "txqueuelen"})) {
    refuseSecond(l.txqlen, "txqueuelen", args);
    l.txqlen = parseU32(args.value("txqlen"), "txqlen");
  }
  else if (args.acceptAny({"alias"})) {
    l.alias = args.value("alias");
    if (l.alias->size() > 255) throw UsageError("alias: longer than 255 bytes");
  } else if (args.accept("numtxqueues")) {
    refuseSecond(l.numTxQueues, "numtxqueues", args);
    l.numTxQueues = parseU32(args.value("numtxqueues"), "numtxqueues", 1, 4096);
  } else if (args.accept("numrxqueues")) {
    refuseSecond(l.numRxQueues, "numrxqueues", args);
    l.numRxQueues = parseU32(args.value("numrxqueues"), "numrxqueues", 1, 4096);
  }
  else if (args.accept("link")) p.parent = parseIfname(args.value("link"), "link");
  // `broadcast` by any prefix (`b`, `br`, ...: ip checks no other word starting so before it)
  // or `brd`; `addrgenmode` from `addrg` on (`addr` is `address`); the sizes by their names.
  // ip takes a second of each (the kernel keeps the last), as here.
  else if (ipMatches(args.peek(), "broadcast", 1) || args.peek() == "brd") {
    std::string word = args.next();
    l.broadcast = parseLinkLayerAddress(args.value(word));
  } else if (ipMatches(args.peek(), "addrgenmode", 5)) {
    std::string word = args.next();
    l.addrGenMode = parseAddrGenMode(args.value(word));
  } else if (args.accept("gso_max_size")) l.gsoMaxSize = parseIpUnsigned(args.value("gso_max_size"), "gso_max_size");
  else if (args.accept("gso_max_segs")) l.gsoMaxSegs = parseIpUnsigned(args.value("gso_max_segs"), "gso_max_segs", kGsoMaxSegs);
  else if (args.accept("gro_max_size")) l.groMaxSize = parseIpUnsigned(args.value("gro_max_size"), "gro_max_size");
  else if (args.accept("netns")) l.netns = parseNetnsTarget(args.value("netns"));
  else if (args.accept("name")) {
    if (verb == Verb::Set) refuseSecond(l.name, "name", args);
    std::string name = parseIfname(args.value("name"), "name");
    if (verb != Verb::Set && l.name && *l.name != name) throw UsageError(fmt::format("two names given: \"{}\" and \"{}\"", *l.name, name));
    l.name = name;
  } else return false;
  return true;
}

/// Parses `[link DEV] [name] NAME [OPTIONS] type KIND [KIND OPTIONS]` (add, replace).
ParsedLink parseCreate(Context& ctx, Args& args, Verb verb) {
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
    } else if (!parseCommonOption(ctx, args, p, verb)) {
      if (p.info.name) args.unknown("expected a link option or \"type KIND\"");
      if (args.peek() == "help") throw UsageError(usage());
      p.info.name = parseIfname(args.next(), "name");
    }
  }
  if (!p.info.name) throw UsageError(fmt::format("link {}: a device name is required", verb == Verb::Add ? "add" : "replace"));
  if (!p.info.kind) throw UsageError(fmt::format("link {}: \"type KIND\" is required (known: {})", verb == Verb::Add ? "add" : "replace", knownKindsText()));
  // The kernel silently drops IFLA_IFALIAS when it creates a device: refuse rather than lie.
  if (p.info.alias) throw UsageError("alias cannot be set when creating a device: use \"link set dev NAME alias TEXT\"");
  return p;
}

PreparedRequest prepareCreate(Context& ctx, Args& args, Verb verb) {
  auto p = std::make_shared<ParsedLink>(parseCreate(ctx, args, verb));
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

/// `set { [dev] NAME | group G } OPTIONS [type KIND KIND-OPTIONS]`. As in ip, the device may come
/// anywhere among the options (wg-quick runs `ip link set mtu 1420 up dev wg0`), and `group G`
/// selects the devices of group G only when no device is named; with one it sets the group.
/// A tunnel kind's words change the tunnel as the kernel has it (read first, as ip does).
PreparedRequest prepareSet(Context& ctx, Args& args) {
  std::optional<std::string> dev;
  auto p = std::make_shared<ParsedLink>();
  p->change = true;
  while (!args.done()) {
    if (args.accept("type")) {
      p->info.kind = parseKind(args.value("type"));
      const CliLinkKind* cli = findCliLinkKind(*p->info.kind);
      // ip's tunnels get the device before parsing their words and send every option back:
      // the kernel resets what a change does not carry. (A device that is not there: the set
      // fails as any other, "Cannot find device".)
      if (dev && cli && cli->readsDevice) p->current = ctx.netlink().links().find(Ifref(*dev));
      parseKindOptions(args, *p);
      break;
    }
    if (args.accept("dev")) {
      if (dev) throw UsageError(fmt::format("two devices given: \"{}\" and \"{}\"", *dev, args.peek()));
      dev = parseIfname(args.value("dev"), "dev");
    } else if (!parseCommonOption(ctx, args, *p, Verb::Set)) {
      if (dev) args.unknown("expected a link option");
      dev = parseIfname(args.next(), "dev");
    }
  }
  std::optional<uint32_t> group;
  if (!dev) {
    if (!p->info.group) throw UsageError("link set: which device? (link set dev NAME ... or link set group G ...)");
    group = std::exchange(p->info.group, std::nullopt);
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
  if (p->current) {
    // In a batch, a line after one that changed this tunnel reads it again when it is sent (a
    // deferred line), not before the batch: it touches the device and needs it.
    r.needs.push_back(*dev);
    if (std::find(r.touches.begin(), r.touches.end(), *dev) == r.touches.end()) r.touches.push_back(*dev);
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

PreparedRequest prepareLink(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("link: a verb is required (add, set, del, replace, show)");
  if (args.accept("add")) return isHelp(args) ? throw UsageError(usage()) : prepareCreate(ctx, args, Verb::Add);
  if (args.accept("replace")) return isHelp(args) ? throw UsageError(usage()) : prepareCreate(ctx, args, Verb::Replace);
  if (args.acceptAny({"set", "change"})) {
    if (auto xdp = isHelp(args) ? std::nullopt : prepareLinkSetXdp(ctx, args)) return *xdp;
    return isHelp(args) ? throw UsageError(usage()) : prepareSet(ctx, args);
  }
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(usage()) : prepareDel(args);
  if (args.acceptAny({"show", "list", "lst", "ls", "sh"}))
    throw UsageError("link show cannot be used in a batch (a batch only sends changes)");
  // ip's other link verbs: named, so that a script learns which word fastlink lacks.
  for (std::string_view verb : {"xstats", "afstats", "property"})
    if (args.peek() == verb) throw UsageError(fmt::format("link {} (a verb of ip) is not supported by fastlink", verb));
  args.unknown("link verbs: add, set, del, replace, show");
}

int runLink(Context& ctx, Args& args) {
  // The usage text walks both kind registries (a third of `link show type bridge`'s own
  // instructions): built only for `link help`.
  std::string text = args.peek() == "help" ? usage() : std::string();
  return runObject(ctx, args, text, {{{"show", "list", "lst", "ls", "sh"}, showLinks}}, prepareLink);
}

const Registrar kLink{ObjectCommand{.name = "link", .aliases = {"l", "li", "lin"}, .usage = kUsageHead, .run = runLink, .prepare = prepareLink}};

}  // namespace
}  // namespace fastlink::cli
