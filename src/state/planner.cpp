// The planner (issue 26): the host's dumps against a State, and the ordered plan between them.
//
// One dump per object class (links always; addresses when a device's addresses are named or
// the mode owns them; routes and rules when the document has some or owns them). Every device
// the plan creates gets its ifindex chosen here (after the highest in use; veth peers too), so
// requests that name it (a port's master, a vlan's base, an address's device) can follow its
// creation in the same pipelined batch.
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "fastlink/addr.hpp"
#include "fastlink/bridge_vlan.hpp"
#include "fastlink/error.hpp"
#include "fastlink/link_view.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "fastlink/state.hpp"
#include "state/state_names.hpp"

namespace fastlink {
namespace {

constexpr uint32_t kIffUp = 0x1;

bool matchesAny(const std::vector<std::string>& globs, const std::string& name) {
  for (const auto& g : globs)
    if (fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

bool isLinkLocal6(const Prefix& p) {
  auto b = p.address().bytes();
  return !p.isV4() && b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
}

/// A route's destination and table: the host routes a document's route can be (a hash key: a
/// no-op apply looks up 100,000 of them).
struct RouteKey {
  std::array<uint8_t, 16> address{};
  uint8_t length = 0;
  bool v4 = true;
  uint32_t table = 0;

  static RouteKey of(const Prefix& destination, uint32_t table) {
    RouteKey key;
    auto bytes = destination.address().bytes();
    std::copy(bytes.begin(), bytes.end(), key.address.begin());
    key.length = destination.length();
    key.v4 = destination.isV4();
    key.table = table;
    return key;
  }
  bool operator==(const RouteKey&) const = default;
  struct Hash {
    std::size_t operator()(const RouteKey& k) const {
      std::size_t h = std::hash<uint32_t>{}(k.table) ^ (std::size_t{k.length} << 40) ^ (std::size_t{k.v4} << 48);
      for (std::size_t i = 0; i < k.address.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, k.address.data() + i, sizeof word);
        h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
      }
      return h;
    }
  };
};

/// What the host has, from one dump per class.
struct Host {
  std::map<std::string, LinkInfo> links;
  std::map<uint32_t, std::string> names;  // in index order: `show state` and the undo list devices so
  std::map<std::string, std::vector<Prefix>> addresses;  // by device name, both families
  /// The routes the plan can differ on: those `routeFilter` (the kernel's filter) lets through.
  std::vector<RouteInfo> routes;
  RouteFilter routeFilter;
  /// The other routes, dumped only for an undo (the routes through a device the plan touches).
  std::vector<RouteInfo> otherRoutes;
  std::vector<RuleInfo> rules;
  /// Bridge ports' VLANs by port name (dumped when the document or the undo needs them).
  std::map<std::string, std::vector<BridgeVlanRange>> vlans;
  bool vlansDumped = false;
  uint32_t maxIndex = 0;
  /// Devices by the index of their lower device (IFLA_LINK) and of their master: who goes or
  /// changes with a device, without a walk over every link per device.
  std::multimap<uint32_t, std::string> byParent, byMaster;

  const LinkInfo* link(const std::string& name) const {
    auto it = links.find(name);
    return it == links.end() ? nullptr : &it->second;
  }
  /// names by index, as an array (a no-op apply asks for the device of each of 100,000 routes:
  /// a tree walk each was 6% of its CPU). Filled by indexNames() once the links are dumped.
  std::vector<const std::string*> nameByIndex;

  /// The device's name; "" for an index the link dump did not give.
  const std::string& nameOf(uint32_t index) const {
    static const std::string none;
    return index < nameByIndex.size() && nameByIndex[index] ? *nameByIndex[index] : none;
  }
  /// nameOf, for the kind table's functions (valid while the Host is).
  NameOfIndex nameOfIndex() const {
    return [this](uint32_t index) -> const std::string& { return nameOf(index); };
  }
  void indexNames() {
    nameByIndex.assign(maxIndex + 1, nullptr);
    for (const auto& [index, name] : names) nameByIndex[index] = &name;
  }
};

void dumpAddresses(Netlink& nl, Host& host) {
  nl.addresses().forEach({}, [&](const AddrInfo& a) {
    if (!a.address || !a.dev) return;
    std::string dev = host.nameOf(a.dev->isIndex() ? a.dev->index() : 0);
    if (!dev.empty()) host.addresses[dev].push_back(*a.address);
  }, [&] { host.addresses.clear(); });
}

/// The routes the document can differ from: its routes' tables and families (and in overridden
/// mode the tables it owns, both families). The kernel filters by one table and one family
/// (strict checking; NLM_F_DUMP_FILTERED): a document of main-table IPv4 routes does not read
/// the local table or any IPv6 route. More tables or both families: those dimensions unfiltered.
RouteFilter routesInvolved(const State& want) {
  std::set<uint32_t> tables;
  bool v4 = false, v6 = false;
  for (const auto& r : want.routes) {
    tables.insert(r.table);
    (r.destination.isV4() ? v4 : v6) = true;
  }
  if (want.mode == ApplyMode::Overridden) {
    tables.insert(want.ownership.routeTables.begin(), want.ownership.routeTables.end());
    v4 = v6 = true;
  }
  RouteFilter filter;
  if (tables.size() == 1) filter.table = *tables.begin();
  if (v4 != v6) filter.family = v4 ? IpAddress::Family::v4 : IpAddress::Family::v6;
  return filter;
}

void dumpRoutes(Netlink& nl, Host& host, const RouteFilter& filter = {}) {
  host.routeFilter = filter;
  nl.routes().forEach(filter, [&](const RouteInfo& r) {
    if (r.isCloned()) return;
    host.routes.push_back(r);
  }, [&] { host.routes.clear(); });
}

/// The routes a filtered dumpRoutes left out, into host.otherRoutes (host.routes stays: the
/// planner holds pointers into it).
void dumpOtherRoutes(Netlink& nl, Host& host) {
  const RouteFilter& f = host.routeFilter;
  if (!f.table && !f.family) return;
  nl.routes().forEach({}, [&](const RouteInfo& r) {
    if (r.isCloned()) return;
    if ((f.table && r.tableOrMain() != *f.table) || (f.family && r.family() != *f.family)) host.otherRoutes.push_back(r);
  }, [&] { host.otherRoutes.clear(); });
}

/// The VLANs of the bridges' ports (not the bridges' own VLANs), as the kernel's compressed dump
/// gives them: a PVID alone, consecutive VLANs with the same flags as one range.
void dumpVlans(Netlink& nl, Host& host) {
  host.vlansDumped = true;
  nl.bridgeVlans().forEach({}, [&](const BridgeVlanInfo& v) {
    const LinkInfo* port = host.link(host.nameOf(v.devIndex()));
    if (!port || port->kind == "bridge" || !v.vid) return;
    host.vlans[*port->name].push_back({*v.vid, v.lastVid(), v.pvid.value_or(false), v.untagged.value_or(false)});
  }, [&] { host.vlans.clear(); });
}

/// The fields of a host device the planner reads, from its view (InterfaceKind::decodedWhole).
LinkInfo hostLinkOf(const LinkView& v) {
  std::optional<std::string_view> kind = v.kind();
  if (const InterfaceKind* k = kind ? interfaceKind(*kind, &InterfaceKind::kind) : nullptr; k && k->decodedWhole) return v.toInfo();
  LinkInfo l;
  l.name = std::string(*v.name());
  l.index = v.index();
  l.flags = v.flags();
  l.type = v.type();
  if (kind) l.kind = std::string(*kind);
  l.mtu = v.mtu();
  l.address = v.address();
  if (auto alias = v.alias()) l.alias = std::string(*alias);
  l.group = v.group();
  if (v.masterIndex()) l.master = Ifref(v.masterIndex());
  if (auto parent = v.parent()) l.parent = Ifref(*parent);
  return l;
}

Host dumpHost(Netlink& nl, bool addresses, std::optional<RouteFilter> routes, bool rules) {
  Host host;
  nl.links().forEach({}, [&](const LinkView& view) {
    if (!view.name() || !view.index()) return;
    LinkInfo l = hostLinkOf(view);
    host.names[*l.index] = *l.name;
    host.maxIndex = std::max(host.maxIndex, *l.index);
    if (l.parentIndex()) host.byParent.emplace(l.parentIndex(), *l.name);
    if (l.masterIndex()) host.byMaster.emplace(l.masterIndex(), *l.name);
    std::string name = *l.name;
    host.links.emplace(std::move(name), std::move(l));
  }, [&] { host = Host{}; });
  host.indexNames();
  if (addresses) dumpAddresses(nl, host);
  if (routes) dumpRoutes(nl, host, *routes);
  if (rules) {
    nl.rules().forEach({}, [&](const RuleInfo& r) { host.rules.push_back(r); }, [&] { host.rules.clear(); });
  }
  return host;
}

/// The host ports of a bridge in `iface.ports`, each with its VLANs in `iface.portVlans`.
void addPortVlans(const Host& host, const LinkInfo& bridge, InterfaceState& iface) {
  iface.ports.emplace();
  iface.portVlans.clear();
  auto [from, to] = host.byMaster.equal_range(bridge.index.value_or(0));
  for (auto it = from; it != to; ++it) iface.ports->push_back(it->second);
  std::sort(iface.ports->begin(), iface.ports->end());
  for (const auto& port : *iface.ports) {
    auto v = host.vlans.find(port);
    iface.portVlans.push_back({port, v == host.vlans.end() ? std::vector<BridgeVlanRange>{} : v->second});
  }
}

/// A host device as a document entry (`show state`, and the pre-image a rollback restores).
InterfaceState interfaceOf(const Host& host, const LinkInfo& l) {
  const std::string& name = *l.name;
  InterfaceState iface;
  iface.name = name;
  iface.type = stateTypeOf(l);
  iface.state = l.isUp() ? InterfaceAdmin::Up : InterfaceAdmin::Down;
  iface.mtu = l.mtu;
  if (l.address && l.kind && l.address->size() == 6) iface.macAddress = l.address;
  if (l.alias && !l.alias->empty()) iface.description = l.alias;
  if (l.group && *l.group) iface.group = l.group;
  iface.controller = host.nameOf(l.masterIndex());
  IpConfig v4, v6;
  if (auto it = host.addresses.find(name); it != host.addresses.end()) {
    for (const Prefix& p : it->second) {
      if (isLinkLocal6(p)) continue;
      (p.isV4() ? v4 : v6).addresses.push_back(p);
    }
  }
  iface.ipv4 = v4;
  iface.ipv6 = v6;
  if (const InterfaceKind* k = interfaceKind(iface.type); k && k->read) k->read(l, host.nameOfIndex(), iface);
  // A filtering bridge lists its ports with their VLANs (complete lists both).
  if (iface.bridgeVlanFiltering && host.vlansDumped) addPortVlans(host, l, iface);
  return iface;
}

/// A host route as a document entry; nullopt for routes the document does not describe (the
/// kernel's own, the local table, other types, multipath).
std::optional<RouteState> routeStateOf(const Host& host, const RouteInfo& r) {
  if (!r.dst || (r.protocol && *r.protocol == RouteProtocol::Kernel) || r.tableOrMain() == kTableLocal) return std::nullopt;
  if (r.type && *r.type != RouteType::Unicast) return std::nullopt;
  if (!r.paths.empty()) return std::nullopt;  // multipath: not in the document's shape yet
  RouteState route;
  route.destination = *r.dst;
  route.nextHopAddress = r.gateway;
  if (r.devIndex()) route.nextHopInterface = host.nameOf(r.devIndex());
  route.metric = r.metric;
  route.table = r.tableOrMain();
  // A static route is what a document's route is without the key; any other protocol is kept, so
  // a rollback puts a routing daemon's (or ip's `boot`) route back as it was.
  if (r.protocol && *r.protocol != RouteProtocol::Static) route.protocol = static_cast<uint8_t>(*r.protocol);
  return route;
}

/// A host rule as a document entry; nullopt for the kernel's defaults and rules the document
/// cannot describe (iif, oif, actions other than lookup).
std::optional<RuleState> ruleStateOf(const RuleInfo& h) {
  if (h.protocol && *h.protocol == 2) return std::nullopt;  // the kernel's default rules
  if (h.iif || h.oif || (h.action && *h.action != RuleAction::ToTable)) return std::nullopt;
  RuleState rule;
  rule.family = h.family.value_or(IpAddress::Family::v4);
  if (h.src && !h.src->isDefault()) rule.ipFrom = h.src;
  if (h.dst && !h.dst->isDefault()) rule.ipTo = h.dst;
  rule.priority = h.priority;
  rule.table = h.table;
  if (h.fwmark && *h.fwmark) rule.fwmark = h.fwmark;
  if (h.fwmask && *h.fwmask && *h.fwmask != 0xffffffff) rule.fwmask = h.fwmask;
  return rule;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

/// A route as plan steps name it (a document's, or a host route's to delete).
std::string describeRoute(const Prefix& destination, const std::optional<IpAddress>& via, const std::optional<std::string>& dev,
                          std::optional<uint32_t> metric, uint32_t table) {
  std::string s = "route " + destination.toStringWithLength();
  if (via) s += " via " + via->toString();
  if (dev) s += " dev " + *dev;
  if (metric) s += " metric " + std::to_string(*metric);
  if (table != kTableMain) s += " table " + std::to_string(table);
  return s;
}

std::string describeRule(const RuleInfo& r) {
  std::string s = "rule";
  if (r.priority) s += " pref " + std::to_string(*r.priority);
  if (r.src) s += " from " + r.src->toStringWithLength();
  if (r.dst) s += " to " + r.dst->toStringWithLength();
  if (r.fwmark) s += " fwmark " + std::to_string(*r.fwmark);
  if (r.table) s += " lookup " + std::to_string(*r.table);
  return s;
}

/// The ifindexes of the devices a plan creates, known only once it runs: veth pairs are
/// created first and the kernel picks their indexes (looked up by name after them); the other
/// new devices get explicit ones above every index then in use, so the requests that name them
/// (a port's master, a vlan's base, an address's device) follow their creation in one batch.
struct CreatedIndexes {
  std::map<std::string, uint32_t> byName;
  std::vector<std::string> pickedByKernel;  ///< veth ends, looked up after the first part
  std::vector<std::string> explicitOrder;   ///< the others, numbered in this order
  std::map<std::string, uint32_t> fixed;    ///< those of explicitOrder with `fastlink-ifindex`
  uint32_t hostMax = 0;

  uint32_t at(const std::string& name) const {
    auto it = byName.find(name);
    if (it == byName.end()) throw Error(std::make_error_code(std::errc::no_such_device), "apply: " + name + " was not created");
    return it->second;
  }
  void fix(std::optional<Ifref>& ref) const {
    if (ref && ref->isName()) ref = Ifref(at(ref->name()));
  }
  void resolve(Netlink& nl) {
    uint32_t next = hostMax;
    for (const auto& name : pickedByKernel) {
      auto index = nl.links().findIndex(name);
      if (!index) throw Error(std::make_error_code(std::errc::no_such_device), "apply: " + name + " was not created");
      byName[name] = *index;
      next = std::max(next, *index);
    }
    number(next);
  }
  /// The devices of explicitOrder: their own index, or the next above every index in use.
  void number(uint32_t next) {
    for (const auto& [name, index] : fixed) next = std::max(next, index);
    for (const auto& name : explicitOrder) {
      auto it = fixed.find(name);
      byName[name] = it != fixed.end() ? it->second : ++next;
    }
  }
  /// Placeholders, to encode every request once before anything is sent.
  void placeholders() {
    uint32_t next = hostMax;
    for (const auto& name : pickedByKernel) byName[name] = ++next;
    number(next);
  }
};

class Planner {
 public:
  Planner(const State& want, const Host& host) : want_(want), host_(host), created_(std::make_shared<CreatedIndexes>()) {
    created_->hostMax = host.maxIndex;
    indexDocument();
  }

  Plan build() {
    resolveControllers();
    planInterfaces();
    planOverriddenLinks();
    planPortVlans();
    planAddresses();
    planRoutes();
    planRules();
    Plan plan;
    for (auto* phase : {&routeDeletes_, &ruleDeletes_, &addressDeletes_, &releases_, &linkDeletes_, &vethCreates_}) {
      for (auto& step : *phase) plan.steps.push_back(std::move(step));
    }
    plan.firstPart = plan.steps.size();
    for (auto* phase : {&linkCreates_, &linkChanges_, &adminChanges_, &vlanChanges_, &addressAdds_, &routeAdds_, &ruleAdds_})
      for (auto& step : *phase) plan.steps.push_back(std::move(step));
    auto created = created_;
    plan.resolve = [created](Netlink& nl) { created->resolve(nl); };
    // Every request is encoded once now, with placeholder indexes: bad input fails here, before
    // anything is sent.
    created->placeholders();
    for (const auto& step : plan.steps) (void)step.encode();
    created->byName.clear();
    return plan;
  }

 private:
  [[noreturn]] static void fail(const std::string& path, const std::string& why) {
    throw Error::invalidArgument("plan", path + ": " + why);
  }

  bool ignored(const std::string& name) const { return matchesAny(want_.ownership.ignore, name); }

  const InterfaceState* find(const std::string& name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
  }

  /// The document by name, and what needsIndex and vethPeerOf ask of all of it, read once: the
  /// planner looks names up per device, and 10,000 devices and 100,000 routes are its scale.
  void indexDocument() {
    for (const auto& iface : want_.interfaces) {
      byName_.emplace(iface.name, &iface);
      if (iface.vethPeer) peerNamedBy_.emplace(*iface.vethPeer, &iface);
      if ((iface.ipv4 && !iface.ipv4->addresses.empty()) || (iface.ipv6 && !iface.ipv6->addresses.empty()))
        namedByIndex_.insert(iface.name);
      if (iface.baseIface) namedByIndex_.insert(*iface.baseIface);
      if (iface.controller) namedByIndex_.insert(*iface.controller);
      if (iface.ports && !iface.ports->empty()) namedByIndex_.insert(iface.name);
    }
    for (const auto& r : want_.routes)
      if (r.nextHopInterface) namedByIndex_.insert(*r.nextHopInterface);
  }

  /// The names of the host devices whose parent (or master) is `index`, in name order.
  std::vector<std::string> hostChildren(const std::multimap<uint32_t, std::string>& by, uint32_t index) const {
    std::vector<std::string> names;
    auto [from, to] = by.equal_range(index);
    for (auto it = from; it != to; ++it) names.push_back(it->second);
    std::sort(names.begin(), names.end());
    return names;
  }

  /// The controller each named interface must have ("" none), from `controller:` and port lists.
  void resolveControllers() {
    for (const auto& iface : want_.interfaces) {
      if (iface.controller) controllerOf_[iface.name] = *iface.controller;
      else if (want_.mode == ApplyMode::Replaced) controllerOf_[iface.name] = "";
    }
    for (const auto& master : want_.interfaces) {
      if (!master.ports || master.state == InterfaceAdmin::Absent) continue;
      for (const auto& port : *master.ports) controllerOf_[port] = master.name;
      // The port list is complete: the host's other ports of this master leave it.
      if (const LinkInfo* m = host_.link(master.name); m && m->index) {
        auto [from, to] = host_.byMaster.equal_range(*m->index);
        for (auto it = from; it != to; ++it)
          if (!controllerOf_.count(it->second)) controllerOf_[it->second] = "";
      }
    }
  }

  /// The ifindex a device will have when its request is sent: the host's; 0 for a device this
  /// plan creates (see refOf) or that does not exist.
  uint32_t indexOf(const std::string& name) const {
    if (creating_.count(name)) return 0;
    if (const LinkInfo* l = host_.link(name); l && !deleted_.count(name)) return l->index.value_or(0);
    return 0;
  }

  bool willExist(const std::string& name) const { return indexOf(name) != 0 || creating_.count(name); }

  /// How a request names a device: the host's ifindex, or the device's name, replaced by its
  /// index when the request is encoded (CreatedIndexes).
  Ifref refOf(const std::string& name) const {
    if (creating_.count(name)) return Ifref(name);
    return Ifref(indexOf(name));
  }

  /// A step whose request is encoded when the batch sends it.
  PlanStep linkStep(PlanStep::Action action, const std::string& name, std::string detail, LinkInfo link, bool create) {
    if (!creating_.count(name)) touched_.insert(name);
    auto created = created_;
    std::optional<Ifref> dev = create ? std::nullopt : std::optional<Ifref>(refOf(name));
    std::function<Request()> encode = [created, link = std::move(link), dev, create, name]() {
      LinkInfo l = link;
      created->fix(l.master);
      created->fix(l.parent);
      if (l.vxlan) created->fix(l.vxlan->dev);
      if (create) {
        if (auto it = created->byName.find(name); it != created->byName.end() && !l.veth) l.setIndex(it->second);
        return LinkRequests::add(l);
      }
      std::optional<Ifref> d = dev;
      created->fix(d);
      return LinkRequests::set(*d, l);
    };
    return PlanStep{action, "interface " + name, std::move(detail), std::move(encode)};
  }


  /// A step whose request names a device by `info.dev`: a device this plan creates has its
  /// index only when the batch sends the request.
  template <class Info>
  PlanStep deviceStep(PlanStep::Action action, std::string object, std::string detail, Info info, Request (*request)(const Info&)) const {
    auto created = created_;
    return {action, std::move(object), std::move(detail), [created, info = std::move(info), request] {
              Info r = info;
              created->fix(r.dev);
              return request(r);
            }};
  }

  void planInterfaces() {
    // Devices deleted first (their names may be reused), then created in dependency order.
    for (const auto& iface : want_.interfaces) {
      if (ignored(iface.name)) continue;
      if (iface.state == InterfaceAdmin::Absent) planDelete(iface.name, iface.path);
    }
    std::set<std::string> done;
    std::function<void(const InterfaceState&)> create = [&](const InterfaceState& iface) {
      if (done.count(iface.name)) return;
      done.insert(iface.name);
      // What it needs exists first: its base device and its controller (and its veth peer's,
      // since either end may be the one created).
      std::vector<const InterfaceState*> ends{&iface};
      if (const InterfaceState* peer = vethPeerOf(iface)) ends.push_back(peer);
      for (const InterfaceState* end : ends) {
        for (const std::string* dep : {end->baseIface ? &*end->baseIface : nullptr, controllerName(end->name)}) {
          if (!dep || dep->empty() || *dep == iface.name) continue;
          if (const InterfaceState* d = find(*dep)) create(*d);
        }
      }
      planInterface(iface);
    };
    for (const auto& iface : want_.interfaces)
      if (iface.state != InterfaceAdmin::Absent && !ignored(iface.name)) create(iface);
    planListedPorts();
  }

  /// The host devices a master's complete port list names, or leaves out, that have no entry of
  /// their own (a policy's `bridge.port: [{name: eth1}]`): only their controller changes.
  void planListedPorts() {
    for (const auto& [name, master] : controllerOf_) {
      if (find(name) || ignored(name) || deleted_.count(name) || creating_.count(name)) continue;
      const LinkInfo* host = host_.link(name);
      const InterfaceState* m = find(master);
      if (!host) fail(m ? m->path : "interfaces", "port " + name + ": no device " + name + " on the host or in the document");
      InterfaceState port;
      port.name = name;
      port.path = m ? m->path : "interfaces";
      port.type = stateTypeOf(*host);
      port.state = host->isUp() ? InterfaceAdmin::Up : InterfaceAdmin::Down;
      planChange(port, *host);
    }
  }

  const std::string* controllerName(const std::string& name) const {
    auto it = controllerOf_.find(name);
    return it == controllerOf_.end() ? nullptr : &it->second;
  }

  void planDelete(const std::string& name, const std::string& path) {
    const LinkInfo* link = host_.link(name);
    if (!link || deleted_.count(name)) return;
    if (!link->kind) fail(path, name + " has no kind (a NIC or the loopback): it cannot be deleted");
    // Deleting a device deletes its veth peer, and the vlans and macvlans on it: those go first
    // (or not at all, for the peer).
    for (const std::string& other : hostChildren(host_.byParent, *link->index)) {
      const LinkInfo& l = host_.links.at(other);
      if (other == name || deleted_.count(other)) continue;
      if (l.kind && *l.kind != "veth" && wantsDeleted(other)) planDelete(other, path);
    }
    deleted_.insert(name);
    touched_.insert(name);
    leavesBridge(*link);
    if (link->kind == "bridge") vlanBridges_.insert(name);  // its ports lose their VLANs with it
    if (link->kind == "veth" && link->parentIndex()) {
      std::string peer = host_.nameOf(link->parentIndex());
      deleted_.insert(peer);
      if (const LinkInfo* p = host_.link(peer)) leavesBridge(*p);
    }
    uint32_t index = *link->index;
    linkDeletes_.push_back({PlanStep::Action::Delete, "interface " + name, "type " + stateTypeOf(*link),
                            [index] { return LinkRequests::del(Ifref(index)); }});
  }

  bool wantsDeleted(const std::string& name) const {
    if (const InterfaceState* i = find(name)) return i->state == InterfaceAdmin::Absent;
    return overriddenDeletes_.count(name) > 0;
  }

  void planInterface(const InterfaceState& iface) {
    const LinkInfo* host = deleted_.count(iface.name) ? nullptr : host_.link(iface.name);
    if (host) planChange(iface, *host);
    else if (namedOnly_.count(iface.name)) planPeerSettings(iface);
    else if (!creating_.count(iface.name)) planCreate(iface);
  }

  /// The document's entry for the other end of a veth, when it has one.
  const InterfaceState* vethPeerOf(const InterfaceState& iface) const {
    if (iface.type != "veth") return nullptr;
    if (iface.vethPeer) return find(*iface.vethPeer);
    auto it = peerNamedBy_.find(iface.name);
    return it == peerNamedBy_.end() ? nullptr : it->second;
  }

  /// The other end of a veth created with its pair: what `ip link add` did not set on it.
  void planPeerSettings(const InterfaceState& iface) {
    LinkInfo changes;
    std::vector<std::string> what;
    if (iface.mtu) changes.setMtu(*iface.mtu), what.push_back("mtu " + std::to_string(*iface.mtu));
    if (iface.macAddress) changes.setAddress(*iface.macAddress), what.push_back("mac-address " + iface.macAddress->toString());
    if (iface.description) changes.setAlias(*iface.description), what.push_back("description");
    if (iface.group) changes.setGroup(*iface.group), what.push_back("fastlink-group " + std::to_string(*iface.group));
    if (const std::string* master = controllerName(iface.name); master && !master->empty()) {
      changes.setMaster(masterRefFor(iface, *master));
      what.push_back("controller " + *master);
    }
    if (!what.empty()) linkChanges_.push_back(linkStep(PlanStep::Action::Change, iface.name, join(what), changes, false));
    if (iface.state == InterfaceAdmin::Up) bringUp(iface.name, true);
  }

  Ifref masterRefFor(const InterfaceState& iface, const std::string& master) const {
    if (master.empty()) return Ifref(0u);
    if (!willExist(master)) fail(iface.path + ".controller", "no device " + master + " on the host or in the document");
    return refOf(master);
  }

  void planCreate(const InterfaceState& iface) {
    const InterfaceKind* kind = interfaceKind(iface.type);
    if (!kind) fail(child(iface.path, "type"), "no device " + iface.name + " on the host, and fastlink cannot create type " + iface.type);
    bool veth = kind->kind == "veth";
    // The other end of a veth the document also lists is created with it.
    LinkInfo link(iface.name, std::string(kind->kind));
    creating_.insert(iface.name);
    std::vector<std::string> what{"type " + iface.type};
    if (veth) {
      std::string peer = iface.vethPeer.value_or("");
      if (peer.empty()) {
        if (auto it = peerNamedBy_.find(iface.name); it != peerNamedBy_.end()) peer = it->second->name;
      }
      if (peer.empty()) fail(child(iface.path, "veth"), "missing (a new veth needs veth.peer)");
      if (host_.link(peer) && !deleted_.count(peer)) fail(child(iface.path, "veth.peer"), peer + " exists already");
      // The kernel picks the peer's ifindex (it takes one only through a field fastlink's VethInfo
      // does not have yet): the peer is named by name in the batch (link set takes names), so
      // the end that addresses, routes or upper devices need by index is created first.
      if (needsIndex(peer) && !needsIndex(iface.name)) {
        if (const InterfaceState* p = find(peer); p) {
          creating_.erase(iface.name);
          planCreate(*p);
          planPeerSettings(iface);
          return;
        }
      }
      if (needsIndex(peer))
        fail(child(iface.path, "veth.peer"), "both " + iface.name + " and " + peer +
             " carry addresses, routes or upper devices: create the pair first (one end without them)");
      link.setVeth(VethInfo().setPeerName(peer));
      creating_.insert(peer);
      namedOnly_.insert(peer);
      created_->pickedByKernel.push_back(iface.name);
      created_->pickedByKernel.push_back(peer);
      what.push_back("peer " + peer);
    }
    std::optional<Ifref> base;
    if (iface.baseIface) {
      if (!willExist(*iface.baseIface))
        fail(child(iface.path, std::string(kind->key)) + ".base-iface", "no device " + *iface.baseIface + " on the host or in the document");
      base = refOf(*iface.baseIface);
      what.push_back("base " + *iface.baseIface);
    }
    if (kind->create) kind->create(iface, base, link);
    if (iface.mtu) link.setMtu(*iface.mtu), what.push_back("mtu " + std::to_string(*iface.mtu));
    if (iface.macAddress) link.setAddress(*iface.macAddress), what.push_back("mac-address " + iface.macAddress->toString());
    // The kernel ignores an alias at creation: it follows as a change.
    if (iface.description && !iface.description->empty())
      linkChanges_.push_back(linkStep(PlanStep::Action::Change, iface.name, "description", LinkInfo().setAlias(*iface.description), false));
    if (iface.group) link.setGroup(*iface.group);
    if (const std::string* master = controllerName(iface.name); master && !master->empty()) {
      link.setMaster(masterRefFor(iface, *master));
      what.push_back("controller " + *master);
    }
    if (!veth) created_->explicitOrder.push_back(iface.name);
    if (!veth && iface.ifindex && !host_.names.count(*iface.ifindex)) created_->fixed[iface.name] = *iface.ifindex;
    if (veth && link.master) {
      // Veth pairs are created before the other new devices: the master follows with them.
      std::string detail = what.back();
      linkChanges_.push_back(linkStep(PlanStep::Action::Change, iface.name, detail, LinkInfo().setMaster(*link.master), false));
      link.master.reset();
      what.pop_back();
    }
    (veth ? vethCreates_ : linkCreates_).push_back(linkStep(PlanStep::Action::Create, iface.name, join(what), link, true));
    if (iface.state == InterfaceAdmin::Up) bringUp(iface.name, true);
  }

  static std::string child(const std::string& path, const std::string& key) { return path + "." + key; }

  void bringUp(const std::string& name, bool up) {
    adminChanges_.push_back(linkStep(PlanStep::Action::Change, name, up ? "state up" : "state down", LinkInfo().setAdmin(up), false));
  }

  /// A device requests must name by ifindex: it gets addresses, carries routes, or is the
  /// controller or base of another device.
  bool needsIndex(const std::string& name) const { return namedByIndex_.count(name) > 0; }

  void planChange(const InterfaceState& iface, const LinkInfo& host) {
    std::string hostType = stateTypeOf(host);
    if (hostType != iface.type)
      fail(child(iface.path, "type"), iface.type + ", but the host's " + iface.name + " is a " + hostType + " (make it absent first)");
    LinkChanges c;
    LinkInfo& changes = c.link;
    std::vector<std::string>& what = c.what;
    if (iface.mtu && host.mtu != iface.mtu) {
      changes.setMtu(*iface.mtu);
      what.push_back("mtu " + std::to_string(host.mtu.value_or(0)) + " -> " + std::to_string(*iface.mtu));
    }
    if (iface.macAddress && !(host.address && *host.address == *iface.macAddress)) {
      changes.setAddress(*iface.macAddress);
      what.push_back("mac-address " + (host.address ? host.address->toString() : "none") + " -> " + iface.macAddress->toString());
    }
    if (iface.description && host.alias.value_or("") != *iface.description) {
      changes.setAlias(*iface.description);
      what.push_back("description \"" + host.alias.value_or("") + "\" -> \"" + *iface.description + "\"");
    }
    if (iface.group && host.group.value_or(0) != *iface.group) {
      changes.setGroup(*iface.group);
      what.push_back("fastlink-group " + std::to_string(host.group.value_or(0)) + " -> " + std::to_string(*iface.group));
    }
    if (const InterfaceKind* k = interfaceKind(iface.type); k && k->change) k->change(iface, host, nameOf_, c);
    bool wasUp = host.isUp();
    bool bondPortDown = false;
    if (const std::string* master = controllerName(iface.name)) {
      std::string hostMaster = host_.nameOf(host.masterIndex());
      if (hostMaster != *master || deleted_.count(hostMaster)) {
        leavesBridge(host);
        changes.setMaster(masterRefFor(iface, *master));
        what.push_back("controller " + (hostMaster.empty() ? "none" : hostMaster) + " -> " + (master->empty() ? "none" : *master));
        // A bond takes a port only while the port is down.
        const InterfaceState* m = find(*master);
        const LinkInfo* hm = host_.link(*master);
        bool toBond = (m && m->type == "bond") || (hm && hm->kind == "bond");
        if (toBond && wasUp) {
          bringUp(iface.name, false);
          linkChanges_.push_back(std::move(adminChanges_.back()));
          adminChanges_.pop_back();
          bondPortDown = true;
        }
      }
    }
    if (!what.empty())
      linkChanges_.push_back(linkStep(PlanStep::Action::Change, iface.name, join(what), changes, false));
    bool wantUp = iface.state == InterfaceAdmin::Up;
    if (wantUp != wasUp || (bondPortDown && wantUp)) bringUp(iface.name, wantUp);
  }

  /// A host port leaves its bridge (released or deleted) and loses its VLANs: the bridge's
  /// pre-image lists its ports' VLANs, so a rollback puts them back.
  void leavesBridge(const LinkInfo& port) {
    const LinkInfo* master = host_.link(host_.nameOf(port.masterIndex()));
    if (master && master->kind == "bridge") vlanBridges_.insert(*master->name);
  }

  /// Per VLAN 1-4094: present, PVID, untagged (kFlag*), from a port's ranges.
  static constexpr uint8_t kVlanPresent = 1, kVlanPvid = 2, kVlanUntagged = 4;
  using VlanFlags = std::vector<uint8_t>;
  static VlanFlags vlanFlags(const std::vector<BridgeVlanRange>& ranges) {
    VlanFlags flags(4096, 0);
    for (const auto& r : ranges)
      for (uint32_t vid = r.first; vid <= r.last && vid < 4095; ++vid)
        flags[vid] = static_cast<uint8_t>(kVlanPresent | (r.pvid ? kVlanPvid : 0) | (r.untagged ? kVlanUntagged : 0));
    return flags;
  }

  /// The VLANs `port` has when this plan's VLAN steps run: the host's when it is a port of
  /// `bridge` already, else the bridge's default PVID (1 unless the host's bridge says else),
  /// which the kernel gives every new port.
  std::vector<BridgeVlanRange> vlansBefore(const std::string& port, const std::string& bridge) const {
    const LinkInfo* b = creating_.count(bridge) || deleted_.count(bridge) ? nullptr : host_.link(bridge);
    const LinkInfo* p = creating_.count(port) || deleted_.count(port) ? nullptr : host_.link(port);
    if (b && p && p->masterIndex() == b->index.value_or(0)) {
      auto it = host_.vlans.find(port);
      return it == host_.vlans.end() ? std::vector<BridgeVlanRange>{} : it->second;
    }
    uint16_t pvid = b && b->bridge ? b->bridge->vlanDefaultPvid.value_or(1) : 1;
    if (pvid == 0) return {};
    return {{pvid, pvid, true, true}};
  }

  static std::string vlanFlagsText(uint8_t f) {
    if (f & kVlanPvid) return f & kVlanUntagged ? "pvid untagged" : "pvid";
    return f & kVlanUntagged ? "untagged" : "tagged";
  }

  /// `bridge.port[].vlan`: per port, the VLANs it has and must not (deleted, as ranges), then
  /// those it lacks or has with other flags (added, a range per run of equal flags; a PVID alone,
  /// as the kernel takes it). One request per range.
  void planPortVlans() {
    for (const auto& bridge : want_.interfaces) {
      if (bridge.state == InterfaceAdmin::Absent || ignored(bridge.name)) continue;
      for (const auto& pv : bridge.portVlans) {
        if (ignored(pv.port)) continue;
        VlanFlags have = vlanFlags(vlansBefore(pv.port, bridge.name)), want = vlanFlags(pv.vlans);
        Ifref dev = refOf(pv.port);
        bool onHost = !creating_.count(pv.port);
        auto emit = [&](PlanStep::Action action, uint16_t first, uint16_t last, uint8_t flags, uint8_t before) {
          std::string object = (first == last ? "vlan " + std::to_string(first) : "vlans " + std::to_string(first) + "-" + std::to_string(last)) +
                               " dev " + pv.port;
          std::string detail = action == PlanStep::Action::Delete ? "" : action == PlanStep::Action::Change ? vlanFlagsText(before) + " -> " + vlanFlagsText(flags) : vlanFlagsText(flags);
          BridgeVlanInfo v(dev, first);
          if (last != first) v.setVidEnd(last);
          if (action != PlanStep::Action::Delete) v.setPvid(flags & kVlanPvid).setUntagged(flags & kVlanUntagged);
          vlanChanges_.push_back(deviceStep(action, object, detail, v,
                                            action == PlanStep::Action::Delete ? BridgeVlanRequests::del : BridgeVlanRequests::add));
          if (onHost) vlanBridges_.insert(bridge.name);
        };
        // Deletions: runs of VLANs the port has and must not.
        for (uint16_t vid = 1; vid <= 4094;) {
          if (!(have[vid] && !want[vid])) { ++vid; continue; }
          uint16_t last = vid;
          while (last < 4094 && have[last + 1] && !want[last + 1]) ++last;
          emit(PlanStep::Action::Delete, vid, last, 0, have[vid]);
          vid = static_cast<uint16_t>(last + 1);
        }
        // Additions: runs of VLANs wanted with the same flags (and the same before) that differ.
        for (uint16_t vid = 1; vid <= 4094;) {
          if (!want[vid] || want[vid] == have[vid]) { ++vid; continue; }
          uint16_t last = vid;
          while (!(want[vid] & kVlanPvid) && last < 4094 && want[last + 1] == want[vid] && have[last + 1] == have[vid]) ++last;
          emit(have[vid] ? PlanStep::Action::Change : PlanStep::Action::Create, vid, last, want[vid], have[vid]);
          vid = static_cast<uint16_t>(last + 1);
        }
      }
    }
  }

  void planOverriddenLinks() {
    if (want_.mode != ApplyMode::Overridden) return;
    for (const auto& [name, link] : host_.links) {
      if (!link.kind || name == "lo" || find(name) || ignored(name) ||
          !matchesAny(want_.ownership.interfaces, name))
        continue;
      // The other end of a veth the document keeps stays.
      if (*link.kind == "veth" && find(host_.nameOf(link.parentIndex()))) continue;
      overriddenDeletes_.insert(name);
    }
    for (const auto& name : overriddenDeletes_) planDelete(name, "fastlink-apply.mode");
  }

  /// The addresses a named interface must have, per family; nullopt: leave them.
  std::optional<std::vector<Prefix>> wantedAddresses(const InterfaceState& iface, bool v4) const {
    const std::optional<IpConfig>& config = v4 ? iface.ipv4 : iface.ipv6;
    if (config) return config->enabled ? config->addresses : std::vector<Prefix>{};
    if (want_.mode == ApplyMode::Replaced) return std::vector<Prefix>{};
    return std::nullopt;
  }

  void planAddresses() {
    for (const auto& iface : want_.interfaces) {
      if (iface.state == InterfaceAdmin::Absent || ignored(iface.name)) continue;
      bool fresh = creating_.count(iface.name) > 0;
      std::vector<Prefix> have;
      if (!fresh) {
        if (auto it = host_.addresses.find(iface.name); it != host_.addresses.end()) have = it->second;
      }
      for (bool v4 : {true, false}) {
        auto wanted = wantedAddresses(iface, v4);
        if (!wanted) continue;
        Ifref dev = refOf(iface.name);
        for (const Prefix& p : have) {
          if (p.isV4() != v4 || isLinkLocal6(p) || std::find(wanted->begin(), wanted->end(), p) != wanted->end()) continue;
          touched_.insert(iface.name);
          addressDeletes_.push_back(deviceStep(PlanStep::Action::Delete, "address " + p.toStringWithLength() + " dev " + iface.name, "",
                                               AddrInfo(p, dev), AddrRequests::del));
        }
        for (const Prefix& p : *wanted) {
          if (std::find(have.begin(), have.end(), p) != have.end()) continue;
          if (!fresh) touched_.insert(iface.name);
          addressAdds_.push_back(deviceStep(PlanStep::Action::Create, "address " + p.toStringWithLength() + " dev " + iface.name, "",
                                            AddrInfo(p, dev), AddrRequests::add));
        }
      }
    }
  }

  /// True when the host route is the one the document describes (the fields it gives).
  bool sameRoute(const RouteState& r, const RouteInfo& h) const {
    if (!h.dst || !(*h.dst == r.destination) || h.tableOrMain() != r.table) return false;
    if (h.type && *h.type != RouteType::Unicast) return false;
    if (r.metric && h.metric.value_or(0) != *r.metric) return false;
    if (r.nextHopAddress && !(h.gateway && *h.gateway == *r.nextHopAddress)) return false;
    if (r.nextHopInterface && host_.nameOf(h.devIndex()) != *r.nextHopInterface) return false;
    if (r.protocol && static_cast<uint8_t>(h.protocol.value_or(RouteProtocol::Unspec)) != *r.protocol) return false;
    return true;
  }

  RouteInfo routeOf(const RouteState& r) const {
    RouteInfo route(r.destination);
    route.setTable(r.table).setProtocol(static_cast<RouteProtocol>(r.protocol.value_or(want_.ownership.routeProtocol)));
    if (r.metric) route.setMetric(*r.metric);
    if (r.nextHopAddress) route.setGateway(*r.nextHopAddress);
    if (r.nextHopInterface) {
      if (!willExist(*r.nextHopInterface))
        fail(r.path + ".next-hop-interface", "no device " + *r.nextHopInterface + " on the host or in the document");
      route.setDev(refOf(*r.nextHopInterface));
    }
    return route;
  }

  RouteInfo hostRouteKey(const RouteInfo& h) const {
    RouteInfo key(*h.dst);
    key.setTable(h.tableOrMain());
    if (h.metric) key.setMetric(*h.metric);
    if (h.gateway) key.setGateway(*h.gateway);
    if (h.devIndex()) key.setDev(Ifref(h.devIndex()));
    if (h.type) key.setType(*h.type);
    return key;
  }

  void deleteHostRoute(const RouteInfo& h) {
    if (!deletedRoutes_.insert(&h).second) return;  // named absent and owned: deleted once
    routesBefore_.insert(&h);
    std::optional<std::string> dev;
    if (h.devIndex()) dev = host_.nameOf(h.devIndex());
    routeDeletes_.push_back(deviceStep(PlanStep::Action::Delete, describeRoute(*h.dst, h.gateway, dev, h.metric, h.tableOrMain()), "",
                                       hostRouteKey(h), RouteRequests::del));
  }

  bool routeOnDeletedDevice(const RouteInfo& h) const { return !deleted_.empty() && deleted_.count(host_.nameOf(h.devIndex())) > 0; }

  /// The host routes with r's destination and table, in dump order (the only ones sameRoute can accept).
  /// One buffer for every call (valid until the next): 100,000 routes, no allocation each.
  const std::vector<const RouteInfo*>& candidates(const RouteState& r) {
    indexHostRoutes();
    candidates_.clear();
    auto [from, to] = routesByKey_.equal_range(RouteKey::of(r.destination, r.table));
    for (auto it = from; it != to; ++it) candidates_.push_back(it->second);
    if (candidates_.size() > 1) std::sort(candidates_.begin(), candidates_.end());  // pointers into one vector: dump order
    return candidates_;
  }

  void indexHostRoutes() {
    if (!routesByKey_.empty()) return;
    routesByKey_.reserve(host_.routes.size());
    for (const auto& h : host_.routes)
      if (h.dst) routesByKey_.emplace(RouteKey::of(*h.dst, h.tableOrMain()), &h);
  }

  void planRoutes() {
    // What overridden mode keeps: the routes named (and matched), every other owned one goes.
    bool overridden = want_.mode == ApplyMode::Overridden;
    std::unordered_set<const RouteInfo*> kept, named;
    for (const auto& r : want_.routes) {
      const std::vector<const RouteInfo*>& same = candidates(r);
      if (r.absent) {
        for (const RouteInfo* h : same)
          if (sameRoute(r, *h) && !routeOnDeletedDevice(*h)) deleteHostRoute(*h);
        continue;
      }
      const RouteInfo* match = nullptr;
      for (const RouteInfo* h : same) {
        if (!sameRoute(r, *h)) continue;
        if (overridden) named.insert(h);
        if (!routeOnDeletedDevice(*h)) match = h;
      }
      if (match) {
        if (overridden) kept.insert(match);
        continue;
      }
      recordRouteAdd(r);
      routeAdds_.push_back(deviceStep(PlanStep::Action::Create, describeRoute(r.destination, r.nextHopAddress, r.nextHopInterface, r.metric, r.table),
                                      "", routeOf(r), RouteRequests::replace));
    }
    if (!overridden) return;
    const auto& tables = want_.ownership.routeTables;
    for (const auto& h : host_.routes) {
      if (kept.count(&h) || !h.dst || !h.protocol || static_cast<uint8_t>(*h.protocol) != want_.ownership.routeProtocol) continue;
      if (std::find(tables.begin(), tables.end(), h.tableOrMain()) == tables.end() || routeOnDeletedDevice(h)) continue;
      if (ignored(host_.nameOf(h.devIndex()))) continue;
      if (!named.count(&h)) deleteHostRoute(h);
    }
  }

  RuleInfo ruleOf(const RuleState& r) const {
    RuleInfo rule;
    rule.setFamily(r.family);
    if (r.priority) rule.setPriority(*r.priority);
    if (r.ipFrom) rule.src = r.ipFrom;
    if (r.ipTo) rule.dst = r.ipTo;
    if (r.table) rule.table = r.table;
    if (r.fwmark) rule.fwmark = r.fwmark;
    if (r.fwmask) rule.fwmask = r.fwmask;
    return rule;
  }

  bool sameRule(const RuleState& r, const RuleInfo& h) const {
    if (h.family && *h.family != r.family) return false;
    if (r.priority && h.priority.value_or(0) != *r.priority) return false;
    auto samePrefix = [](const std::optional<Prefix>& a, const std::optional<Prefix>& b) {
      bool aAny = !a || a->isDefault(), bAny = !b || b->isDefault();
      return aAny == bAny && (aAny || *a == *b);
    };
    if (!samePrefix(r.ipFrom, h.src) || !samePrefix(r.ipTo, h.dst)) return false;
    if (r.table && h.table.value_or(0) != *r.table) return false;
    if (h.fwmark.value_or(0) != r.fwmark.value_or(0)) return false;
    if (r.fwmask && h.fwmask.value_or(0) != *r.fwmask) return false;
    if (!r.absent && (h.iif || h.oif)) return false;
    return true;
  }

  void planRules() {
    std::set<const RuleInfo*> kept;
    for (const auto& r : want_.rules) {
      if (r.absent) {
        for (const auto& h : host_.rules)
          if (sameRule(r, h) && deletedRules_.insert(&h).second) deleteHostRule(h);
        continue;
      }
      const RuleInfo* match = nullptr;
      for (const auto& h : host_.rules)
        if (sameRule(r, h)) match = &h;
      if (match) {
        kept.insert(match);
        continue;
      }
      RuleInfo rule = ruleOf(r);
      rule.protocol = want_.ownership.routeProtocol;
      rulesAdded_.push_back(r);
      ruleAdds_.push_back({PlanStep::Action::Create, describeRule(rule), "", [rule] { return RuleRequests::add(rule); }});
    }
    if (want_.mode != ApplyMode::Overridden) return;
    for (const auto& h : host_.rules)
      if (!kept.count(&h) && !deletedRules_.count(&h) && h.protocol == want_.ownership.routeProtocol) deleteHostRule(h);
  }

  void deleteHostRule(const RuleInfo& h) {
    if (rulesBefore_.insert(&h).second)
      ruleDeletes_.push_back({PlanStep::Action::Delete, describeRule(h), "", [key = hostRuleKey(h)] { return RuleRequests::del(key); }});
  }

  static RuleInfo hostRuleKey(const RuleInfo& h) {
    RuleInfo key;
    key.family = h.family;
    key.priority = h.priority;
    key.src = h.src;
    key.dst = h.dst;
    key.table = h.table;
    key.fwmark = h.fwmark;
    key.fwmask = h.fwmask;
    key.iif = h.iif;
    key.oif = h.oif;
    return key;
  }

  /// An added route replaces the host's with the same destination and table: both are journalled.
  void recordRouteAdd(const RouteState& r) {
    // A route through a device the plan creates goes with the device.
    if (!r.nextHopInterface || !creating_.count(*r.nextHopInterface)) {
      RouteState added = r;
      added.absent = true;
      // The kernel's default metric, so the rollback removes this route and no other.
      if (!added.metric) added.metric = r.destination.isV4() ? 0 : 1024;
      routesAdded_.push_back(added);
    }
    indexHostRoutes();
    auto [from, to] = routesByKey_.equal_range(RouteKey::of(r.destination, r.table));
    for (auto it = from; it != to; ++it) routesBefore_.insert(it->second);
  }


 public:
  /// The document that undoes the plan (see Plan::undo): created devices absent, the pre-image
  /// of every host device, route and rule it touches (and of what the kernel changes with them:
  /// the other end of a deleted veth, the devices on a deleted one, its ports, the routes
  /// through a touched device), added routes and rules absent.
  bool touchesHostDevices() const { return !touched_.empty(); }
  /// The undo lists the VLANs of these host bridges' ports.
  bool needsVlanPreimage() const { return !vlanBridges_.empty(); }

  State undo() const {
    State u;
    for (const auto& name : creating_) {
      InterfaceState gone;
      gone.name = name;
      const InterfaceState* wanted = find(name);
      gone.type = wanted ? wanted->type : "veth";  // a peer created with its pair
      gone.state = InterfaceAdmin::Absent;
      u.interfaces.push_back(std::move(gone));
    }
    std::set<std::string> before = touched_;
    if (!host_.vlans.empty()) before.insert(vlanBridges_.begin(), vlanBridges_.end());
    for (const auto& name : deleted_) {
      before.insert(name);
      const LinkInfo* gone = host_.link(name);
      if (!gone || !gone->index) continue;
      for (const auto* children : {&host_.byParent, &host_.byMaster})
        for (const std::string& other : hostChildren(*children, *gone->index)) before.insert(other);
    }
    std::set<uint32_t> beforeIndexes;
    for (const auto& [index, name] : host_.names) {
      if (!before.count(name)) continue;
      beforeIndexes.insert(index);
      InterfaceState iface = interfaceOf(host_, host_.links.at(name));
      // Explicit, so a rollback clears what the plan set.
      iface.description = iface.description.value_or("");
      iface.group = iface.group.value_or(0);
      if (deleted_.count(name)) iface.ifindex = index;
      if (iface.type == "linux-bridge") {
        iface.bridgeVlanFiltering = iface.bridgeVlanFiltering.value_or(false);
        // (No VLAN in the dump: a kernel without VLAN filtering, whose ports have none to restore.)
        if (vlanBridges_.count(name) && !host_.vlans.empty()) addPortVlans(host_, host_.links.at(name), iface);
      }
      u.interfaces.push_back(std::move(iface));
    }
    // (routesBefore_ holds only routes of host_.routes.)
    for (const auto* routes : {&host_.routes, &host_.otherRoutes})
      for (const auto& h : *routes) {
        if (!routesBefore_.count(&h) && !beforeIndexes.count(h.devIndex())) continue;
        if (auto route = routeStateOf(host_, h)) u.routes.push_back(std::move(*route));
      }
    for (const auto& r : routesAdded_) u.routes.push_back(r);
    for (const RuleInfo* h : rulesBefore_)
      if (auto rule = ruleStateOf(*h)) u.rules.push_back(std::move(*rule));
    for (const auto& r : rulesAdded_) {
      RuleState gone = r;
      gone.absent = true;
      u.rules.push_back(std::move(gone));
    }
    return u;
  }

 private:
  const State& want_;
  const Host& host_;
  std::set<std::string> touched_;  ///< host devices a step changes or deletes
  std::set<const RouteInfo*> routesBefore_;
  std::set<const RuleInfo*> rulesBefore_;
  std::vector<RouteState> routesAdded_;
  std::vector<RuleState> rulesAdded_;
  std::unordered_multimap<RouteKey, const RouteInfo*, RouteKey::Hash> routesByKey_;  ///< host routes by destination and table
  std::vector<const RouteInfo*> candidates_;
  std::shared_ptr<CreatedIndexes> created_;
  NameOfIndex nameOf_ = host_.nameOfIndex();
  std::set<const RouteInfo*> deletedRoutes_;
  std::set<const RuleInfo*> deletedRules_;
  std::map<std::string, std::string> controllerOf_;
  std::unordered_map<std::string, const InterfaceState*> byName_;       ///< the document's interfaces
  std::unordered_map<std::string, const InterfaceState*> peerNamedBy_;  ///< veth end -> the entry naming it peer
  std::unordered_set<std::string> namedByIndex_;  ///< see needsIndex
  std::set<std::string> creating_, deleted_, overriddenDeletes_, namedOnly_;
  std::set<std::string> vlanBridges_;  ///< host bridges whose ports' VLANs the plan changes (see leavesBridge)
  std::vector<PlanStep> routeDeletes_, ruleDeletes_, addressDeletes_, releases_, linkDeletes_, vethCreates_, linkCreates_,
      linkChanges_, adminChanges_, vlanChanges_, addressAdds_, routeAdds_, ruleAdds_;
};

bool needsAddresses(const State& want) {
  if (want.mode != ApplyMode::Merged) return true;
  for (const auto& iface : want.interfaces)
    if (iface.ipv4 || iface.ipv6) return true;
  return false;
}

const char* actionName(PlanStep::Action a) {
  return a == PlanStep::Action::Create ? "create" : a == PlanStep::Action::Delete ? "delete" : "change";
}


}  // namespace

Plan makePlan(Netlink& netlink, const State& want, bool recordUndo) {
  bool routes = !want.routes.empty() || want.mode == ApplyMode::Overridden;
  bool rules = !want.rules.empty() || want.mode == ApplyMode::Overridden;
  bool addresses = needsAddresses(want);
  Host host = dumpHost(netlink, addresses, routes ? std::optional(routesInvolved(want)) : std::nullopt, rules);
  bool vlans = std::any_of(want.interfaces.begin(), want.interfaces.end(), [](const InterfaceState& i) { return !i.portVlans.empty(); });
  if (vlans) dumpVlans(netlink, host);
  Planner planner(want, host);
  Plan plan = planner.build();
  if (recordUndo && !plan.empty()) {
    // The pre-image of a touched device has its addresses and the routes through it: dumped
    // now when the plan did not need them (adding to the host leaves the plan as it is).
    if (planner.touchesHostDevices() && !addresses) dumpAddresses(netlink, host);
    if (planner.touchesHostDevices() && !routes) dumpRoutes(netlink, host);
    if (planner.touchesHostDevices() && routes) dumpOtherRoutes(netlink, host);
    if (planner.needsVlanPreimage() && !vlans) dumpVlans(netlink, host);
    plan.undo = planner.undo();
  }
  return plan;
}

BatchResult applyPlan(Netlink& netlink, const Plan& plan, const ResultSink& sink) {
  BatchResult totals;
  totals.results.resize(plan.steps.size());
  // Stop at the first failure; the window lets many requests share a sendmsg.
  BatchOptions options;
  options.onError = OnError::Stop;
  options.window = 64;
  auto send = [&](std::size_t begin, std::size_t end) {
    std::size_t next = begin;
    RequestSource source = [&]() -> std::optional<Request> {
      if (next == end) return std::nullopt;
      return plan.steps[next++].encode();
    };
    BatchResult sent = netlink.run(source, options, [&](std::size_t index, const RequestResult& result) {
      totals.results[begin + index] = result;
      if (sink) sink(begin + index, result);
    });
    totals.applied += sent.applied;
    totals.failed += sent.failed;
    return sent.failed == 0;
  };
  // Deletions and the veth pairs first (the kernel picks the veths' indexes), then the rest.
  if (send(0, plan.firstPart)) {
    if (plan.resolve) plan.resolve(netlink);
    send(plan.firstPart, plan.steps.size());
  }
  for (auto& r : totals.results)
    if (r.status == RequestStatus::Failed && r.error) r.error->setBatchIndex(static_cast<std::size_t>(&r - totals.results.data()));
  totals.notSent = plan.steps.size() - totals.applied - totals.failed;
  return totals;
}

std::string Plan::toText() const {
  std::string out;
  for (const auto& step : steps) {
    out += step.action == PlanStep::Action::Create ? "+ " : step.action == PlanStep::Action::Delete ? "- " : "~ ";
    out += step.object;
    if (!step.detail.empty()) out += ": " + step.detail;
    out += '\n';
  }
  return out;
}

std::string Plan::toJson(const BatchResult* results) const {
  std::string out = "[";
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    out += i ? ",{" : "{";
    out += "\"action\":\"" + std::string(actionName(s.action)) + "\",\"object\":" + jsonQuoted(s.object);
    if (!s.detail.empty()) out += ",\"detail\":" + jsonQuoted(s.detail);
    if (results && i < results->results.size()) {
      const RequestResult& r = results->results[i];
      out += std::string(",\"result\":\"") +
             (r.status == RequestStatus::Applied ? "applied" : r.status == RequestStatus::Failed ? "failed" : "not sent") + "\"";
      if (r.error) out += ",\"error\":" + jsonQuoted(r.error->reason());
    }
    out += "}";
  }
  return out + "]\n";
}

State captureState(Netlink& netlink) {
  Host host = dumpHost(netlink, true, RouteFilter{}, true);
  dumpVlans(netlink, host);
  State state;
  // Devices by ifindex: the order they were made in, which is an order that can make them again.
  for (const auto& [index, name] : host.names) state.interfaces.push_back(interfaceOf(host, host.links.at(name)));
  for (const auto& r : host.routes)
    if (auto route = routeStateOf(host, r)) state.routes.push_back(std::move(*route));
  for (const auto& h : host.rules)
    if (auto rule = ruleStateOf(h)) state.rules.push_back(std::move(*rule));
  return state;
}

}  // namespace fastlink
