// The state document (issue 26): YAML/JSON -> State, and State -> YAML/JSON.
//
// Reading: libyaml's event parser (Debian 12: libyaml-dev 0.2.5) builds a flat tree
// (state/yaml_tree.hpp) of YAML or JSON (a JSON document is YAML flow style). yaml-cpp's node
// tree was 53% of a no-op apply of a 10,000-device document; rapidyaml would be faster still, but
// Debian 12 does not package it. Writing (`show state`) still uses yaml-cpp's emitter. Every node
// is checked against the keys and the types the document may have, and an error names its path
// ("interfaces[3].vlan.id: expected an integer"): nothing is sent before the whole document has
// been read and checked.
#include <fnmatch.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <unordered_map>
#include <sys/stat.h>

#include "fastlink/error.hpp"
#include "fastlink/route.hpp"
#include "fastlink/state.hpp"
#include "state/state_names.hpp"
#include "state/yaml_tree.hpp"

namespace fastlink {
namespace {

/// Thrown while reading; turned into a fastlink::Error naming the origin.
struct DocumentError {
  std::string path, why;
};

[[noreturn]] void fail(const std::string& path, std::string why) { throw DocumentError{path, std::move(why)}; }

/// Why a key nmstate configures with and fastlink does not act on is refused.
constexpr const char* kNotApplied = "not applied by fastlink (refused rather than left out)";

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// A mapping whose keys are checked: reading a key marks it known; `finish` rejects the rest
/// (and a key given twice). Marks are bits, one per entry: documents hold ~100,000 small maps.
class Map {
 public:
  Map(yaml::Node node, std::string path) : node_(node), path_(std::move(path)) {
    if (!node.isMap()) fail(path_.empty() ? "document" : path_, "expected a mapping");
    if (node_.size() > 64) manyKnown_.assign(node_.size(), false);
  }
  const std::string& path() const { return path_; }
  /// The value of `key`, or an undefined node (use `has`).
  yaml::Node get(std::string_view key) {
    std::size_t i = node_.find(key);
    if (i == yaml::Node::npos) return {};
    markKnown(i);
    return node_.value(i);
  }
  bool has(std::string_view key) const {
    std::size_t i = node_.find(key);
    return i != yaml::Node::npos && !node_.value(i).isNull();
  }
  /// Keys nmstate documents carry that fastlink accepts and does not act on.
  void accept(std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
      std::size_t i = node_.find(key);
      if (i != yaml::Node::npos) markKnown(i);
    }
  }
  void finish() const {
    for (std::size_t i = 0; i < node_.size(); ++i) {
      yaml::Node key = node_.key(i);
      if (!key.isScalar()) fail(path_.empty() ? "document" : path_, "a key that is not a string");
      std::string name(key.scalar());
      if (node_.find(name) != i) fail(child(path_, name), "duplicate key");
      if (!known(i)) fail(child(path_, name), "unknown key");
    }
  }

 private:
  void markKnown(std::size_t i) {
    if (manyKnown_.empty()) known_ |= uint64_t{1} << i;
    else manyKnown_[i] = true;
  }
  bool known(std::size_t i) const { return manyKnown_.empty() ? (known_ >> i) & 1 : manyKnown_[i]; }

