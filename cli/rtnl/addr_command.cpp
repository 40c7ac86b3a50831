// The `address` object: `fastlink address { add | del | replace | show | flush }`, iproute2
// grammar. add/del/replace are PreparedRequests, so they work in -batch files.
#include <fmt/format.h>

#include <fnmatch.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include <cstdio>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "fastlink/addr.hpp"
#include "fastlink/addr_view.hpp"
#include "rtnl/link_show.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"
#include "rtnl/ip_object.hpp"
#include "rtnl/ip_print.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink address { add | replace | change } IFADDR dev DEV [ OPTIONS ]
       fastlink address del IFADDR dev DEV [ peer PEER ] [ label LABEL ]
       fastlink address [ show ] [ dev DEV ] [ scope SCOPE ] [ label LABEL ] [ -4 | -6 ]
       fastlink address flush [ dev DEV ] [ scope SCOPE ] [ label LABEL ] [ to PREFIX ] [ up ] [ -4 | -6 ] [ FLAG ... ]
IFADDR := PREFIX [ peer PREFIX ]
OPTIONS := broadcast ADDRESS | broadcast + | scope SCOPE | label LABEL | valid_lft LFT |
           preferred_lft LFT | metric N | nodad | noprefixroute | home | mngtmpaddr | optimistic | autojoin
LFT := forever | SECONDS
SCOPE := global | site | link | host | 0-255
FLAG := [-]{ primary | secondary | temporary | dynamic | permanent | tentative | deprecated | dadfailed |
       nodad | optimistic | home | mngtmpaddr | noprefixroute | autojoin | stable-privacy }
