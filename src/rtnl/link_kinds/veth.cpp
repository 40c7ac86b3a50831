// veth: the peer is described by a whole ifinfomsg + attributes nested in VETH_INFO_PEER.
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) {
  if (!link.veth) return false;
  const VethInfo& v = *link.veth;
  return v.peerName || v.peerNetns || v.peerAddress || v.peerMtu || v.peerTxqlen || v.peerNumTxQueues || v.peerNumRxQueues ||
         v.peerBroadcast || v.peerGsoMaxSize || v.peerGsoMaxSegs || v.peerGroMaxSize || v.peerGroup;
}

// The peer's attributes as ip's iplink_parse adds them, in the order of its words, the name last:
// a command whose words come in this order (address, broadcast, mtu, txqlen, group, the queue
// counts, the GSO/GRO limits, netns, name) is sent byte for byte as ip sends it.
void encodeData(core::MessageWriter& w, const LinkInfo& link, KeepAlive& keep) {
  const VethInfo& v = *link.veth;
  std::size_t peer = w.beginNest(VETH_INFO_PEER);
  w.putHeader<ifinfomsg>().ifi_family = AF_UNSPEC;
  if (v.peerAddress) w.putBytes(IFLA_ADDRESS, v.peerAddress->bytes());
  if (v.peerBroadcast) w.putBytes(IFLA_BROADCAST, v.peerBroadcast->bytes());
  if (v.peerMtu) w.putU32(IFLA_MTU, *v.peerMtu);
  if (v.peerTxqlen) w.putU32(IFLA_TXQLEN, *v.peerTxqlen);
  if (v.peerGroup) w.putU32(IFLA_GROUP, *v.peerGroup);
  if (v.peerNumTxQueues) w.putU32(IFLA_NUM_TX_QUEUES, *v.peerNumTxQueues);
  if (v.peerNumRxQueues) w.putU32(IFLA_NUM_RX_QUEUES, *v.peerNumRxQueues);
  if (v.peerGsoMaxSize) w.putU32(IFLA_GSO_MAX_SIZE, *v.peerGsoMaxSize);
  if (v.peerGsoMaxSegs) w.putU32(IFLA_GSO_MAX_SEGS, *v.peerGsoMaxSegs);
  if (v.peerGroMaxSize) w.putU32(IFLA_GRO_MAX_SIZE, *v.peerGroMaxSize);
  if (v.peerNetns) encodeNetns(w, *v.peerNetns, keep);
  if (v.peerName) {
    validateIfname(*v.peerName);
    w.putString(IFLA_IFNAME, *v.peerName);
  }
  w.endNest(peer);
}

// The kernel does not report the peer in dumps (veth has no fill_info); IFLA_LINK is its index.
void decodeData(const nlattr* data, LinkInfo& link) {
  keepUnknown(core::AttrTable::ofNest(data, VETH_INFO_MAX), {}, link.unknownKindData);
}

}  // namespace

const LinkKindCodec kVethKind{.kind = "veth", .options = "veth", .hasFieldOptions = fieldHas<&LinkInfo::veth>, .hasData = hasData,
                              .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(veth, &kVethKind)