  yaml::Node node_;
  std::string path_;
  uint64_t known_ = 0;
  std::vector<bool> manyKnown_;
};

std::string scalar(yaml::Node node, const std::string& path, const char* expected = "a string") {
  if (!node.isScalar()) fail(path, std::string("expected ") + expected);
  return std::string(node.scalar());
}

std::string text(yaml::Node node, const std::string& path) { return scalar(node, path); }

uint64_t integer(yaml::Node node, const std::string& path, uint64_t min, uint64_t max) {
  std::string s = scalar(node, path, "an integer");
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    fail(path, "expected an integer, got \"" + s + "\"");
  uint64_t v = std::stoull(s);
  if (v < min || v > max)
    fail(path, std::to_string(v) + " is not in " + std::to_string(min) + "-" + std::to_string(max));
  return v;
}

bool boolean(yaml::Node node, const std::string& path) {
  std::string s = scalar(node, path, "true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail(path, "expected true or false, got \"" + s + "\"");
}

/// Runs `parse` and turns a fastlink::Error of a value parser (MacAddress::parse, ...) into
/// one naming the path.
template <class T>
T value(const std::string& path, const std::function<T()>& parse) {
  try {
    return parse();
  } catch (const Error& e) {
    fail(path, e.reason());
  }
}

std::string ifname(yaml::Node node, const std::string& path) {
  std::string name = text(node, path);
  value<int>(path, [&] {
    validateIfname(name);
    return 0;
  });
  return name;
}

template <class F>
void sequence(yaml::Node node, const std::string& path, F each) {
  if (!node.isSequence()) fail(path, "expected a list");
  for (std::size_t i = 0; i < node.size(); ++i) each(node[i], item(path, i));
}

/// A list of strings, each item read by `read` (ifname, text).
template <class Read>
std::vector<std::string> strings(yaml::Node node, const std::string& path, Read read) {
  std::vector<std::string> out;
  sequence(node, path, [&](yaml::Node n, const std::string& at) { out.push_back(read(n, at)); });
  return out;
}

IpAddress ipAddress(yaml::Node node, const std::string& path) {
  std::string s = text(node, path);
  return value<IpAddress>(path, [&] { return IpAddress::parse(s); });
}

Prefix prefix(yaml::Node node, const std::string& path) {
  std::string s = text(node, path);
  return value<Prefix>(path, [&] { return Prefix::parse(s); });
}

IpConfig ipConfig(yaml::Node node, const std::string& path, IpAddress::Family family) {
  Map m(node, path);
  IpConfig config;
  if (m.has("enabled")) config.enabled = boolean(m.get("enabled"), child(path, "enabled"));
  for (const char* off : {"dhcp", "autoconf"}) {
    if (m.has(off) && boolean(m.get(off), child(path, off)))
      fail(child(path, off), "dynamic addressing is not fastlink's (only false is accepted)");
  }
  m.accept({"dhcp", "autoconf"});
  if (m.has("address")) {
    sequence(m.get("address"), child(path, "address"), [&](yaml::Node a, const std::string& at) {
      Map am(a, at);
      if (!am.has("ip")) fail(child(at, "ip"), "missing");
      IpAddress ip = ipAddress(am.get("ip"), child(at, "ip"));
      if (ip.family() != family) fail(child(at, "ip"), "not an " + std::string(family == IpAddress::Family::v4 ? "IPv4" : "IPv6") + " address");
      if (!am.has("prefix-length")) fail(child(at, "prefix-length"), "missing");
      auto length = static_cast<uint8_t>(integer(am.get("prefix-length"), child(at, "prefix-length"), 0, ip.isV4() ? 32 : 128));
      am.finish();
      Prefix p(ip, length);
      if (std::find(config.addresses.begin(), config.addresses.end(), p) != config.addresses.end())
        fail(at, "duplicate address " + p.toString());
      config.addresses.push_back(p);
    });
  } else {
    m.get("address");
  }
  if (!config.enabled && !config.addresses.empty()) fail(child(path, "address"), "addresses given with enabled: false");
  m.finish();
  return config;
}

std::vector<std::string> portNames(yaml::Node node, const std::string& path) {
  return strings(node, path, [](yaml::Node p, const std::string& at) { return ifname(p, at); });
}

/// `id: N` or `id-range: {min, max}` (a trunk tag, or an entry of fastlink-vlans).
BridgeVlanRange vlanIds(Map& m) {
  bool hasId = m.has("id"), hasRange = m.has("id-range");
  if (hasId == hasRange) fail(m.path(), "expected id or id-range");
  if (hasId) {
    auto id = static_cast<uint16_t>(integer(m.get("id"), child(m.path(), "id"), 1, 4094));
    return {id, id};
  }
  Map r(m.get("id-range"), child(m.path(), "id-range"));
  for (const char* key : {"min", "max"})
    if (!r.has(key)) fail(child(r.path(), key), "missing");
  auto min = static_cast<uint16_t>(integer(r.get("min"), child(r.path(), "min"), 1, 4094));
  auto max = static_cast<uint16_t>(integer(r.get("max"), child(r.path(), "max"), 1, 4094));
  if (min > max) fail(r.path(), "min " + std::to_string(min) + " is above max " + std::to_string(max));
  r.finish();
  return {min, max};
}

/// `fastlink-vlans: [{id | id-range, pvid, untagged}]`: any VLAN list, as the kernel has it.
std::vector<BridgeVlanRange> fastlinkVlans(yaml::Node node, const std::string& path) {
  std::vector<BridgeVlanRange> out;
  sequence(node, path, [&](yaml::Node e, const std::string& at) {
    Map em(e, at);
    BridgeVlanRange r = vlanIds(em);
    if (em.has("pvid")) r.pvid = boolean(em.get("pvid"), child(at, "pvid"));
    if (em.has("untagged")) r.untagged = boolean(em.get("untagged"), child(at, "untagged"));
    if (r.pvid && r.first != r.last) fail(child(at, "pvid"), "the PVID is one VLAN, not a range");
    em.finish();
    out.push_back(r);
  });
  return out;
}

/// nmstate's `bridge.port[].vlan`, as the complete VLAN list of the port: `access` is its `tag`
/// untagged and PVID; `trunk` is its `trunk-tags` tagged, and with `enable-native` its `tag`
/// untagged and PVID. Nothing else: a trunk without a native VLAN drops untagged frames.
std::vector<BridgeVlanRange> portVlanList(yaml::Node node, const std::string& path) {
  Map v(node, path);
  std::vector<BridgeVlanRange> out;
  if (v.has("fastlink-vlans")) {
    for (const char* key : {"mode", "tag", "enable-native", "trunk-tags"})
      if (v.has(key)) fail(child(path, key), "not with fastlink-vlans (which lists every VLAN of the port)");
    out = fastlinkVlans(v.get("fastlink-vlans"), child(path, "fastlink-vlans"));
  } else {
    if (!v.has("mode")) fail(child(path, "mode"), "missing (access or trunk)");
    std::string mode = text(v.get("mode"), child(path, "mode"));
    std::optional<uint16_t> tag;
    if (v.has("tag")) tag = static_cast<uint16_t>(integer(v.get("tag"), child(path, "tag"), 1, 4094));
    bool native = v.has("enable-native") && boolean(v.get("enable-native"), child(path, "enable-native"));
    if (mode == "access") {
      if (!tag) fail(child(path, "tag"), "missing (the VLAN of an access port)");
      for (const char* key : {"trunk-tags", "enable-native"})
        if (v.has(key)) fail(child(path, key), "only with mode trunk");
      out.push_back({*tag, *tag, true, true});
    } else if (mode == "trunk") {
      if (!v.has("trunk-tags")) fail(child(path, "trunk-tags"), "missing (the VLANs of a trunk port)");
      sequence(v.get("trunk-tags"), child(path, "trunk-tags"), [&](yaml::Node t, const std::string& at) {
        Map tm(t, at);
        out.push_back(vlanIds(tm));
        tm.finish();
      });
      if (native && !tag) fail(child(path, "tag"), "missing (enable-native needs the native VLAN)");
      if (!native && tag) fail(child(path, "tag"), "the native VLAN of a trunk port: give enable-native: true with it");
      if (native) out.push_back({*tag, *tag, true, true});
    } else {
      fail(child(path, "mode"), "expected access or trunk, got \"" + mode + "\"");
    }
  }
  v.finish();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  bool pvid = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i && out[i].first <= out[i - 1].last) fail(path, "VLAN " + std::to_string(out[i].first) + " is given twice");
    if (out[i].pvid && pvid) fail(path, "two PVIDs (a port has one)");
    pvid = pvid || out[i].pvid;
  }
  return out;
}