(flush: as ip's, in rounds of -l N, 10 by default; -s says what each round deleted, -s -s lists it))";

bool isHelp(const Args& args) { return args.peek() == "help"; }

uint32_t parseLifetime(const std::string& text, std::string_view keyword) {
  if (text == "forever" || text == "infinity") return kLifetimeForever;
  return parseU32(text, keyword);
}

Scope parseScopeWord(const std::string& text) {
  return orUsage("scope", [&] { return parseScope(text); });
}

struct ParsedAddr {
  AddrInfo info;
  std::string dev;
  /// `del 10.0.0.1 dev v0`: an IPv4 address written without its length and without a peer.
  bool wildcard = false;
};

/// The flags `address add` takes, as ip words them.
constexpr std::pair<std::string_view, AddrFlag> kFlagWords[] = {
    {"nodad", AddrFlag::Nodad},       {"noprefixroute", AddrFlag::Noprefixroute}, {"home", AddrFlag::Home},
    {"mngtmpaddr", AddrFlag::Mngtmpaddr}, {"optimistic", AddrFlag::Optimistic},   {"autojoin", AddrFlag::Autojoin},
};

ParsedAddr parseAddr(const Context& ctx, Args& args, bool del) {
  ParsedAddr p;
  bool broadcastAuto = false;
  std::optional<std::string> dev;
  std::optional<uint8_t> peerLength;
  while (!args.done()) {
    bool keyword = args.acceptAny({"local", "address"});
    if (keyword || (!p.info.address && args.peek().find_first_of(".:") != std::string::npos)) {
      // `add 10.0.0.1/24 dev v0` or `add local 10.0.0.1/24 dev v0`.
      std::string text = keyword ? args.value("local") : args.next();
      if (keyword && p.info.address)  // ip's duparg
        throw UsageError(fmt::format("either \"local\" is duplicate, or \"{}\" is a garbage.", text));
      p.info.address = parsePrefixAs("address", text);
      p.wildcard = text.find('/') == std::string::npos && p.info.address->isV4();
      requireFamily(ctx, p.info.address->address().family(), text, "prefix");  // `ip -6 addr add 10.0.0.1/24`
    } else if (args.accept("dev")) {
      dev = parseIfname(args.value("dev"), "dev");
    } else if (args.accept("peer")) {
      std::string text = args.value("peer");
      // The peer's length is the address's prefix length, as ip's: `peer 10.1.0.2/30` gives /30,
      // a bare `peer 10.1.0.2` /32 (/128), whatever length the local address was written with.
      try {
        Prefix peer = Prefix::parse(text);
        p.info.peer = peer.address();
        peerLength = peer.length();
      } catch (const Error& e) {
        throw UsageError("peer: " + e.reason());
      }
    } else if (args.acceptAny({"broadcast", "brd"})) {
      std::string b = args.value("broadcast");
      if (b == "+") broadcastAuto = true;
      else if (b == "-") throw UsageError("broadcast -: not supported, give the address or +");
      else p.info.broadcast = parseIp(b, "broadcast");
    } else if (args.accept("scope")) {
      p.info.scope = parseScopeWord(args.value("scope"));
    } else if (args.accept("label")) {
      p.info.label = args.value("label");
    } else if (args.accept("valid_lft")) {
      p.info.validLifetime = parseLifetime(args.value("valid_lft"), "valid_lft");
    } else if (args.accept("preferred_lft")) {
      p.info.preferredLifetime = parseLifetime(args.value("preferred_lft"), "preferred_lft");
    } else if (args.acceptAny({"metric", "priority"})) {
      p.info.metric = parseU32(args.value("metric"), "metric");
    } else if (auto flag = args.acceptFrom(kFlagWords)) {
      p.info.setFlag(*flag);
    } else {
      args.unknown("expected an address option");
    }
  }
  // ip checks the device first, a bad value (1): `Not enough information: "dev" argument is required.`
  if (!dev) throw BadValueError("address: \"dev DEV\" is required");
  if (!p.info.address) throw UsageError("address: IFADDR (ADDRESS/LENGTH) is required");
  if (peerLength) p.info.address = Prefix(p.info.address->address(), *peerLength);
  p.wildcard = del && p.wildcard && !peerLength;
  if (p.wildcard)
    fmt::print(stderr,
               "Warning: Executing wildcard deletion to stay compatible with old scripts.\n"
               "         Explicitly specify the prefix length ({}/32) to avoid this warning.\n",
               p.info.address->address().toString());
  p.dev = *dev;
  if (broadcastAuto) {
    if (!p.info.address->isV4()) throw UsageError("broadcast +: only IPv4 addresses have a broadcast address");
    p.info.setBroadcastAuto();
  }
  if (p.info.label && p.info.label->compare(0, p.dev.size(), p.dev) != 0)
    throw UsageError(fmt::format("label \"{}\" must begin with the device name \"{}\"", *p.info.label, p.dev));
  (void)del;
  return p;
}

/// `request` (one message) without its IFA_ADDRESS: the kernel then deletes the first address
/// whose local address (and label) match, whatever its prefix length (ip's wildcard deletion).
Request withoutPrefixMatch(const Request& request) {
  std::span<const uint8_t> in = request.bytes();
  const std::size_t start = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifaddrmsg));
  std::vector<uint8_t> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(start));
  for (std::size_t at = start; at + sizeof(rtattr) <= in.size();) {
    rtattr attr;
    std::memcpy(&attr, in.data() + at, sizeof attr);
    std::size_t next = at + RTA_ALIGN(attr.rta_len);
    if (attr.rta_len < sizeof attr || next > in.size() + 3) break;
    if (attr.rta_type != IFA_ADDRESS) out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                                                 in.begin() + static_cast<std::ptrdiff_t>(std::min(next, in.size())));
    at = next;
  }
  nlmsghdr header;
  std::memcpy(&header, out.data(), sizeof header);
  header.nlmsg_len = static_cast<uint32_t>(out.size());
  std::memcpy(out.data(), &header, sizeof header);
  return Request(std::move(out), std::string(request.operation()));
}

PreparedRequest prepareChange(const Context& ctx, Args& args, const std::string& verb) {
  ParsedAddr p = parseAddr(ctx, args, verb == "del");
  return deviceRequest(
      p.dev, p.info,
      [verb, wildcard = p.wildcard](const AddrInfo& a, Resolver&) {
        if (verb == "add") return AddrRequests::add(a);
        if (verb == "replace") return AddrRequests::replace(a);
        return wildcard ? withoutPrefixMatch(AddrRequests::del(a)) : AddrRequests::del(a);
      },
      false);
}

PreparedRequest prepareAddr(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("address: a verb is required (add, del, replace, change, show, flush)");
  if (args.accept("add")) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "add");
  // `change` (ip's NLM_F_REPLACE without NLM_F_CREATE): the kernel creates a missing address
  // either way, so it is replace.
  if (args.acceptAny({"replace", "change", "chg"}))
    return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "replace");
  if (args.acceptAny({"del", "delete"})) return isHelp(args) ? throw UsageError(kUsage) : prepareChange(ctx, args, "del");
  if (args.acceptAny({"show", "list", "ls", "lst", "flush"}))
    throw UsageError("address show/flush cannot be used in a batch (a batch sends one request per line)");
  args.unknown("address verbs: add, del, replace, change, show, flush");
}

