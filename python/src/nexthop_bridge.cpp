// Nexthop objects and groups (`ip nexthop`), fdb entries (`bridge fdb`) and bridge VLANs
// (`bridge vlan`): their Info types, request builders and nl.nexthops, nl.fdb, nl.bridge_vlans.
#include "binding.hpp"
#include "fastlink/bridge_vlan.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/nexthop.hpp"

namespace fastlink::python {

namespace {

using PyNexthops = PyApi<fastlink::NexthopApi, &fastlink::Netlink::nexthops>;
using PyFdb = PyApi<fastlink::FdbApi, &fastlink::Netlink::fdb>;
using PyBridgeVlans = PyApi<fastlink::BridgeVlanApi, &fastlink::Netlink::bridgeVlans>;

std::optional<fastlink::FdbState> fdbStateParsed(const std::optional<std::string>& word) {
  if (!word) return std::nullopt;
  for (auto state : {fastlink::FdbState::Permanent, fastlink::FdbState::Static, fastlink::FdbState::Dynamic,
                     fastlink::FdbState::Stale})
    if (fastlink::fdbStateName(state) == *word) return state;
  throw fastlink::Error::invalidArgument("fdb", "unknown state '" + *word + "' (permanent, static, dynamic)");
}

void bindNexthops(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  using fastlink::NexthopGroupMember;
  Fields<NexthopGroupMember> member(m, "NexthopGroupMember", "One member of a nexthop group: `group ID[,WEIGHT]`.");
  member.rw("id", &NexthopGroupMember::id).rw("weight", &NexthopGroupMember::weight, "1-256").done();

  using fastlink::NexthopInfo;
  Fields<NexthopInfo> nexthop(m, "NexthopInfo", "A nexthop object or group (`ip nexthop`).");
  nexthop.rw("id", &NexthopInfo::id, "unset on add: the kernel picks one")
      .text("gateway", &NexthopInfo::gateway)
      .rw("dev", &NexthopInfo::dev, "reported as an ifindex")
      .rw("blackhole", &NexthopInfo::blackhole)
      .rw("onlink", &NexthopInfo::onlink)
      .rw("fdb", &NexthopInfo::fdb, "for bridge/vxlan fdb entries")
      .rw("group", &NexthopInfo::group, "members: a group nexthop")
      .prop<std::optional<int>>(
          "family", [](const NexthopInfo& n) { return familyNumber(n.family); },
          [](NexthopInfo& n, std::optional<int> v) { n.family = familyOf(v); }, "4 or 6 (a blackhole's; default 4)")
      .prop<std::optional<uint8_t>>(
          "protocol",
          [](const NexthopInfo& n) { return n.protocol ? std::optional(static_cast<uint8_t>(*n.protocol)) : std::nullopt; },
          [](NexthopInfo& n, std::optional<uint8_t> v) {
            n.protocol = v ? std::optional(static_cast<fastlink::RouteProtocol>(*v)) : std::nullopt;
          })
      .prop<std::optional<std::string>>(
          "scope", [](const NexthopInfo& n) { return scopeText(n.scope); },
          [](NexthopInfo& n, std::optional<std::string> v) { n.scope = scopeParsed(v); })
      .ro("flags", &NexthopInfo::flags, "RTNH_F_* bits (reported)")
      .done();

  nb::class_<fastlink::NexthopRequests>(m, "NexthopRequests", "Nexthop requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::NexthopRequests::add, "nexthop"_a)
      .def_static("replace", &fastlink::NexthopRequests::replace, "nexthop"_a)
      .def_static("delete", &fastlink::NexthopRequests::del, "id"_a);

  nb::class_<PyNexthops>(m, "Nexthops", "Nexthop objects and groups (`ip nexthop`): Netlink.nexthops.")
      .def("add", [](PyNexthops& s, const NexthopInfo& n) { unlocked([&] { s.api().add(n); }); }, "nexthop"_a,
           "ip nexthop add id N via GW dev D | group A/B | blackhole")
      .def("replace", [](PyNexthops& s, const NexthopInfo& n) { unlocked([&] { s.api().replace(n); }); }, "nexthop"_a)
      .def("delete", [](PyNexthops& s, uint32_t id) { unlocked([&] { s.api().del(id); }); }, "id"_a, "ip nexthop del id N")
      .def("get", [](PyNexthops& s, uint32_t id) { return unlocked([&] { return s.api().get(id); }); }, "id"_a,
           "ip nexthop get id N (fastlink.Error ENOENT if missing)")
      .def(
          "list",
          [](PyNexthops& s, std::optional<Ifref> dev, bool groups, bool fdb) {
            fastlink::NexthopFilter filter;
            filter.dev = std::move(dev);
            filter.groupsOnly = groups;
            filter.fdbOnly = fdb;
            return unlocked([&] { return s.api().list(filter); });
          },
          "dev"_a = nb::none(), "groups"_a = false, "fdb"_a = false, "ip nexthop show [dev D] [groups] [fdb]");
  addApi<PyNexthops>(netlink, "nexthops");
}

void bindFdb(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  using fastlink::FdbInfo;
  Fields<FdbInfo> fdb(m, "FdbInfo", "A forwarding database entry (`bridge fdb`).");
  fdb.text("mac", &FdbInfo::mac)
      .rw("dev", &FdbInfo::dev, "the port or vxlan device; reported as an ifindex")
      .rw("vlan", &FdbInfo::vlan, "1-4094")
      .rw("master", &FdbInfo::master, "the bridge's table (`master`)")
      .rw("self", &FdbInfo::self, "the device's own table (`self`)")
      .prop<std::optional<std::string>>(
          "state", [](const FdbInfo& f) { return f.state ? std::optional(fastlink::fdbStateName(*f.state)) : std::nullopt; },
          [](FdbInfo& f, std::optional<std::string> v) { f.state = fdbStateParsed(v); }, "'permanent', 'static', 'dynamic'")
      .rw("sticky", &FdbInfo::sticky)
      .rw("extern_learn", &FdbInfo::externLearn)
      .rw("router", &FdbInfo::router)
      .text("dst", &FdbInfo::dst, "vxlan remote")
      .rw("port", &FdbInfo::port)
      .rw("vni", &FdbInfo::vni)
      .rw("src_vni", &FdbInfo::srcVni)
      .rw("via", &FdbInfo::via)
      .ro("master_dev", &FdbInfo::masterDev, "ifindex of the bridge holding the entry (reported)")
      .ro("offloaded", &FdbInfo::offloaded)
      .ro("used_ago", &FdbInfo::usedAgo, "centiseconds")
      .ro("updated_ago", &FdbInfo::updatedAgo, "centiseconds")
      .done();

  nb::class_<fastlink::FdbRequests>(m, "FdbRequests", "fdb requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::FdbRequests::add, "entry"_a)
      .def_static("append", &fastlink::FdbRequests::append, "entry"_a)
      .def_static("replace", &fastlink::FdbRequests::replace, "entry"_a)
      .def_static("delete", &fastlink::FdbRequests::del, "entry"_a);

  nb::class_<PyFdb>(m, "Fdb", "Forwarding database entries (`bridge fdb`): Netlink.fdb.")
      .def("add", [](PyFdb& s, const FdbInfo& e) { unlocked([&] { s.api().add(e); }); }, "entry"_a,
           "bridge fdb add MAC dev D [vlan V] [master|self] [static|dynamic] ...")
      .def("append", [](PyFdb& s, const FdbInfo& e) { unlocked([&] { s.api().append(e); }); }, "entry"_a)
      .def("replace", [](PyFdb& s, const FdbInfo& e) { unlocked([&] { s.api().replace(e); }); }, "entry"_a)
      .def("delete", [](PyFdb& s, const FdbInfo& e) { unlocked([&] { s.api().del(e); }); }, "entry"_a)
      .def(
          "list",
          [](PyFdb& s, std::optional<Ifref> bridge, std::optional<Ifref> dev, std::optional<uint16_t> vlan) {
            fastlink::FdbFilter filter;
            filter.bridge = std::move(bridge);
            filter.dev = std::move(dev);
            filter.vlan = vlan;
            return unlocked([&] { return s.api().list(filter); });
          },
          "bridge"_a = nb::none(), "dev"_a = nb::none(), "vlan"_a = nb::none(), "bridge fdb show [br B] [dev D] [vlan V]");
  addApi<PyFdb>(netlink, "fdb");
}

void bindBridgeVlans(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  using fastlink::BridgeVlanInfo;
  Fields<BridgeVlanInfo> vlan(m, "BridgeVlanInfo", "A VLAN (or range) of a bridge port (`bridge vlan`).");
  vlan.rw("dev", &BridgeVlanInfo::dev, "reported as an ifindex")
      .rw("vid", &BridgeVlanInfo::vid, "1-4094; the first of a range")
      .rw("vid_end", &BridgeVlanInfo::vidEnd, "the last of a range")
      .rw("pvid", &BridgeVlanInfo::pvid)
      .rw("untagged", &BridgeVlanInfo::untagged)
      .rw("master", &BridgeVlanInfo::master)
      .rw("self", &BridgeVlanInfo::self)
      .ro("brentry", &BridgeVlanInfo::brentry)
      .ro("master_dev", &BridgeVlanInfo::masterDev)
      .ro("dev_name", &BridgeVlanInfo::devName)
      .done();

  nb::class_<fastlink::BridgeVlanRequests>(m, "BridgeVlanRequests", "Bridge VLAN requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::BridgeVlanRequests::add, "vlan"_a)
      .def_static("delete", &fastlink::BridgeVlanRequests::del, "vlan"_a);

  nb::class_<PyBridgeVlans>(m, "BridgeVlans", "VLANs of bridge ports (`bridge vlan`): Netlink.bridge_vlans.")
      .def("add", [](PyBridgeVlans& s, const BridgeVlanInfo& v) { unlocked([&] { s.api().add(v); }); }, "vlan"_a,
           "bridge vlan add dev D vid V[-E] [pvid] [untagged] [master|self]")
      .def("delete", [](PyBridgeVlans& s, const BridgeVlanInfo& v) { unlocked([&] { s.api().del(v); }); }, "vlan"_a)
      .def(
          "list",
          [](PyBridgeVlans& s, std::optional<Ifref> dev, bool compressed) {
            fastlink::BridgeVlanFilter filter;
            filter.dev = std::move(dev);
            filter.compressed = compressed;
            return unlocked([&] { return s.api().list(filter); });
          },
          "dev"_a = nb::none(), "compressed"_a = true, "bridge vlan show [dev D]; ranges as one entry unless compressed=False");
  addApi<PyBridgeVlans>(netlink, "bridge_vlans");
}

}  // namespace

void bindNexthopsAndBridge(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  bindNexthops(m, netlink);
  bindFdb(m, netlink);
  bindBridgeVlans(m, netlink);
}

}  // namespace fastlink::python