void readBridge(Map& m, InterfaceState& iface) {
  if (!m.has("bridge")) return;
  Map b(m.get("bridge"), child(m.path(), "bridge"));
  if (b.has("port")) {
    iface.ports.emplace();
    sequence(b.get("port"), child(b.path(), "port"), [&](yaml::Node p, const std::string& at) {
      if (!p.isMap()) {
        iface.ports->push_back(ifname(p, at));
        return;
      }
      Map pm(p, at);
      if (!pm.has("name")) fail(child(at, "name"), "missing");
      iface.ports->push_back(ifname(pm.get("name"), child(at, "name")));
      if (pm.has("vlan")) iface.portVlans.push_back({iface.ports->back(), portVlanList(pm.get("vlan"), child(at, "vlan"))});
      pm.finish();
    });
  }
  if (b.has("options")) {
    Map o(b.get("options"), child(b.path(), "options"));
    if (o.has("stp")) {
      Map stp(o.get("stp"), child(o.path(), "stp"));
      if (stp.has("enabled")) iface.bridgeStp = boolean(stp.get("enabled"), child(stp.path(), "enabled"));
      stp.finish();
    }
    if (o.has("fastlink-vlan-filtering"))
      iface.bridgeVlanFiltering = boolean(o.get("fastlink-vlan-filtering"), child(o.path(), "fastlink-vlan-filtering"));
    // The kernel's bridges filter 802.1Q unless told otherwise; fastlink sets no other protocol.
    if (o.has("vlan-protocol") && text(o.get("vlan-protocol"), child(o.path(), "vlan-protocol")) != "802.1q")
      fail(child(o.path(), "vlan-protocol"), "only 802.1q is supported");
    o.finish();
  }
  if (!iface.portVlans.empty() && !iface.bridgeVlanFiltering) iface.bridgeVlanFiltering = true;
  b.finish();
}

void readBond(Map& m, InterfaceState& iface) {
  if (!m.has("link-aggregation")) return;
  Map b(m.get("link-aggregation"), child(m.path(), "link-aggregation"));
  if (b.has("mode")) {
    std::string at = child(b.path(), "mode");
    auto mode = bondModeFromName(text(b.get("mode"), at));
    if (!mode) fail(at, "unknown bond mode \"" + std::string(b.get("mode").scalar()) + "\"");
    iface.bondMode = mode;
  }
  if (b.has("port")) iface.ports = portNames(b.get("port"), child(b.path(), "port"));
  if (b.has("options")) {
    Map o(b.get("options"), child(b.path(), "options"));
    if (o.has("miimon")) iface.bondMiimon = static_cast<uint32_t>(integer(o.get("miimon"), child(o.path(), "miimon"), 0, INT32_MAX));
    o.finish();
  }
  b.finish();
}

void readKindOptions(Map& m, InterfaceState& iface) {
  readBridge(m, iface);
  readBond(m, iface);
  if (m.has("vlan")) {
    Map v(m.get("vlan"), child(m.path(), "vlan"));
    if (!v.has("base-iface")) fail(child(v.path(), "base-iface"), "missing");
    iface.baseIface = ifname(v.get("base-iface"), child(v.path(), "base-iface"));
    if (!v.has("id")) fail(child(v.path(), "id"), "missing");
    iface.vlanId = static_cast<uint16_t>(integer(v.get("id"), child(v.path(), "id"), 0, 4094));
    if (v.has("protocol") && text(v.get("protocol"), child(v.path(), "protocol")) != "802.1q")
      fail(child(v.path(), "protocol"), "only 802.1q is supported");
    v.finish();
  }
  if (m.has("vxlan")) {
    Map v(m.get("vxlan"), child(m.path(), "vxlan"));
    if (!v.has("id")) fail(child(v.path(), "id"), "missing");
    iface.vxlanId = static_cast<uint32_t>(integer(v.get("id"), child(v.path(), "id"), 0, 16777215));
    if (v.has("base-iface")) iface.baseIface = ifname(v.get("base-iface"), child(v.path(), "base-iface"));
    if (v.has("remote")) iface.vxlanRemote = ipAddress(v.get("remote"), child(v.path(), "remote"));
    if (v.has("local")) iface.vxlanLocal = ipAddress(v.get("local"), child(v.path(), "local"));
    if (v.has("destination-port"))
      iface.vxlanDstPort = static_cast<uint16_t>(integer(v.get("destination-port"), child(v.path(), "destination-port"), 0, 65535));
    v.finish();
  }
  if (m.has("vrf")) {
    Map v(m.get("vrf"), child(m.path(), "vrf"));
    if (!v.has("route-table-id")) fail(child(v.path(), "route-table-id"), "missing");
    iface.vrfTable = static_cast<uint32_t>(integer(v.get("route-table-id"), child(v.path(), "route-table-id"), 1, UINT32_MAX));
    if (v.has("port")) iface.ports = portNames(v.get("port"), child(v.path(), "port"));
    v.finish();
  }
  if (m.has("veth")) {
    Map v(m.get("veth"), child(m.path(), "veth"));
    if (!v.has("peer")) fail(child(v.path(), "peer"), "missing");
    iface.vethPeer = ifname(v.get("peer"), child(v.path(), "peer"));
    v.finish();
  }
  if (m.has("mac-vlan")) {
    Map v(m.get("mac-vlan"), child(m.path(), "mac-vlan"));
    if (!v.has("base-iface")) fail(child(v.path(), "base-iface"), "missing");
    iface.baseIface = ifname(v.get("base-iface"), child(v.path(), "base-iface"));
    if (v.has("mode")) {
      auto mode = macvlanModeFromName(text(v.get("mode"), child(v.path(), "mode")));
      if (!mode) fail(child(v.path(), "mode"), "unknown mac-vlan mode \"" + std::string(v.get("mode").scalar()) + "\"");
      iface.macvlanMode = mode;
    }
    if (v.get("promiscuous").isDefined()) fail(child(v.path(), "promiscuous"), kNotApplied);
    v.finish();
  }
}