// ---- show / flush ------------------------------------------------------------------------------

/// ip's selectors of `address show` the kernel cannot filter: applied here, to each address
/// (`to`, the flag words) and device (`up`).
struct AddrSelectors {
  std::optional<Prefix> to;  ///< `to PREFIX`: addresses inside it
  /// ip's get_filter: the flags an address must have (`flags`) among those it looks at (`mask`).
  uint32_t flags = 0;
  uint32_t mask = 0;
  bool up = false;  ///< `up`: devices that are up
  bool any() const { return to || mask; }
  bool keeps(const AddrView& a) const {
    std::optional<Prefix> address = a.address();
    if (!address) return false;  // nothing to print
    if (to && (address->address().family() != to->address().family() || !to->contains(address->address())))
      return false;
    return ((flags ^ a.flags()) & mask) == 0;
  }
  /// A flag word of ip's table (ipaddress.c's ifa_flag_data), `-WORD` for its absence;
  /// `dynamic` is `-permanent` and `primary` `-secondary`. False for any other word.
  bool acceptFlagWord(std::string_view word) {
    bool absent = word.starts_with('-');
    if (absent) word.remove_prefix(1);
    if (word == "dynamic") absent = !absent, word = "permanent";
    else if (word == "primary") absent = !absent, word = "secondary";
    static constexpr std::pair<std::string_view, AddrFlag> kWords[] = {
        {"secondary", AddrFlag::Secondary},   {"temporary", AddrFlag::Secondary},  {"nodad", AddrFlag::Nodad},
        {"optimistic", AddrFlag::Optimistic}, {"dadfailed", AddrFlag::Dadfailed},  {"home", AddrFlag::Home},
        {"deprecated", AddrFlag::Deprecated}, {"tentative", AddrFlag::Tentative},  {"permanent", AddrFlag::Permanent},
        {"mngtmpaddr", AddrFlag::Mngtmpaddr}, {"noprefixroute", AddrFlag::Noprefixroute},
        {"autojoin", AddrFlag::Autojoin},     {"stable-privacy", AddrFlag::StablePrivacy}};
    for (const auto& [name, flag] : kWords) {
      if (word != name) continue;
      auto bit = static_cast<uint32_t>(flag);
      flags = absent ? flags & ~bit : flags | bit;
      mask |= bit;
      return true;
    }
    return false;
  }
};

AddrFilter parseFilter(Args& args, AddrSelectors* selectors = nullptr) {
  AddrFilter f;
  while (!args.done()) {
    if (selectors && args.accept("up")) selectors->up = true;
    else if (selectors && selectors->acceptFlagWord(args.peek())) args.next();
    else if (selectors && args.accept("to")) {
      std::string text = args.value("to");
      selectors->to = parsePrefixAs("to", text);
      if (!f.family) f.family = selectors->to->address().family();  // as ip: `to` sets the family
    } else if (args.accept("dev")) f.dev = Ifref(parseIfname(args.value("dev"), "dev"));
    else if (args.accept("scope")) f.scope = parseScopeWord(args.value("scope"));
    else if (args.accept("label")) f.label = args.value("label");
    else if (auto family = acceptFamilyWord(args)) f.family = family;
    else if (!f.dev && args.peek().find_first_of(" ") == std::string::npos && args.peek() != "")
      f.dev = Ifref(parseIfname(args.next(), "dev"));  // `address show v0`
    else args.unknown("address show takes: dev DEV, scope S, label L, to PREFIX, up, -4, -6, and the flag words "
                  "[-]{primary, secondary, temporary, dynamic, permanent, tentative, deprecated, dadfailed, "
                  "nodad, optimistic, home, mngtmpaddr, noprefixroute, autojoin, stable-privacy}");
  }
  return f;
}

