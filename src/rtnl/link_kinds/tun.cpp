// tun: TUN/TAP devices as rtnetlink reports them, IFLA_TUN_* (read-only: the kernel creates
// tun/tap only through TUNSETIFF on /dev/net/tun, see src/tuntap/). The options type is the
// public TunTapInfo, so a listed link carries the same object TunTapApi returns.
#include <linux/if_link.h>
#include <linux/if_tun.h>

#include "fastlink/tuntap.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

bool hasData(const LinkInfo& link) { return link.kindOptions<TunTapInfo>() != nullptr; }

void encodeData(core::MessageWriter&, const LinkInfo&, KeepAlive&) {
  throw Error::invalidArgument("tun", "tun/tap devices are created with TUNSETIFF, not rtnetlink: use tuntap add "
                                      "(TunTapApi::add)");
}

void decodeData(const nlattr* data, LinkInfo& link) {
  KindAttrs d(data, IFLA_TUN_MAX);
  TunTapInfo t;
  // A type other than tun or tap stays raw rather than being guessed.
  if (const nlattr* a = d.peek(IFLA_TUN_TYPE)) {
    uint8_t type = core::readU8(a);
    if (type == IFF_TUN || type == IFF_TAP) {
      t.mode = type == IFF_TUN ? TunTapMode::Tun : TunTapMode::Tap;
      d.take(IFLA_TUN_TYPE);
    }
  }
  d.read(IFLA_TUN_OWNER, t.owner);
  d.read(IFLA_TUN_GROUP, t.group);
  d.read(IFLA_TUN_PI, t.pi);
  d.read(IFLA_TUN_VNET_HDR, t.vnetHdr);
  d.read(IFLA_TUN_PERSIST, t.persist);
  d.read(IFLA_TUN_MULTI_QUEUE, t.multiQueue);
  d.read(IFLA_TUN_NUM_QUEUES, t.numQueues);
  d.read(IFLA_TUN_NUM_DISABLED_QUEUES, t.numDisabledQueues);
  d.keepRest(link);
  link.setKindOptions(t);
}

}  // namespace

const LinkKindCodec kTunKind{.kind = "tun", .options = "tun", .optionsType = &typeid(TunTapInfo),
                             .hasData = hasData, .encodeData = encodeData, .decodeData = decodeData};

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(tun, &kTunKind)