/// nmstate's keys that configure what fastlink does not (ethtool settings, LLDP, 802.1X,
/// promiscuity, NetworkManager's profiles and dispatch scripts, ...): refused by name, never
/// ignored. `lldp: {enabled: false}` is honoured: fastlink runs no LLDP agent.
void refuseNotApplied(Map& m) {
  static const char* const kKeys[] = {"accept-all-mac-addresses", "lldp", "ethtool", "profile-name", "identifier",
                                      "wait-ip", "ieee-802-1x", "ethernet", "802-3", "dispatch"};
  for (const char* key : kKeys) {
    yaml::Node value = m.get(key);
    if (!value.isDefined()) continue;
    std::string at = child(m.path(), key);
    std::size_t enabled = value.isMap() ? value.find("enabled") : yaml::Node::npos;
    if (std::string(key) == "lldp" && value.size() == 1 && enabled != yaml::Node::npos &&
        !boolean(value.value(enabled), child(at, "enabled")))
      continue;
    fail(at, kNotApplied);
  }
}

/// The per-kind subtree a type has (the others are errors on it).
const char* subtreeOf(const std::string& type) {
  if (type == "linux-bridge") return "bridge";
  if (type == "bond") return "link-aggregation";
  if (type == "vlan") return "vlan";
  if (type == "vxlan") return "vxlan";
  if (type == "vrf") return "vrf";
  if (type == "veth") return "veth";
  if (type == "mac-vlan") return "mac-vlan";
  return nullptr;
}

InterfaceState readInterface(yaml::Node node, const std::string& path) {
  Map m(node, path);
  InterfaceState iface;
  iface.path = path;
  if (!m.has("name")) fail(child(path, "name"), "missing");
  iface.name = ifname(m.get("name"), child(path, "name"));
  if (m.has("state")) {
    std::string s = text(m.get("state"), child(path, "state"));
    if (s == "up") iface.state = InterfaceAdmin::Up;
    else if (s == "down") iface.state = InterfaceAdmin::Down;
    else if (s == "absent") iface.state = InterfaceAdmin::Absent;
    else fail(child(path, "state"), "expected up, down or absent, got \"" + s + "\"");
  }
  if (m.has("type")) iface.type = text(m.get("type"), child(path, "type"));
  else if (iface.state != InterfaceAdmin::Absent) fail(child(path, "type"), "missing");
  if (m.has("mtu")) iface.mtu = static_cast<uint32_t>(integer(m.get("mtu"), child(path, "mtu"), 68, 65536));
  if (m.has("mac-address")) {
    std::string at = child(path, "mac-address");
    std::string s = text(m.get("mac-address"), at);
    iface.macAddress = value<MacAddress>(at, [&] { return MacAddress::parse(s); });
  }
  if (m.has("description")) iface.description = text(m.get("description"), child(path, "description"));
  if (m.has("controller")) {
    std::string at = child(path, "controller");
    std::string c = text(m.get("controller"), at);
    if (!c.empty()) value<int>(at, [&] { validateIfname(c); return 0; });
    iface.controller = c;
  }
  if (m.has("fastlink-group")) iface.group = static_cast<uint32_t>(integer(m.get("fastlink-group"), child(path, "fastlink-group"), 0, UINT32_MAX));
  if (m.has("fastlink-ifindex")) iface.ifindex = static_cast<uint32_t>(integer(m.get("fastlink-ifindex"), child(path, "fastlink-ifindex"), 1, INT32_MAX));
  if (m.has("ipv4")) iface.ipv4 = ipConfig(m.get("ipv4"), child(path, "ipv4"), IpAddress::Family::v4);
  if (m.has("ipv6")) iface.ipv6 = ipConfig(m.get("ipv6"), child(path, "ipv6"), IpAddress::Family::v6);
  // A subtree of another type is an error: `vlan:` on a linux-bridge says the document is wrong.
  const char* own = subtreeOf(iface.type);
  for (const char* subtree : {"bridge", "link-aggregation", "vlan", "vxlan", "vrf", "veth", "mac-vlan"}) {
    if (m.has(subtree) && (own == nullptr || std::string(own) != subtree))
      fail(child(path, subtree), "not an option of type " + (iface.type.empty() ? std::string("(none)") : iface.type));
  }
  readKindOptions(m, iface);
  if (iface.type == "vlan" && !iface.vlanId) fail(child(path, "vlan"), "missing (a vlan needs base-iface and id)");
  if (iface.type == "vxlan" && !iface.vxlanId) fail(child(path, "vxlan"), "missing (a vxlan needs an id)");
  if (iface.type == "vrf" && !iface.vrfTable) fail(child(path, "vrf"), "missing (a vrf needs route-table-id)");
  if (iface.type == "mac-vlan" && !iface.baseIface) fail(child(path, "mac-vlan"), "missing (a mac-vlan needs base-iface)");
  // Keys of nmstate's own output that only describe the device.
  m.accept({"permanent-mac-address", "min-mtu", "max-mtu"});
  refuseNotApplied(m);
  m.finish();
  return iface;
}

