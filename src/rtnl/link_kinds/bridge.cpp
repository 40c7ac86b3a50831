#include <linux/if_bridge.h>
#include <linux/if_link.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) {
  const auto& b = link.bridge;
  return b && (b->vlanFiltering || b->vlanDefaultPvid || b->stpState || b->ageingTime || b->noLinklocalLearn ||
               b->forwardDelay || b->helloTime || b->maxAge || b->priority || b->mcastSnooping);
}

void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive&) {
  const BridgeInfo& b = *link.bridge;
  putOption(w, IFLA_BR_FORWARD_DELAY, b.forwardDelay);
  putOption(w, IFLA_BR_HELLO_TIME, b.helloTime);
  putOption(w, IFLA_BR_MAX_AGE, b.maxAge);
  putOption(w, IFLA_BR_PRIORITY, b.priority);
  putOption(w, IFLA_BR_VLAN_FILTERING, b.vlanFiltering);
  if (b.vlanDefaultPvid) {
    if (*b.vlanDefaultPvid >= 4095) throw Error::invalidArgument("bridge", "vlan_default_pvid must be 0-4094");
    w.putU16(IFLA_BR_VLAN_DEFAULT_PVID, *b.vlanDefaultPvid);
  }
  putOption(w, IFLA_BR_STP_STATE, b.stpState);
  putOption(w, IFLA_BR_AGEING_TIME, b.ageingTime);
  putOption(w, IFLA_BR_MCAST_SNOOPING, b.mcastSnooping);
  if (b.noLinklocalLearn) {
    br_boolopt_multi opt{};
    opt.optmask = 1u << BR_BOOLOPT_NO_LL_LEARN;
    opt.optval = *b.noLinklocalLearn ? opt.optmask : 0;
    w.putBytes(IFLA_BR_MULTI_BOOLOPT, {reinterpret_cast<const uint8_t*>(&opt), sizeof opt});
  }
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_BR_MAX);
  BridgeInfo b;
  d.read(IFLA_BR_VLAN_FILTERING, b.vlanFiltering);
  d.read(IFLA_BR_VLAN_DEFAULT_PVID, b.vlanDefaultPvid);
  d.read(IFLA_BR_STP_STATE, b.stpState);
  d.read(IFLA_BR_AGEING_TIME, b.ageingTime);
  d.read(IFLA_BR_FORWARD_DELAY, b.forwardDelay);
  d.read(IFLA_BR_HELLO_TIME, b.helloTime);
  d.read(IFLA_BR_MAX_AGE, b.maxAge);
  d.read(IFLA_BR_PRIORITY, b.priority);
  d.read(IFLA_BR_MCAST_SNOOPING, b.mcastSnooping);
  if (auto* a = d.peek(IFLA_BR_MULTI_BOOLOPT); a && core::readBytes(a).size() >= sizeof(br_boolopt_multi)) {
    br_boolopt_multi opt;
    std::memcpy(&opt, core::readBytes(d.take(IFLA_BR_MULTI_BOOLOPT)).data(), sizeof opt);
    b.noLinklocalLearn = (opt.optval & (1u << BR_BOOLOPT_NO_LL_LEARN)) != 0;
  }
  d.keepRest(link);
  link.bridge = b;
}

bool hasOptions(const LinkInfo& link) { return link.bridge.has_value(); }

}  // namespace

const LinkKindCodec kBridgeKind{.kind = "bridge", .options = "bridge", .hasFieldOptions = hasOptions, .hasData = hasData,
                                .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(bridge, &kBridgeKind)
