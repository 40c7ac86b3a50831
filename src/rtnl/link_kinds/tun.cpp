// tun: TUN/TAP devices as rtnetlink reports them, IFLA_TUN_* (read-only: the kernel creates
// tun/tap only through TUNSETIFF on /dev/net/tun, see src/tuntap/). The options type is the
// public TunTapInfo, so a listed link carries the same object TunTapApi returns.
#include <linux/if_link.h>
#include <linux/if_tun.h>

#include "fastlink/tuntap.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::rtnl {
namespace {

void encodeData(core::MessageWriter&, const LinkInfo&, KeepAlive&) {
  throw Error::invalidArgument("tun", "tun/tap devices are created with TUNSETIFF, not rtnetlink: use tuntap add "
                                      "(TunTapApi::add)");
}

/// tun or tap; another type stays raw rather than being guessed.
bool getType(const nlattr* a, TunTapInfo& t, const FieldContext&) {
  uint8_t type = core::readU8(a);
  if (type != IFF_TUN && type != IFF_TAP) return false;
  t.mode = type == IFF_TUN ? TunTapMode::Tun : TunTapMode::Tap;
  return true;
}

constexpr FieldTable kFields({
    AttrField<TunTapInfo>{IFLA_TUN_TYPE, nullptr, getType},
    field<IFLA_TUN_OWNER, &TunTapInfo::owner, Wire::Reported>(),
    field<IFLA_TUN_GROUP, &TunTapInfo::group, Wire::Reported>(),
    field<IFLA_TUN_PI, &TunTapInfo::pi, Wire::Reported>(),
    field<IFLA_TUN_VNET_HDR, &TunTapInfo::vnetHdr, Wire::Reported>(),
    field<IFLA_TUN_PERSIST, &TunTapInfo::persist, Wire::Reported>(),
    field<IFLA_TUN_MULTI_QUEUE, &TunTapInfo::multiQueue, Wire::Reported>(),
    field<IFLA_TUN_NUM_QUEUES, &TunTapInfo::numQueues, Wire::Reported>(),
    field<IFLA_TUN_NUM_DISABLED_QUEUES, &TunTapInfo::numDisabledQueues, Wire::Reported>(),
});

}  // namespace

constexpr LinkKindCodec kTunKind = slotKind<TunTapInfo>("tun", "tun", encodeData, decodeSlot<kFields>);

}  // namespace fastlink::rtnl

FASTLINK_LINK_KINDS(tun, &kTunKind)
