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
#include <tuple>
#include <type_traits>
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

/// Reads the mapping under `key` when the document has it; its keys are checked after `read`.
template <class F>
void nested(Map& m, const char* key, F read) {
  if (!m.has(key)) return;
  Map sub(m.get(key), child(m.path(), key));
  read(sub);
  sub.finish();
}

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

/// The index of the scalar among `names` (an enum's values in order): "expected up, down or
/// absent, got \"x\"" when it is none of them.
template <std::size_t N>
std::size_t choice(yaml::Node node, const std::string& path, const char* const (&names)[N]) {
  std::string s = text(node, path);
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return i;
    expected += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i]);
  }
  fail(path, "expected " + expected + ", got \"" + s + "\"");
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

/// A value of a type with a `parse` (IpAddress, Prefix, MacAddress), its errors naming the path.
template <class T>
T parsed(yaml::Node node, const std::string& path) {
  std::string s = text(node, path);
  return value<T>(path, [&] { return T::parse(s); });
}

/// A route protocol: a name of rt_protos (`static`, `bgp`) or a number.
uint8_t routeProtocol(yaml::Node node, const std::string& path) {
  std::string s = text(node, path);
  return static_cast<uint8_t>(value<RouteProtocol>(path, [&] { return RouteNames::system().protocol(s); }));
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

// ---- Keys declared once -------------------------------------------------------------------
// A scalar key of a document mapping is one row of its section's table: the key, the member it
// fills, its range (integers), whether it must be there. readKeys and writeKeys walk the same
// rows in their order: reading finds errors in it, `show state` writes the keys in it.

/// How a key's text is read where the member's type does not say.
enum class As : uint8_t {
  Value,       ///< by the member's type (a string: an interface name)
  Text,        ///< any string
  Controller,  ///< an interface name, or "" (no controller)
  Protocol,    ///< a route protocol's name or number (routeProtocol)
};

template <class S, class T>
struct Key {
  const char* name;
  T S::*member;
  As as = As::Value;
  uint64_t min = 0, max = 0;
  bool isRequired = false;
  constexpr Key required() const {
    Key k = *this;
    k.isRequired = true;
    return k;
  }
};

template <class S, class T>
constexpr Key<S, T> key(const char* name, T S::*member, As as = As::Value) {
  return {name, member, as};
}
template <class S, class T>
constexpr Key<S, T> number(const char* name, T S::*member, uint64_t min, uint64_t max) {
  return {name, member, As::Value, min, max};
}

/// nmstate's names of the enums' values (state_names.hpp) by type, and what errors call them.
std::optional<BondMode> fromName(std::string_view name, BondMode*) { return bondModeFromName(name); }
std::optional<MacvlanMode> fromName(std::string_view name, MacvlanMode*) { return macvlanModeFromName(name); }
const char* nameOf(BondMode mode) { return bondModeName(mode); }
const char* nameOf(MacvlanMode mode) { return macvlanModeName(mode); }
const char* what(BondMode*) { return "bond mode"; }
const char* what(MacvlanMode*) { return "mac-vlan mode"; }

/// The type of a member's value: T of a std::optional<T> (for decltype only).
template <class T>
T valueOf(const std::optional<T>&);
template <class T>
T valueOf(const T&);

template <class V, class K>
V readValue(yaml::Node node, const std::string& at, const K& k) {
  if constexpr (std::is_same_v<V, std::string>) {
    if (k.as == As::Text) return text(node, at);
    std::string name = text(node, at);
    return k.as == As::Controller && name.empty() ? name : ifname(node, at);
  } else if constexpr (std::is_same_v<V, bool>) {
    return boolean(node, at);
  } else if constexpr (std::is_integral_v<V>) {
    if (k.as == As::Protocol) return routeProtocol(node, at);
    return static_cast<V>(integer(node, at, k.min, k.max));
  } else if constexpr (std::is_enum_v<V>) {
    auto v = fromName(text(node, at), static_cast<V*>(nullptr));
    if (!v) fail(at, std::string("unknown ") + what(static_cast<V*>(nullptr)) + " \"" + std::string(node.scalar()) + "\"");
    return *v;
  } else if constexpr (requires { V::parse(std::string()); }) {
    return parsed<V>(node, at);
  } else {
    V list;  // a std::vector: each item read as the key's items are
    sequence(node, at, [&](yaml::Node item, const std::string& itemAt) {
      list.push_back(readValue<typename V::value_type>(item, itemAt, k));
    });
    return list;
  }
}

template <class S, class T>
void readKey(Map& m, S& s, const Key<S, T>& k) {
  if (!m.has(k.name)) {
    if (k.isRequired) fail(child(m.path(), k.name), "missing");
    return;
  }
  s.*k.member = readValue<decltype(valueOf(s.*k.member))>(m.get(k.name), child(m.path(), k.name), k);
}

template <class V, class K>
auto writeValue(const V& v, const K& k) {
  if constexpr (std::is_same_v<V, std::string>) {
    return YAML::Node(v);
  } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
    return names(v, false);
  } else if constexpr (std::is_integral_v<V>) {
    return k.as == As::Protocol ? YAML::Node(RouteNames::system().protocolName(static_cast<RouteProtocol>(v))) : YAML::Node(v);
  } else if constexpr (std::is_enum_v<V>) {
    return YAML::Node(nameOf(v));
  } else if constexpr (std::is_same_v<V, Prefix>) {
    return YAML::Node(v.toStringWithLength());
  } else {
    return YAML::Node(v.toString());
  }
}