/// A route's or rule's `state:`, which can only be `absent`.
bool readAbsent(Map& m, const std::string& path) {
  if (!m.has("state")) return false;
  std::string s = text(m.get("state"), child(path, "state"));
  if (s != "absent") fail(child(path, "state"), "expected absent, got \"" + s + "\"");
  return true;
}

/// A route protocol: a name of rt_protos (`static`, `bgp`) or a number.
uint8_t routeProtocol(yaml::Node node, const std::string& path) {
  std::string s = text(node, path);
  return static_cast<uint8_t>(value<RouteProtocol>(path, [&] { return RouteNames::system().protocol(s); }));
}

RouteState readRoute(yaml::Node node, const std::string& path) {
  Map m(node, path);
  RouteState r;
  r.path = path;
  r.absent = readAbsent(m, path);
  if (!m.has("destination")) fail(child(path, "destination"), "missing");
  r.destination = prefix(m.get("destination"), child(path, "destination"));
  if (r.destination.hasHostBits()) fail(child(path, "destination"), "host bits set in " + r.destination.toStringWithLength());
  if (m.has("next-hop-address")) {
    std::string s = text(m.get("next-hop-address"), child(path, "next-hop-address"));
    if (!s.empty()) {
      r.nextHopAddress = value<IpAddress>(child(path, "next-hop-address"), [&] { return IpAddress::parse(s); });
      if (r.nextHopAddress->family() != r.destination.family()) fail(child(path, "next-hop-address"), "another family than the destination");
    }
  }
  if (m.has("next-hop-interface")) r.nextHopInterface = ifname(m.get("next-hop-interface"), child(path, "next-hop-interface"));
  if (m.has("metric")) r.metric = static_cast<uint32_t>(integer(m.get("metric"), child(path, "metric"), 0, UINT32_MAX));
  if (m.has("table-id")) r.table = static_cast<uint32_t>(integer(m.get("table-id"), child(path, "table-id"), 1, UINT32_MAX));
  if (m.has("fastlink-protocol")) r.protocol = routeProtocol(m.get("fastlink-protocol"), child(path, "fastlink-protocol"));
  if (!r.absent && !r.nextHopAddress && !r.nextHopInterface) fail(path, "a route needs next-hop-address or next-hop-interface");
  m.finish();
  return r;
}

RuleState readRule(yaml::Node node, const std::string& path) {
  Map m(node, path);
  RuleState r;
  r.path = path;
  r.absent = readAbsent(m, path);
  if (m.has("ip-from")) r.ipFrom = prefix(m.get("ip-from"), child(path, "ip-from"));
  if (m.has("ip-to")) r.ipTo = prefix(m.get("ip-to"), child(path, "ip-to"));
  if (r.ipFrom && r.ipTo && r.ipFrom->family() != r.ipTo->family()) fail(child(path, "ip-to"), "another family than ip-from");
  if (r.ipFrom) r.family = r.ipFrom->family();
  else if (r.ipTo) r.family = r.ipTo->family();
  if (m.has("family")) {
    std::string f = text(m.get("family"), child(path, "family"));
    if (f == "ipv4") r.family = IpAddress::Family::v4;
    else if (f == "ipv6") r.family = IpAddress::Family::v6;
    else fail(child(path, "family"), "expected ipv4 or ipv6, got \"" + f + "\"");
    if ((r.ipFrom && r.ipFrom->family() != r.family) || (r.ipTo && r.ipTo->family() != r.family))
      fail(child(path, "family"), "another family than the prefixes");
  }
  if (m.has("priority")) r.priority = static_cast<uint32_t>(integer(m.get("priority"), child(path, "priority"), 0, UINT32_MAX));
  if (m.has("route-table")) r.table = static_cast<uint32_t>(integer(m.get("route-table"), child(path, "route-table"), 1, UINT32_MAX));
  if (m.has("fwmark")) r.fwmark = static_cast<uint32_t>(integer(m.get("fwmark"), child(path, "fwmark"), 0, UINT32_MAX));
  if (m.has("fwmask")) r.fwmask = static_cast<uint32_t>(integer(m.get("fwmask"), child(path, "fwmask"), 0, UINT32_MAX));
  if (!r.absent && !r.table) fail(child(path, "route-table"), "missing");
  m.finish();
  return r;
}

std::vector<std::string> globs(yaml::Node node, const std::string& path) {
  return strings(node, path, [](yaml::Node g, const std::string& at) { return text(g, at); });
}

void readApplyOptions(yaml::Node node, State& state) {
  Map m(node, "fastlink-apply");
  if (m.has("mode")) {
    std::string s = text(m.get("mode"), "fastlink-apply.mode");
    if (s == "merged") state.mode = ApplyMode::Merged;
    else if (s == "replaced") state.mode = ApplyMode::Replaced;
    else if (s == "overridden") state.mode = ApplyMode::Overridden;
    else fail("fastlink-apply.mode", "expected merged, replaced or overridden, got \"" + s + "\"");
  }
  if (m.has("owned-interfaces")) state.ownership.interfaces = globs(m.get("owned-interfaces"), "fastlink-apply.owned-interfaces");
  if (m.has("ignore")) state.ownership.ignore = globs(m.get("ignore"), "fastlink-apply.ignore");
  if (m.has("route-protocol")) state.ownership.routeProtocol = routeProtocol(m.get("route-protocol"), "fastlink-apply.route-protocol");
  if (m.has("route-tables")) {
    state.ownership.routeTables.clear();
    sequence(m.get("route-tables"), "fastlink-apply.route-tables", [&](yaml::Node t, const std::string& at) {
      state.ownership.routeTables.push_back(static_cast<uint32_t>(integer(t, at, 1, UINT32_MAX)));
    });
  }
  m.finish();
}

