// Links: LinkInfo and the per-kind options (docs/python.md, "The model").
#include "binding.hpp"

#include "fastlink/link.hpp"

namespace fastlink::python {

void bindLinkTypes(nb::module_& m) {
  nb::class_<fastlink::LinkStats>(m, "LinkStats", "Interface counters (64-bit).")
      .def_ro("rx_packets", &fastlink::LinkStats::rxPackets)
      .def_ro("tx_packets", &fastlink::LinkStats::txPackets)
      .def_ro("rx_bytes", &fastlink::LinkStats::rxBytes)
      .def_ro("tx_bytes", &fastlink::LinkStats::txBytes)
      .def_ro("rx_errors", &fastlink::LinkStats::rxErrors)
      .def_ro("tx_errors", &fastlink::LinkStats::txErrors)
      .def_ro("rx_dropped", &fastlink::LinkStats::rxDropped)
      .def_ro("tx_dropped", &fastlink::LinkStats::txDropped)
      .def_ro("multicast", &fastlink::LinkStats::multicast)
      .def_ro("collisions", &fastlink::LinkStats::collisions);

  using fastlink::VethInfo;
  Fields<VethInfo> veth(m, "VethInfo", "veth options: `ip link add NAME type veth peer name P [netns N]`.");
  veth.rw("peer_name", &VethInfo::peerName)
      .prop<std::optional<nb::object>>(
          "peer_netns", [](const VethInfo& v) { return v.peerNetns ? std::optional(v.peerNetns->toString()) : std::nullopt; },
          [](VethInfo& v, std::optional<nb::object> where) {
            v.peerNetns = where ? std::optional(netnsOf(*where)) : std::nullopt;
          },
          "Create the peer in this namespace: a name, a path or an fd.")
      .text("peer_address", &VethInfo::peerAddress)
      .done();

  using fastlink::BridgeInfo;
  Fields<BridgeInfo> bridge(m, "BridgeInfo", "bridge options: `ip link add NAME type bridge ...` (times in centiseconds).");
  bridge.rw("vlan_filtering", &BridgeInfo::vlanFiltering)
      .rw("vlan_default_pvid", &BridgeInfo::vlanDefaultPvid)
      .rw("stp_state", &BridgeInfo::stpState)
      .rw("ageing_time", &BridgeInfo::ageingTime)
      .rw("forward_delay", &BridgeInfo::forwardDelay)
      .rw("hello_time", &BridgeInfo::helloTime)
      .rw("max_age", &BridgeInfo::maxAge)
      .rw("priority", &BridgeInfo::priority)
      .rw("mcast_snooping", &BridgeInfo::mcastSnooping)
      .done();

  using fastlink::VxlanInfo;
  Fields<VxlanInfo> vxlan(m, "VxlanInfo", "vxlan options: `ip link add NAME type vxlan id N ...`.");
  vxlan.rw("vni", &VxlanInfo::vni)
      .text("local", &VxlanInfo::local)
      .text("remote", &VxlanInfo::remote)
      .rw("dst_port", &VxlanInfo::dstPort)
      .rw("dev", &VxlanInfo::dev)
      .rw("learning", &VxlanInfo::learning)
      .rw("ttl", &VxlanInfo::ttl)
      .done();

  using fastlink::VlanInfo;
  Fields<VlanInfo> vlan(m, "VlanInfo", "vlan options: `ip link add NAME link PARENT type vlan id N`.");
  vlan.rw("id", &VlanInfo::id).done();

  using fastlink::VrfInfo;
  Fields<VrfInfo> vrf(m, "VrfInfo", "vrf options: `ip link add NAME type vrf table N`.");
  vrf.rw("table", &VrfInfo::table).done();

  using fastlink::LinkInfo;
  Fields<LinkInfo> link(m, "LinkInfo",
                        "A network device. Every field is optional: an unset field (None) is never sent, "
                        "a field the kernel did not report stays None.");
  link.rw("name", &LinkInfo::name)
      .rw("index", &LinkInfo::index)
      .rw("kind", &LinkInfo::kind, "'veth', 'bridge', ...")
      .rw("mtu", &LinkInfo::mtu)
      .text("address", &LinkInfo::address, "MAC address 'aa:bb:cc:dd:ee:ff'")
      .rw("group", &LinkInfo::group)
      .rw("master", &LinkInfo::master, "reported as an ifindex; set by name or index; 0 = no master")
      .rw("admin", &LinkInfo::admin, "administratively up (`ip link set up`)")
      .rw("txqlen", &LinkInfo::txqlen)
      .rw("alias", &LinkInfo::alias)
      .rw("num_tx_queues", &LinkInfo::numTxQueues)
      .rw("num_rx_queues", &LinkInfo::numRxQueues)
      .rw("parent", &LinkInfo::parent, "`link DEV`: the lower device (vlan, macvlan, ...)")
      .prop<std::optional<nb::object>>(
          "netns", [](const LinkInfo& l) { return l.netns ? std::optional(l.netns->toString()) : std::nullopt; },
          [](LinkInfo& l, std::optional<nb::object> where) { l.netns = where ? std::optional(netnsOf(*where)) : std::nullopt; },
          "move the device to this namespace (`netns NAME`): a name, a path or an fd")
      .rw("veth", &LinkInfo::veth)
      .rw("bridge", &LinkInfo::bridge)
      .rw("vxlan", &LinkInfo::vxlan)
      .rw("vlan", &LinkInfo::vlan)
      .rw("vrf", &LinkInfo::vrf)
      .ro("master_name", &LinkInfo::masterName, "the master's name (reported)")
      .ro("flags", &LinkInfo::flags, "IFF_* bits (reported)")
      .ro("oper_state", &LinkInfo::operState, "'UP', 'DOWN', 'UNKNOWN', ... (reported)")
      .ro("carrier", &LinkInfo::carrier)
      .ro("min_mtu", &LinkInfo::minMtu)
      .ro("max_mtu", &LinkInfo::maxMtu)
      .ro("qdisc", &LinkInfo::qdisc)
      .ro("slave_kind", &LinkInfo::slaveKind, "kind of the master when enslaved ('bridge')")
      .ro("stats", &LinkInfo::stats, "counters, when asked for (stats=True)")
      .done();
  link.cls()
      .def_prop_ro("is_up", &LinkInfo::isUp, "IFF_UP")
      .def_prop_ro("is_running", &LinkInfo::isRunning, "IFF_RUNNING");
}

}  // namespace fastlink::python