/// `n` is a handle: a key of a mapping not yet there (`node["options"]`) is added only when
/// something is written into it.
template <class S, class T>
void writeKey(YAML::Node n, const S& s, const Key<S, T>& k) {
  const T& v = s.*k.member;
  if constexpr (std::is_same_v<T, decltype(valueOf(v))>) n[k.name] = writeValue(v, k);
  else if (v) n[k.name] = writeValue(*v, k);
}

template <class S, class... K>
void readKeys(Map& m, S& s, const std::tuple<K...>& keys) {
  std::apply([&](const auto&... k) { (readKey(m, s, k), ...); }, keys);
}

template <class S, class... K>
void writeKeys(YAML::Node n, const S& s, const std::tuple<K...>& keys) {
  std::apply([&](const auto&... k) { (writeKey(n, s, k), ...); }, keys);
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
      IpAddress ip = parsed<IpAddress>(am.get("ip"), child(at, "ip"));
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

constexpr std::tuple kIdRange{number("min", &BridgeVlanRange::first, 1, 4094), number("max", &BridgeVlanRange::last, 1, 4094)};

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
  BridgeVlanRange range;
  readKeys(r, range, kIdRange);
  if (range.first > range.last) fail(r.path(), "min " + std::to_string(range.first) + " is above max " + std::to_string(range.last));
  r.finish();
  return range;
}

constexpr std::tuple kVlanFlags{key("pvid", &BridgeVlanRange::pvid), key("untagged", &BridgeVlanRange::untagged)};