/// The checks that need the whole document: duplicates, ports and controllers that agree,
/// devices that exist in the document or may exist on the host, no cycles.
void checkDocument(State& state) {
  std::map<std::string, InterfaceState*> byName;
  for (auto& iface : state.interfaces) {
    auto [it, fresh] = byName.emplace(iface.name, &iface);
    if (!fresh) fail(child(iface.path, "name"), "duplicate interface " + iface.name + " (also " + it->second->path + ")");
  }
  // Port lists become controllers; a port listed by two masters, or a controller that disagrees, is an error.
  for (auto& master : state.interfaces) {
    if (!master.ports) continue;
    for (std::size_t i = 0; i < master.ports->size(); ++i) {
      const std::string& port = (*master.ports)[i];
      std::string at = master.path + "." + subtreeOf(master.type) + ".port[" + std::to_string(i) + "]";
      if (port == master.name) fail(at, master.name + " cannot be its own port");
      auto it = byName.find(port);
      if (it == byName.end()) continue;  // a port the host has: fine in merged mode, checked by the planner
      InterfaceState& p = *it->second;
      if (p.controller && *p.controller != master.name && !p.controller->empty())
        fail(at, port + " is a port of " + *p.controller + " (" + child(p.path, "controller") + ")");
      if (p.state == InterfaceAdmin::Absent) fail(at, port + " is absent (" + p.path + ")");
    }
  }
  for (auto& iface : state.interfaces) {
    if (iface.controller && !iface.controller->empty()) {
      auto it = byName.find(*iface.controller);
      std::string at = child(iface.path, "controller");
      if (*iface.controller == iface.name) fail(at, iface.name + " cannot be its own controller");
      if (it != byName.end()) {
        const InterfaceState& m = *it->second;
        if (m.state == InterfaceAdmin::Absent) fail(at, "controller " + m.name + " is absent (" + m.path + ")");
        if (m.type != "linux-bridge" && m.type != "bond" && m.type != "vrf")
          fail(at, m.name + " is a " + m.type + ", not a linux-bridge, bond or vrf");
        if (m.ports && std::find(m.ports->begin(), m.ports->end(), iface.name) == m.ports->end())
          fail(at, iface.name + " is not in the port list of " + m.name);
      }
    }
  }
  // Cycles through controller/port and base-iface links (each device has at most one of each).
  // The masters listing each port, in document order: asking every interface of every interface
  // was 69% of reading a 20,000-interface document.
  std::unordered_map<std::string_view, std::vector<std::string_view>> mastersOf;
  for (const auto& m : state.interfaces)
    if (m.ports)
      for (const auto& port : *m.ports) mastersOf[port].push_back(m.name);
  auto upOf = [&](const InterfaceState& iface) -> std::vector<std::string> {
    std::vector<std::string> up;
    if (iface.controller && !iface.controller->empty()) up.push_back(*iface.controller);
    if (iface.baseIface) up.push_back(*iface.baseIface);
    auto it = mastersOf.find(iface.name);
    if (it != mastersOf.end())
      for (std::string_view m : it->second) up.emplace_back(m);
    return up;
  };
  std::unordered_map<std::string, int> mark;  // 1 visiting, 2 done
  std::function<void(const InterfaceState&, std::vector<std::string>&)> visit = [&](const InterfaceState& iface, std::vector<std::string>& trail) {
    int& m = mark[iface.name];
    if (m == 2) return;
    trail.push_back(iface.name);
    if (m == 1) {
      std::string cycle;
      for (const auto& n : trail) cycle += (cycle.empty() ? "" : " -> ") + n;
      fail(iface.path, "cyclic controllers: " + cycle);
    }
    m = 1;
    for (const auto& up : upOf(iface)) {
      auto it = byName.find(up);
      if (it != byName.end()) visit(*it->second, trail);
    }
    trail.pop_back();
    mark[iface.name] = 2;
  };
  for (auto& iface : state.interfaces) {
    std::vector<std::string> trail;
    visit(iface, trail);
  }
  for (auto& iface : state.interfaces) {
    if (iface.baseIface) {
      auto it = byName.find(*iface.baseIface);
      if (it != byName.end() && it->second->state == InterfaceAdmin::Absent)
        fail(iface.path + "." + subtreeOf(iface.type) + ".base-iface", *iface.baseIface + " is absent (" + it->second->path + ")");
    }
  }
  for (auto& route : state.routes) {
    if (!route.nextHopInterface) continue;
    auto it = byName.find(*route.nextHopInterface);
    if (it != byName.end() && it->second->state == InterfaceAdmin::Absent && !route.absent)
      fail(child(route.path, "next-hop-interface"), *route.nextHopInterface + " is absent (" + it->second->path + ")");
  }
}

State readDocument(yaml::Node root) {
  State state;
  if (root.isNull()) return state;  // an empty document asks for nothing
  Map m(root, "");
  if (m.has("fastlink-apply")) readApplyOptions(m.get("fastlink-apply"), state);
  if (m.has("interfaces"))
    sequence(m.get("interfaces"), "interfaces", [&](yaml::Node n, const std::string& at) { state.interfaces.push_back(readInterface(n, at)); });
  if (m.has("routes")) {
    Map r(m.get("routes"), "routes");
    if (r.has("config"))
      sequence(r.get("config"), "routes.config", [&](yaml::Node n, const std::string& at) { state.routes.push_back(readRoute(n, at)); });
    r.accept({"running"});
    r.finish();
  }
  if (m.has("route-rules")) {
    Map r(m.get("route-rules"), "route-rules");
    if (r.has("config"))
      sequence(r.get("config"), "route-rules.config", [&](yaml::Node n, const std::string& at) { state.rules.push_back(readRule(n, at)); });
    r.finish();
  }
  m.accept({"dns-resolver"});
  if (m.has("dns-resolver")) {
    Map d(m.get("dns-resolver"), "dns-resolver");
    if (d.has("config")) fail("dns-resolver.config", "DNS is not fastlink's (leave it out)");
    d.accept({"running"});
    d.finish();
  }
  m.finish();
  checkDocument(state);
  return state;
}

}  // namespace