struct FlagName {
  AddrFlag flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {{AddrFlag::Nodad, "nodad"},           {AddrFlag::Optimistic, "optimistic"},
                                   {AddrFlag::Dadfailed, "dadfailed"},   {AddrFlag::Home, "home"},
                                   {AddrFlag::Deprecated, "deprecated"}, {AddrFlag::Tentative, "tentative"},
                                   {AddrFlag::Mngtmpaddr, "mngtmpaddr"}, {AddrFlag::Noprefixroute, "noprefixroute"},
                                   {AddrFlag::Autojoin, "autojoin"},     {AddrFlag::StablePrivacy, "stable-privacy"}};

/// An address ip prints with format_host: a host name with -r (local, peer, broadcast).
void hostJson(JsonOut& j, const char* key, const IpAddress& address) {
  if (ipNameOptions.resolve) j.field(key, ipHostName(address));
  else j.field(key, address);
}

/// An AddrInfo (a monitor's event) read through AddrView's accessors, so that the printers below
/// serve both.
class AddrInfoFields {
 public:
  explicit AddrInfoFields(const AddrInfo& a) : a_(a) {}
  const std::optional<Prefix>& address() const { return a_.address; }
  const std::optional<IpAddress>& peer() const { return a_.peer; }
  const std::optional<IpAddress>& broadcast() const { return a_.broadcast; }
  std::optional<uint32_t> metric() const { return a_.metric; }
  Scope scope() const { return a_.scope.value_or(Scope::Universe); }
  bool has(AddrFlag f) const { return a_.has(f); }
  std::optional<std::string_view> label() const { return a_.label; }
  std::optional<uint32_t> validLifetime() const { return a_.validLifetime; }
  std::optional<uint32_t> preferredLifetime() const { return a_.preferredLifetime; }

 private:
  const AddrInfo& a_;
};

/// The keys of one entry of addr_info, with iproute2's field names (`brief`: those of `ip -br
/// -j`), into the object `j` has open. `device`: ip's `-o -j` (no link fields) names each
/// address's device in it: index, dev.
template <class Addr>
void addrJson(JsonOut& j, const Addr& a, bool brief, const LinkRecord* device = nullptr) {
  Prefix address = *a.address();
  std::optional<IpAddress> peer = a.peer();
  std::optional<uint32_t> metric = a.metric();
  if (device) {
    j.field("index", device->index);
    j.field("dev", device->name);
  }
  bool v4 = address.isV4();
  if (!brief) j.field("family", v4 ? "inet" : "inet6");
  hostJson(j, "local", address.address());
  if (peer) hostJson(j, "address", *peer);
  j.field("prefixlen", address.length());
  if (metric) j.field("metric", *metric);
  if (brief) return;
  if (auto broadcast = a.broadcast()) hostJson(j, "broadcast", *broadcast);
  j.field("scope", ipScopeName(a.scope()));
  if (a.has(AddrFlag::Secondary)) j.field(v4 ? "secondary" : "temporary", true);
  for (const auto& f : kFlagNames)
    if (a.has(f.flag)) j.field(f.name, true);
  if (!a.has(AddrFlag::Permanent)) j.field("dynamic", true);
  if (auto label = a.label()) j.field("label", *label);
  j.field("valid_life_time", a.validLifetime().value_or(kLifetimeForever));
  j.field("preferred_life_time", a.preferredLifetime().value_or(kLifetimeForever));
}

void putLifetime(OutBuffer& out, std::optional<uint32_t> v) {
  if (!v || *v == kLifetimeForever) out.put("forever");
  else out.putUint(*v).put("sec");
}

/// An address ip prints with format_host: a host name with -r.
void putHost(OutBuffer& out, const IpAddress& address) {
  if (ipNameOptions.resolve) out.put(ipHostName(address));
  else out.putIp(address);
}

/// LOCAL/LEN, or "LOCAL peer PEER/LEN" (ip's order: the length is the peer's).
void putLocal(OutBuffer& out, const Prefix& address, const std::optional<IpAddress>& peer) {
  putHost(out, address.address());
  if (peer) putHost(out.put(" peer "), *peer);
  out.put('/').putUint(address.length());
}

/// One address as `ip addr show` prints it: "    inet PREFIX ... scope S [flags] LABEL" and the
/// lifetimes line.
template <class Addr>
void putAddrText(OutBuffer& out, const Addr& a, bool oneline) {
  Prefix address = *a.address();
  out.put(address.isV4() ? "    inet " : "    inet6 ");
  putLocal(out, address, a.peer());
  if (auto metric = a.metric()) out.put(" metric ").putUint(*metric);  // the prefix route's
  if (auto broadcast = a.broadcast()) putHost(out.put(" brd "), *broadcast);
  out.put(" scope ").put(ipScopeName(a.scope()));
  if (a.has(AddrFlag::Secondary)) out.put(address.isV4() ? " secondary" : " temporary");
  if (!a.has(AddrFlag::Permanent)) out.put(" dynamic");
  for (const auto& fl : kFlagNames)
    if (a.has(fl.flag)) out.put(' ').put(fl.name);
  std::optional<std::string_view> label = a.label();
  if (label) out.put(' ').put(*label);
  // ip ends each word but the label with a blank; -o keeps it before the `\`.
  out.put(oneline && !label ? " \n" : "\n");
  out.put("       valid_lft ");
  putLifetime(out, a.validLifetime());
  out.put(" preferred_lft ");
  putLifetime(out, a.preferredLifetime());
  out.put('\n');
}

/// The dump's addresses, kept as copies of their messages (grouped by device: ip prints them
/// under each device, the kernel sends them by family) and read again as views when printed.
/// An address the selectors drop is kept as a mark only: `ip -j` prints `{}` for it when its
/// device is printed (print_selected_addrinfo opens an object for every address of the device's
/// family, and print_addrinfo leaves it empty when a scope, label, flag or `to` selector drops it).
class AddrsByDevice {
 public:
  void add(const AddrView& a) {
    std::span<const uint8_t> m = a.message();
    std::size_t at = (bytes_.size() + 3) & ~std::size_t{3};  // views read aligned headers
    bytes_.resize(at);
    bytes_.insert(bytes_.end(), m.begin(), m.end());
    byDevice_[a.devIndex()].emplace_back(at, m.size());
    kept_.insert(a.devIndex());
  }
  void addDropped(uint32_t dev) { byDevice_[dev].emplace_back(0, 0); }
  void clear() {
    bytes_.clear();
    byDevice_.clear();
    kept_.clear();
  }
  /// Whether `dev` has an address the selectors keep.
  bool has(uint32_t dev) const { return kept_.count(dev) != 0; }
  /// Calls `each` with a view of every kept address of `dev`, in dump order.
  template <class Each>
  void forEach(uint32_t dev, Each each) const {
    forEachWithDropped(dev, [&](const AddrView* a) {
      if (a) each(*a);
    });
  }
  /// The same with nullptr for each dropped address, in its place.
  template <class Each>
  void forEachWithDropped(uint32_t dev, Each each) const {
    auto it = byDevice_.find(dev);
    if (it == byDevice_.end()) return;
    for (auto [at, size] : it->second) {
      if (size == 0) {
        each(static_cast<const AddrView*>(nullptr));
        continue;
      }
      AddrView a(std::span<const uint8_t>(bytes_.data() + at, size));
      each(&a);
    }
  }