/// `fastlink-vlans: [{id | id-range, pvid, untagged}]`: any VLAN list, as the kernel has it.
std::vector<BridgeVlanRange> fastlinkVlans(yaml::Node node, const std::string& path) {
  std::vector<BridgeVlanRange> out;
  sequence(node, path, [&](yaml::Node e, const std::string& at) {
    Map em(e, at);
    BridgeVlanRange r = vlanIds(em);
    readKeys(em, r, kVlanFlags);
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

/// A VLAN protocol key: the kernel's bridges and vlans use 802.1Q unless told otherwise, and
/// fastlink sets no other protocol.
void only8021q(Map& m, const char* key) {
  if (m.has(key) && text(m.get(key), child(m.path(), key)) != "802.1q") fail(child(m.path(), key), "only 802.1q is supported");
}

YAML::Node vlanIdsNode(const BridgeVlanRange& r) {
  YAML::Node n;
  if (r.first == r.last) {
    n["id"] = r.first;
  } else {
    writeKeys(n["id-range"], r, kIdRange);
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
      writeKeys(e, r, kVlanFlags);
      list.push_back(e);
    }
    n["fastlink-vlans"] = list;
  }
  return n;
}

constexpr auto kStp = key("enabled", &InterfaceState::bridgeStp);
constexpr auto kVlanFiltering = key("fastlink-vlan-filtering", &InterfaceState::bridgeVlanFiltering);

void readBridge(Map& b, InterfaceState& iface) {
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
  nested(b, "options", [&](Map& o) {
    nested(o, "stp", [&](Map& stp) { readKey(stp, iface, kStp); });
    readKey(o, iface, kVlanFiltering);
    only8021q(o, "vlan-protocol");
  });
  if (!iface.portVlans.empty() && !iface.bridgeVlanFiltering) iface.bridgeVlanFiltering = true;
}

void writeBridge(YAML::Node b, const InterfaceState& iface) {
  writeKey(b["options"]["stp"], iface, kStp);
  writeKey(b["options"], iface, kVlanFiltering);
  if (iface.ports) {
    b["port"] = names(*iface.ports, true);
    for (const auto& pv : iface.portVlans) {
      auto at = std::find(iface.ports->begin(), iface.ports->end(), pv.port);
      if (at != iface.ports->end()) b["port"][static_cast<std::size_t>(at - iface.ports->begin())]["vlan"] = portVlanNode(pv.vlans);
    }
  }
}

constexpr auto kBondMode = key("mode", &InterfaceState::bondMode);
constexpr auto kPorts = key("port", &InterfaceState::ports);
constexpr auto kMiimon = number("miimon", &InterfaceState::bondMiimon, 0, INT32_MAX);

void readBond(Map& b, InterfaceState& iface) {
  readKey(b, iface, kBondMode);
  readKey(b, iface, kPorts);
  nested(b, "options", [&](Map& o) { readKey(o, iface, kMiimon); });
}

void writeBond(YAML::Node b, const InterfaceState& iface) {
  writeKey(b, iface, kBondMode);
  writeKey(b["options"], iface, kMiimon);
  writeKey(b, iface, kPorts);
}

constexpr std::tuple kVlanKeys{key("base-iface", &InterfaceState::baseIface).required(),
                               number("id", &InterfaceState::vlanId, 0, 4094).required()};
constexpr std::tuple kVxlanKeys{number("id", &InterfaceState::vxlanId, 0, 16777215).required(),
                                key("base-iface", &InterfaceState::baseIface), key("remote", &InterfaceState::vxlanRemote),
                                key("local", &InterfaceState::vxlanLocal),
                                number("destination-port", &InterfaceState::vxlanDstPort, 0, 65535)};
constexpr std::tuple kVrfKeys{number("route-table-id", &InterfaceState::vrfTable, 1, UINT32_MAX).required(), kPorts};
constexpr std::tuple kVethKeys{key("peer", &InterfaceState::vethPeer).required()};
constexpr std::tuple kMacvlanKeys{key("base-iface", &InterfaceState::baseIface).required(), key("mode", &InterfaceState::macvlanMode)};

template <const auto& Keys>
void readOptions(Map& v, InterfaceState& iface) {
  readKeys(v, iface, Keys);
}
template <const auto& Keys>
void writeOptions(YAML::Node v, const InterfaceState& iface) {
  writeKeys(v, iface, Keys);
}

/// The options subtree of each type that has one (a subtree of another type is an error on it).
struct Subtree {
  const char* type;
  const char* key;
  const char* needs;  ///< why a device of the type cannot go without it; nullptr: it can
  void (*read)(Map&, InterfaceState&);
  void (*write)(YAML::Node, const InterfaceState&);
};

const Subtree kSubtrees[] = {
    {"linux-bridge", "bridge", nullptr, readBridge, writeBridge},
    {"bond", "link-aggregation", nullptr, readBond, writeBond},
    {"vlan", "vlan", "a vlan needs base-iface and id",
     [](Map& v, InterfaceState& iface) {
       readKeys(v, iface, kVlanKeys);
       only8021q(v, "protocol");
     },
     writeOptions<kVlanKeys>},
    {"vxlan", "vxlan", "a vxlan needs an id", readOptions<kVxlanKeys>, writeOptions<kVxlanKeys>},
    {"vrf", "vrf", "a vrf needs route-table-id", readOptions<kVrfKeys>, writeOptions<kVrfKeys>},
    {"veth", "veth", nullptr, readOptions<kVethKeys>, writeOptions<kVethKeys>},
    {"mac-vlan", "mac-vlan", "a mac-vlan needs base-iface",
     [](Map& v, InterfaceState& iface) {
       readKeys(v, iface, kMacvlanKeys);
       if (v.get("promiscuous").isDefined()) fail(child(v.path(), "promiscuous"), kNotApplied);
     },
     writeOptions<kMacvlanKeys>},
};

const Subtree* subtreeOf(const std::string& type) {
  for (const Subtree& s : kSubtrees)
    if (type == s.type) return &s;
  return nullptr;
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

constexpr const char* kAdminStates[] = {"up", "down", "absent"};  // InterfaceAdmin's order
constexpr std::tuple kInterfaceKeys{number("mtu", &InterfaceState::mtu, 68, 65536),
                                    key("mac-address", &InterfaceState::macAddress),
                                    key("description", &InterfaceState::description, As::Text),
                                    key("controller", &InterfaceState::controller, As::Controller),
                                    number("fastlink-group", &InterfaceState::group, 0, UINT32_MAX),
                                    number("fastlink-ifindex", &InterfaceState::ifindex, 1, INT32_MAX)};

InterfaceState readInterface(yaml::Node node, const std::string& path) {
  Map m(node, path);
  InterfaceState iface;
  iface.path = path;
  if (!m.has("name")) fail(child(path, "name"), "missing");
  iface.name = ifname(m.get("name"), child(path, "name"));
  if (m.has("state")) iface.state = static_cast<InterfaceAdmin>(choice(m.get("state"), child(path, "state"), kAdminStates));
  if (m.has("type")) iface.type = text(m.get("type"), child(path, "type"));
  else if (iface.state != InterfaceAdmin::Absent) fail(child(path, "type"), "missing");
  readKeys(m, iface, kInterfaceKeys);
  if (m.has("ipv4")) iface.ipv4 = ipConfig(m.get("ipv4"), child(path, "ipv4"), IpAddress::Family::v4);
  if (m.has("ipv6")) iface.ipv6 = ipConfig(m.get("ipv6"), child(path, "ipv6"), IpAddress::Family::v6);
  // A subtree of another type is an error: `vlan:` on a linux-bridge says the document is wrong.
  const Subtree* own = subtreeOf(iface.type);
  for (const Subtree& s : kSubtrees) {
    if (m.has(s.key) && &s != own)
      fail(child(path, s.key), "not an option of type " + (iface.type.empty() ? std::string("(none)") : iface.type));
  }
  if (own) nested(m, own->key, [&](Map& v) { own->read(v, iface); });
  // What a device needs to be made, not to be removed (a rollback's journal lists the devices its
  // apply made so).
  if (own && own->needs && !m.has(own->key) && iface.state != InterfaceAdmin::Absent)
    fail(child(path, own->key), std::string("missing (") + own->needs + ")");
  // Keys of nmstate's own output that only describe the device.
  m.accept({"permanent-mac-address", "min-mtu", "max-mtu"});
  refuseNotApplied(m);
  m.finish();
  return iface;
}

/// A route's or rule's `state:`, which can only be `absent`.
bool readAbsent(Map& m, const std::string& path) {
  if (!m.has("state")) return false;
  static constexpr const char* kAbsent[] = {"absent"};
  choice(m.get("state"), child(path, "state"), kAbsent);
  return true;
}

constexpr std::tuple kRouteKeys{key("next-hop-interface", &RouteState::nextHopInterface),
                                number("metric", &RouteState::metric, 0, UINT32_MAX),
                                number("table-id", &RouteState::table, 1, UINT32_MAX),
                                key("fastlink-protocol", &RouteState::protocol, As::Protocol)};

RouteState readRoute(yaml::Node node, const std::string& path) {
  Map m(node, path);
  RouteState r;
  r.path = path;
  r.absent = readAbsent(m, path);
  if (!m.has("destination")) fail(child(path, "destination"), "missing");
  r.destination = parsed<Prefix>(m.get("destination"), child(path, "destination"));
  if (r.destination.hasHostBits()) fail(child(path, "destination"), "host bits set in " + r.destination.toStringWithLength());
  if (m.has("next-hop-address")) {
    std::string s = text(m.get("next-hop-address"), child(path, "next-hop-address"));
    if (!s.empty()) {
      r.nextHopAddress = value<IpAddress>(child(path, "next-hop-address"), [&] { return IpAddress::parse(s); });
      if (r.nextHopAddress->family() != r.destination.family()) fail(child(path, "next-hop-address"), "another family than the destination");
    }
  }
  readKeys(m, r, kRouteKeys);
  if (!r.absent && !r.nextHopAddress && !r.nextHopInterface) fail(path, "a route needs next-hop-address or next-hop-interface");
  m.finish();
  return r;
}

constexpr const char* kFamilies[] = {"ipv4", "ipv6"};
constexpr std::tuple kRulePrefixes{key("ip-from", &RuleState::ipFrom), key("ip-to", &RuleState::ipTo)};
constexpr std::tuple kRuleNumbers{number("priority", &RuleState::priority, 0, UINT32_MAX),
                                  number("route-table", &RuleState::table, 1, UINT32_MAX),
                                  number("fwmark", &RuleState::fwmark, 0, UINT32_MAX),
                                  number("fwmask", &RuleState::fwmask, 0, UINT32_MAX)};

RuleState readRule(yaml::Node node, const std::string& path) {
  Map m(node, path);
  RuleState r;
  r.path = path;
  r.absent = readAbsent(m, path);
  readKeys(m, r, kRulePrefixes);
  if (r.ipFrom && r.ipTo && r.ipFrom->family() != r.ipTo->family()) fail(child(path, "ip-to"), "another family than ip-from");
  if (r.ipFrom) r.family = r.ipFrom->family();
  else if (r.ipTo) r.family = r.ipTo->family();
  if (m.has("family")) {
    r.family = choice(m.get("family"), child(path, "family"), kFamilies) == 0 ? IpAddress::Family::v4 : IpAddress::Family::v6;
    if ((r.ipFrom && r.ipFrom->family() != r.family) || (r.ipTo && r.ipTo->family() != r.family))
      fail(child(path, "family"), "another family than the prefixes");
  }
  readKeys(m, r, kRuleNumbers);
  if (!r.absent && !r.table) fail(child(path, "route-table"), "missing");
  m.finish();
  return r;
}

constexpr const char* kModes[] = {"merged", "replaced", "overridden"};  // ApplyMode's order
constexpr std::tuple kOwnershipKeys{key("owned-interfaces", &Ownership::interfaces, As::Text),
                                    key("ignore", &Ownership::ignore, As::Text),
                                    key("route-protocol", &Ownership::routeProtocol, As::Protocol),
                                    number("route-tables", &Ownership::routeTables, 1, UINT32_MAX)};

void readApplyOptions(Map& m, State& state) {
  if (m.has("mode")) state.mode = static_cast<ApplyMode>(choice(m.get("mode"), "fastlink-apply.mode", kModes));
  readKeys(m, state.ownership, kOwnershipKeys);
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
      std::string at = master.path + "." + subtreeOf(master.type)->key + ".port[" + std::to_string(i) + "]";
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
        fail(iface.path + "." + subtreeOf(iface.type)->key + ".base-iface", *iface.baseIface + " is absent (" + it->second->path + ")");
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
  nested(m, "fastlink-apply", [&](Map& a) { readApplyOptions(a, state); });
  if (m.has("interfaces"))
    sequence(m.get("interfaces"), "interfaces", [&](yaml::Node n, const std::string& at) { state.interfaces.push_back(readInterface(n, at)); });
  nested(m, "routes", [&](Map& r) {
    if (r.has("config"))
      sequence(r.get("config"), "routes.config", [&](yaml::Node n, const std::string& at) { state.routes.push_back(readRoute(n, at)); });
    r.accept({"running"});
  });
  nested(m, "route-rules", [&](Map& r) {
    if (r.has("config"))
      sequence(r.get("config"), "route-rules.config", [&](yaml::Node n, const std::string& at) { state.rules.push_back(readRule(n, at)); });
  });
  m.accept({"dns-resolver"});
  nested(m, "dns-resolver", [&](Map& d) {
    if (d.has("config")) fail("dns-resolver.config", "DNS is not fastlink's (leave it out)");
    d.accept({"running"});
  });
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

YAML::Node interfaceNode(const InterfaceState& iface) {
  YAML::Node n;
  n["name"] = iface.name;
  if (!iface.type.empty()) n["type"] = iface.type;
  n["state"] = kAdminStates[static_cast<std::size_t>(iface.state)];
  if (iface.state == InterfaceAdmin::Absent) return n;
  writeKeys(n, iface, kInterfaceKeys);
  if (iface.ipv4) n["ipv4"] = ipNode(*iface.ipv4);
  if (iface.ipv6) n["ipv6"] = ipNode(*iface.ipv6);
  // An options subtree with nothing in it is left out.
  if (const Subtree* s = subtreeOf(iface.type)) s->write(n[s->key], iface);
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
    writeKeys(n, r, kRouteKeys);
    if (r.absent) n["state"] = "absent";
    routes.push_back(n);
  }
  root["routes"]["config"] = routes;
  YAML::Node rules(YAML::NodeType::Sequence);
  for (const auto& r : state.rules) {
    YAML::Node n;
    n["family"] = kFamilies[r.family == IpAddress::Family::v4 ? 0 : 1];
    writeKeys(n, r, kRulePrefixes);
    writeKeys(n, r, kRuleNumbers);
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