State State::parse(std::string_view text, const std::string& origin) {
  std::string operation = "in " + origin;
  try {
    yaml::Tree tree(text);
    return readDocument(tree.root());
  } catch (const DocumentError& e) {
    throw Error::invalidArgument(operation, e.path + ": " + e.why);
  } catch (const yaml::SyntaxError& e) {
    throw Error::invalidArgument(operation, e.message);
  }
}

State State::load(const std::string& path) { return parse(read(path), path == "-" ? "standard input" : path); }

std::string State::read(const std::string& path) {
  std::string content;
  if (path == "-") {
    // read(2), not std::cin: the CLI does not construct the standard streams (their start-up
    // cost every command ~50 K instructions; cli/kit/no_standard_streams.cpp).
    char block[65536];
    for (;;) {
      ssize_t n = ::read(STDIN_FILENO, block, sizeof block);
      if (n > 0) {
        content.append(block, static_cast<std::size_t>(n));
      } else if (n == 0) {
        break;
      } else if (errno != EINTR) {
        throw Error(std::error_code(errno, std::generic_category()), "cannot read the state from standard input");
      }
    }
  } else {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw Error(std::make_error_code(std::errc::is_a_directory), "cannot read state file \"" + path + "\"");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(std::error_code(errno, std::generic_category()), "cannot open state file \"" + path + "\"");
    // In blocks, not a character at a time (a 10,000-device document is megabytes).
    std::ostringstream whole;
    whole << in.rdbuf();
    content = std::move(whole).str();
  }
  return content;
}

const InterfaceState* State::findInterface(std::string_view name) const {
  for (const auto& iface : interfaces)
    if (iface.name == name) return &iface;
  return nullptr;
}

// ---- Writing ------------------------------------------------------------------------------

namespace {

YAML::Node addressList(const IpConfig& config) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const Prefix& p : config.addresses) {
    YAML::Node a;
    a["ip"] = p.address().toString();
    a["prefix-length"] = static_cast<int>(p.length());
    list.push_back(a);
  }
  return list;
}

YAML::Node ipNode(const IpConfig& config) {
  YAML::Node n;
  n["enabled"] = config.enabled;
  if (config.enabled) n["address"] = addressList(config);
  return n;
}

YAML::Node names(const std::vector<std::string>& list, bool asMappings) {
  YAML::Node out(YAML::NodeType::Sequence);
  for (const auto& name : list) {
    if (asMappings) {
      YAML::Node p;
      p["name"] = name;
      out.push_back(p);
    } else {
      out.push_back(name);
    }
  }
  return out;
}

YAML::Node vlanIdsNode(const BridgeVlanRange& r) {
  YAML::Node n;
  if (r.first == r.last) {
    n["id"] = r.first;
  } else {
    n["id-range"]["min"] = r.first;
    n["id-range"]["max"] = r.last;
  }
  return n;
}

/// nmstate's keys when they can say it (tagged VLANs and at most one native VLAN, untagged and
/// PVID), else fastlink-vlans.
YAML::Node portVlanNode(const std::vector<BridgeVlanRange>& vlans) {
  const BridgeVlanRange* native = nullptr;
  bool nmstateShape = !vlans.empty();
  for (const auto& r : vlans) {
    if (r.pvid && r.untagged && !native) native = &r;
    else if (r.pvid || r.untagged) nmstateShape = false;
  }
  YAML::Node n;
  if (nmstateShape && native && vlans.size() == 1) {
    n["mode"] = "access";
    n["tag"] = native->first;
  } else if (nmstateShape) {
    n["mode"] = "trunk";
    YAML::Node tags(YAML::NodeType::Sequence);
    for (const auto& r : vlans)
      if (&r != native) tags.push_back(vlanIdsNode(r));
    n["trunk-tags"] = tags;
    n["enable-native"] = native != nullptr;
    if (native) n["tag"] = native->first;
  } else {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& r : vlans) {
      YAML::Node e = vlanIdsNode(r);
      e["pvid"] = r.pvid;
      e["untagged"] = r.untagged;
      list.push_back(e);
    }
    n["fastlink-vlans"] = list;
  }
  return n;
}