 private:
  std::vector<uint8_t> bytes_;
  std::unordered_map<uint32_t, std::vector<std::pair<std::size_t, std::size_t>>> byDevice_;
  std::unordered_set<uint32_t> kept_;
};

/// The library's address filter split for ip's two steps: the dump takes the device and the
/// family (print_selected_addrinfo's own test: other families print nothing, not `{}`); the
/// scope and label are matched here, as print_addrinfo matches them, beside the selectors.
struct AddrMatch {
  AddrFilter dump;
  std::optional<Scope> scope;
  std::optional<std::string> label;
  /// -M, -B: a family no address of fastlink's has (ip dumps it and finds nothing).
  bool none = false;
  /// The device names, for a label filter: an address without a label (IPv6) is matched by
  /// its device's name, as ip's ifa_label_match_rta does.
  DeviceNames* names = nullptr;
  explicit AddrMatch(const AddrFilter& f) : dump(f), scope(f.scope), label(f.label), none(isOtherFamily()) {
    dump.scope.reset();
    dump.label.reset();
  }
  bool keeps(const AddrView& a, const AddrSelectors& selectors) const {
    if (none) return false;
    if (scope && a.scope() != *scope) return false;
    if (label) {
      // ip matches LABEL as a shell pattern (fnmatch): `label 'v0*'`, `label 'eth0:?'`.
      std::optional<std::string_view> own = a.label();
      std::string text(own ? *own : std::string_view(names->name(a.devIndex())));
      if (fnmatch(label->c_str(), text.c_str(), 0) != 0) return false;
    }
    return selectors.keeps(a);
  }
};

int showAddrs(Context& ctx, Args& args) {
  AddrSelectors selectors;
  AddrFilter f = parseFilter(args, &selectors);
  const GlobalOptions& o = ctx.options();
  if (o.family == FamilyOption::Inet) f.family = IpAddress::Family::v4;
  if (o.family == FamilyOption::Inet6) f.family = IpAddress::Family::v6;
  bool linksOnly = o.family == FamilyOption::Link;  // `ip -0 addr`: the devices, no address
  Netlink& nl = ctx.netlink();
  std::optional<std::string> dev;
  if (f.dev) dev = f.dev->isName() ? f.dev->name() : std::to_string(f.dev->index());
  try {
    AddrsByDevice addrs;
    std::unordered_set<uint32_t> addressed;  // devices with an address, kept or not
    // The scope and label filters drop an address here, not in the library: -j prints `{}` for it.
    AddrMatch match(f);
    DeviceNames labelNames;
    if (f.label && !linksOnly) {
      labelNames.load(nl.links());  // before the address dump: one dump at a time on the socket
      match.names = &labelNames;
    }
    if (!linksOnly)
      forEachAddr(
          nl, match.dump,
          [&](const AddrView& a) {
            addressed.insert(a.devIndex());
            if (match.keeps(a, selectors)) addrs.add(a);
            else addrs.addDropped(a.devIndex());
          },
          [&] { addrs.clear(), addressed.clear(); });
    bool filtered = f.scope || f.label || f.family || selectors.any();
    // ip's ipaddr_filter keeps a device without any address unless a family is asked for (`to`
    // sets one), whatever the scope, label or flag selectors (`addressed`: the devices the dump
    // gave an address, kept or dropped).
    bool keepBare = !f.family && !selectors.to;
    LinkRecordHooks hooks;
    // As ip: `-o` prints address lines only, so does a label filter; a family filter drops the
    // link/ether line.
    hooks.header = (!o.oneline && !f.label) || linksOnly;
    // ip's no_link: under a label filter print_linkinfo prints nothing (-br included); with -o
    // it is not called, and -o -j's objects hold addr_info alone, naming the device in each.
    bool ojson = o.oneline && o.json && !o.brief;
    hooks.linkFields = linksOnly || !(f.label || ojson);
    hooks.linkLine = !f.family;
    hooks.inet6View = f.family == IpAddress::Family::v6 && !f.dev;
    hooks.keep = [&](const LinkRecord& l) {
      if (match.none) return false;  // ip's ipaddr_filter: no address of that family, no device
      return !(filtered || (o.oneline && !linksOnly)) || addrs.has(l.index) || (keepBare && !addressed.count(l.index));
    };
    // `up` is print_linkinfo's (after ipaddr_filter): -j prints `{}` for a device that is down;
    // with -o -j ip does not call it, and the device's object holds an empty addr_info.
    auto downDropped = [&](const LinkRecord& l) { return selectors.up && !l.up; };
    if (!ojson || linksOnly) hooks.dropped = downDropped;
    if (!linksOnly) {
      hooks.text = [&](OutBuffer& out, const LinkRecord& l) {
        addrs.forEach(l.index, [&](const AddrView& a) {
          std::size_t mark = out.held();
          if (o.oneline) out.putUint(l.index).put(": ").put(l.name);
          putAddrText(out, a, o.oneline);
          if (o.oneline) out.joinLines(mark);
        });
      };
      // ip -br: "LOCAL[ peer PEER]/LEN [metric N ]" per address.
      hooks.briefText = [&](OutBuffer& out, const LinkRecord& l) {
        addrs.forEach(l.index, [&](const AddrView& a) {
          putLocal(out, *a.address(), a.peer());
          out.put(' ');
          if (auto metric = a.metric()) out.put("metric ").putUint(*metric).put(' ');
        });
      };
      hooks.json = [&](JsonOut& j, const LinkRecord& l) {
        j.key("addr_info").beginArray();
        if (!downDropped(l)) addrs.forEachWithDropped(l.index, [&](const AddrView* a) {
          j.beginObject();  // as ip -j: an empty object for an address a selector dropped
          if (a) addrJson(j, *a, o.brief, ojson ? &l : nullptr);
          j.endObject();
        });
        j.endArray();
      };
    } else {
      hooks.briefText = [](OutBuffer&, const LinkRecord&) {};
    }
    return showLinkRecords(ctx, dev, hooks);
  } catch (const Error& e) {
    return reportFailure(e);
  }
}

/// `address flush`, as ip's ipaddr_flush: rounds of (dump, delete what the selectors keep)
/// until a round finds nothing, at most -l N rounds (10; 0 = no limit). A round's deletes are
/// one pipelined batch; EADDRNOTAVAIL is ignored, as ip ignores it (deleting a primary IPv4
/// address deletes its secondaries with it). -s prints each round and the end, -s -s also each
/// address deleted (as ip: "INDEX: DEV" and the address lines).
int flushAddrs(Context& ctx, Args& args) {
  if (args.done()) throw BadValueError("Flush requires arguments.");  // ip's words and status (1)
  AddrSelectors selectors;
  AddrFilter f = parseFilter(args, &selectors);  // `up` is read and, as in ip's flush, not used
  if (ctx.options().family == FamilyOption::Inet) f.family = IpAddress::Family::v4;
  if (ctx.options().family == FamilyOption::Inet6) f.family = IpAddress::Family::v6;
  if (ctx.options().family == FamilyOption::Link) throw BadValueError("Cannot flush link addresses.");  // ip: 1
  const int loops = ctx.options().maxFlushLoops;
  const int stats = ctx.options().stats;
  // `primary` (secondary in the mask, not in the flags): one round only, or the secondaries the
  // kernel promotes to primaries would be flushed by the next.
  const auto secondary = static_cast<uint32_t>(AddrFlag::Secondary);
  const bool oneRound = (selectors.mask & secondary) && !(selectors.flags & secondary);
  AddrMatch match(f);
  Netlink& nl = ctx.netlink();
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  if (f.label) {
    // A label filter matches an IPv6 address by its device's name: known before the address
    // dump (one dump at a time on the socket), as `show` does.
    names.load(nl.links());
    match.names = &names;
  }
  auto finished = [&](int round) {
    if (stats) {
      if (round == 0) printLine("Nothing to flush.");
      else printLine(fmt::format("*** Flush is complete after {} round{} ***", round, round > 1 ? "s" : ""));
    }
    return kExitOk;
  };
  try {
    for (int round = 0; loops == 0 || round < loops;) {
      AddrsByDevice found;
      std::vector<uint32_t> order;  // devices in dump order, for -s -s
      forEachAddr(
          nl, match.dump,
          [&](const AddrView& a) {
            if (!match.keeps(a, selectors)) return;
            if (!found.has(a.devIndex())) order.push_back(a.devIndex());
            found.add(a);
          },
          [&] { found.clear(), order.clear(); });
      Batch deletes;
      OutBuffer out;
      for (uint32_t dev : order)
        found.forEach(dev, [&](const AddrView& a) {
          AddrInfo key(*a.address(), Ifref(dev));
          if (auto peer = a.peer()) key.setPeer(*peer);
          deletes.add(AddrRequests::del(key));
          if (stats >= 2) {
            out.putUint(dev).put(": ").put(names.name(dev));
            putAddrText(out, a, false);
          }
        });
      if (deletes.empty()) return finished(round);
      ++round;
      BatchResult result = nl.run(deletes, BatchOptions{.onError = OnError::Continue});
      for (const RequestResult& r : result.results)
        if (r.error && r.error->code() != std::errc::address_not_available) return reportFailure(*r.error);
      if (stats) {
        out.flush();
        printLine(fmt::format("\n*** Round {}, deleting {} addresses ***", round, deletes.size()));
      }
      if (oneRound) return finished(round);
    }
  } catch (const Error& e) {
    return reportFailure(e);
  }
  std::fflush(stdout);
  fmt::print(stderr, "*** Flush remains incomplete after {} rounds. ***\n", loops);
  return kExitUsage;  // ip's do_cmd negates ipaddr_flush's 1
}

int runAddr(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage, {{{"show", "list", "ls", "lst"}, showAddrs}, {{"flush"}, flushAddrs}}, prepareAddr);
}

const Registrar kAddr{ObjectCommand{.name = "address", .aliases = {"a", "addr", "ad", "addre"}, .usage = kUsage,
                                    .run = runAddr, .prepare = prepareAddr}};

}  // namespace

void putAddrLine(OutBuffer& out, const AddrInfo& a, DeviceNames& names) {
  if (!a.address) return;  // nothing to print
  out.putUint(a.devIndex()).put(": ").put(names.name(a.devIndex()));
  putAddrText(out, AddrInfoFields(a), true);  // as -o, without joining the lines
}

void putAddrJson(JsonOut& j, const AddrInfo& a) {
  if (a.address) addrJson(j, AddrInfoFields(a), false);
}

}  // namespace fastlink::cli
