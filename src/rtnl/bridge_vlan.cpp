// Bridge VLANs: request builders, and the kernel-backed BridgeVlanApi.
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/bridge_vlan.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/bridge_vlan_codec.hpp"

namespace fastlink {

using core::MessageWriter;

BridgeVlanApi& Netlink::bridgeVlans() { return lazy(bridgeVlans_); }

Request BridgeVlanRequests::add(const BridgeVlanInfo& vlan) {
  MessageWriter w(RTM_SETLINK, 0);
  rtnl::encodeBridgeVlan(w, vlan, false);
  return w.toRequest(rtnl::describeBridgeVlan("add", vlan));
}

Request BridgeVlanRequests::del(const BridgeVlanInfo& vlan) {
  MessageWriter w(RTM_DELLINK, 0);
  rtnl::encodeBridgeVlan(w, vlan, true);
  return w.toRequest(rtnl::describeBridgeVlan("del", vlan));
}

uint32_t BridgeVlanApi::indexOf(const Ifref& dev) {
  if (dev.isIndex()) return dev.index();
  LinkApi links(engine_);
  return links.indexOf(dev);
}

namespace {

// Checks everything but the device lookup first, so bad input is reported as such.
BridgeVlanInfo probe(const BridgeVlanInfo& v) {
  BridgeVlanInfo p = v;
  if (p.dev && p.dev->isName()) {
    validateIfname(p.dev->name());
    p.dev = Ifref(1u);
  }
  return p;
}

}  // namespace

void BridgeVlanApi::add(const BridgeVlanInfo& vlan) {
  (void)BridgeVlanRequests::add(probe(vlan));
  BridgeVlanInfo v = vlan;
  v.dev = Ifref(indexOf(*vlan.dev));
  Request r = BridgeVlanRequests::add(v);
  engine_.execute(r.bytes(), r.operation());
}

void BridgeVlanApi::del(const BridgeVlanInfo& vlan) {
  (void)BridgeVlanRequests::del(probe(vlan));
  BridgeVlanInfo v = vlan;
  v.dev = Ifref(indexOf(*vlan.dev));
  Request r = BridgeVlanRequests::del(v);
  engine_.execute(r.bytes(), r.operation());
}

void BridgeVlanApi::forEach(const BridgeVlanFilter& filter, const std::function<void(const BridgeVlanInfo&)>& each,
                            const std::function<void()>& restart) {
  uint32_t dev = filter.dev ? indexOf(*filter.dev) : 0;
  MessageWriter w(RTM_GETLINK, 0);
  rtnl::encodeBridgeVlanDump(w, filter.compressed);
  engine_.dump(
      w.bytes(), std::string("vlan show") + (filter.dev ? " dev " + filter.dev->toString() : ""),
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWLINK) return;
        const auto* ifi = core::messageHeader<ifinfomsg>(m);
        if (!ifi || ifi->ifi_family != AF_BRIDGE) return;
        if (dev && static_cast<uint32_t>(ifi->ifi_index) != dev) return;
        for (const auto& v : rtnl::decodeBridgeVlans(m)) each(v);
      },
      restart);
}

std::vector<BridgeVlanInfo> BridgeVlanApi::list(const BridgeVlanFilter& filter) {
  std::vector<BridgeVlanInfo> out;
  forEach(filter, [&](const BridgeVlanInfo& v) { out.push_back(v); }, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