YAML::Node interfaceNode(const InterfaceState& iface) {
  YAML::Node n;
  n["name"] = iface.name;
  if (!iface.type.empty()) n["type"] = iface.type;
  n["state"] = iface.state == InterfaceAdmin::Up ? "up" : iface.state == InterfaceAdmin::Down ? "down" : "absent";
  if (iface.state == InterfaceAdmin::Absent) return n;
  if (iface.mtu) n["mtu"] = *iface.mtu;
  if (iface.macAddress) n["mac-address"] = iface.macAddress->toString();
  if (iface.description) n["description"] = *iface.description;
  if (iface.controller) n["controller"] = *iface.controller;
  if (iface.group) n["fastlink-group"] = *iface.group;
  if (iface.ifindex) n["fastlink-ifindex"] = *iface.ifindex;
  if (iface.ipv4) n["ipv4"] = ipNode(*iface.ipv4);
  if (iface.ipv6) n["ipv6"] = ipNode(*iface.ipv6);
  if (iface.type == "linux-bridge" && (iface.ports || iface.bridgeStp || iface.bridgeVlanFiltering)) {
    YAML::Node b;
    if (iface.bridgeStp) b["options"]["stp"]["enabled"] = *iface.bridgeStp;
    if (iface.bridgeVlanFiltering) b["options"]["fastlink-vlan-filtering"] = *iface.bridgeVlanFiltering;
    if (iface.ports) {
      b["port"] = names(*iface.ports, true);
      for (const auto& pv : iface.portVlans) {
        auto at = std::find(iface.ports->begin(), iface.ports->end(), pv.port);
        if (at != iface.ports->end()) b["port"][static_cast<std::size_t>(at - iface.ports->begin())]["vlan"] = portVlanNode(pv.vlans);
      }
    }
    n["bridge"] = b;
  }
  if (iface.type == "bond") {
    YAML::Node b;
    if (iface.bondMode) b["mode"] = bondModeName(*iface.bondMode);
    if (iface.bondMiimon) b["options"]["miimon"] = *iface.bondMiimon;
    if (iface.ports) b["port"] = names(*iface.ports, false);
    n["link-aggregation"] = b;
  }
  if (iface.type == "vlan") {
    n["vlan"]["base-iface"] = iface.baseIface.value_or("");
    n["vlan"]["id"] = *iface.vlanId;
  }
  if (iface.type == "vxlan") {
    n["vxlan"]["id"] = *iface.vxlanId;
    if (iface.baseIface) n["vxlan"]["base-iface"] = *iface.baseIface;
    if (iface.vxlanRemote) n["vxlan"]["remote"] = iface.vxlanRemote->toString();
    if (iface.vxlanLocal) n["vxlan"]["local"] = iface.vxlanLocal->toString();
    if (iface.vxlanDstPort) n["vxlan"]["destination-port"] = *iface.vxlanDstPort;
  }
  if (iface.type == "vrf") {
    n["vrf"]["route-table-id"] = *iface.vrfTable;
    if (iface.ports) n["vrf"]["port"] = names(*iface.ports, false);
  }
  if (iface.type == "veth" && iface.vethPeer) n["veth"]["peer"] = *iface.vethPeer;
  if (iface.type == "mac-vlan") {
    n["mac-vlan"]["base-iface"] = iface.baseIface.value_or("");
    if (iface.macvlanMode) n["mac-vlan"]["mode"] = macvlanModeName(*iface.macvlanMode);
  }
  return n;
}

YAML::Node documentNode(const State& state) {
  YAML::Node root;
  YAML::Node interfaces(YAML::NodeType::Sequence);
  for (const auto& iface : state.interfaces) interfaces.push_back(interfaceNode(iface));
  root["interfaces"] = interfaces;
  YAML::Node routes(YAML::NodeType::Sequence);
  for (const auto& r : state.routes) {
    YAML::Node n;
    n["destination"] = r.destination.toStringWithLength();
    if (r.nextHopAddress) n["next-hop-address"] = r.nextHopAddress->toString();
    if (r.nextHopInterface) n["next-hop-interface"] = *r.nextHopInterface;
    if (r.metric) n["metric"] = *r.metric;
    n["table-id"] = r.table;
    if (r.protocol) n["fastlink-protocol"] = RouteNames::system().protocolName(static_cast<RouteProtocol>(*r.protocol));
    if (r.absent) n["state"] = "absent";
    routes.push_back(n);
  }
  root["routes"]["config"] = routes;
  YAML::Node rules(YAML::NodeType::Sequence);
  for (const auto& r : state.rules) {
    YAML::Node n;
    n["family"] = r.family == IpAddress::Family::v4 ? "ipv4" : "ipv6";
    if (r.ipFrom) n["ip-from"] = r.ipFrom->toStringWithLength();
    if (r.ipTo) n["ip-to"] = r.ipTo->toStringWithLength();
    if (r.priority) n["priority"] = *r.priority;
    if (r.table) n["route-table"] = *r.table;
    if (r.fwmark) n["fwmark"] = *r.fwmark;
    if (r.fwmask) n["fwmask"] = *r.fwmask;
    if (r.absent) n["state"] = "absent";
    rules.push_back(n);
  }
  root["route-rules"]["config"] = rules;
  return root;
}

/// JSON from the node tree: yaml-cpp's emitter writes YAML; its flow style is close to JSON but
/// leaves strings unquoted, so the tree is written here (scalars that are numbers or booleans
/// in the schema stay bare, the rest are quoted).
void writeJson(const YAML::Node& node, std::string& out, int depth) {
  std::string pad(static_cast<std::size_t>(depth + 1) * 2, ' ');
  std::string close(static_cast<std::size_t>(depth) * 2, ' ');
  if (node.IsMap()) {
    if (node.size() == 0) { out += "{}"; return; }
    out += "{\n";
    bool first = true;
    for (const auto& entry : node) {
      if (!first) out += ",\n";
      first = false;
      out += pad + "\"" + entry.first.Scalar() + "\": ";
      writeJson(entry.second, out, depth + 1);
    }
    out += "\n" + close + "}";
  } else if (node.IsSequence()) {
    if (node.size() == 0) { out += "[]"; return; }
    out += "[\n";
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (i) out += ",\n";
      out += pad;
      writeJson(node[i], out, depth + 1);
    }
    out += "\n" + close + "]";
  } else {
    const std::string& s = node.Scalar();
    bool bare = s == "true" || s == "false" || (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && (s.size() == 1 || s[0] != '0'));
    out += bare ? s : jsonQuoted(s);
  }
}

}  // namespace

std::string State::toYaml() const {
  YAML::Emitter e;
  e << documentNode(*this);
  return std::string(e.c_str()) + "\n";
}

std::string State::toJson() const {
  std::string out;
  writeJson(documentNode(*this), out, 0);
  return out + "\n";
}

}  // namespace fastlink
