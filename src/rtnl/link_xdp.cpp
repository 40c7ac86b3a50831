// The IFLA_XDP nest of a link message: a link attribute, so rtnetlink decodes it (the link
// decoder, the link view and XdpApi::status all read it here; src/xdp/ builds on rtnl, never
// the other way round).
#include "rtnl/link_xdp.hpp"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "core/message.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink {

namespace rtnl {

XdpStatus decodeXdpStatus(const nlmsghdr* message) {
  auto attrs = core::AttrTable::ofMessage(message, sizeof(ifinfomsg), IFLA_MAX);
  const nlattr* nest = attrs.get(IFLA_XDP);
  return nest ? decodeXdpStatusNest(nest) : XdpStatus{};
}

XdpStatus decodeXdpStatusNest(const nlattr* nest) {
  // Walked in place, allocating nothing: every link of a dump comes through here.
  XdpStatus s;
  uint8_t attached = XDP_ATTACHED_NONE;
  uint32_t one = 0;
  forEachAttr(core::nestPayload(nest), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case IFLA_XDP_ATTACHED: attached = core::readU8(a); break;
      case IFLA_XDP_PROG_ID: one = core::readU32(a); break;
      // With one mode in use the kernel sends its per-mode id and IFLA_XDP_PROG_ID; with
      // several, the per-mode ids only.
      case IFLA_XDP_SKB_PROG_ID: s.genericProgId = core::readU32(a); break;
      case IFLA_XDP_DRV_PROG_ID: s.nativeProgId = core::readU32(a); break;
      case IFLA_XDP_HW_PROG_ID: s.offloadProgId = core::readU32(a); break;
      default: break;
    }
  });
  // Older kernels send only the single id; a missing one must not clear a per-mode id.
  if (one) switch (attached) {
    case XDP_ATTACHED_SKB: s.genericProgId = one; break;
    case XDP_ATTACHED_DRV: s.nativeProgId = one; break;
    case XDP_ATTACHED_HW: s.offloadProgId = one; break;
    default: break;
  }
  if (attached != XDP_ATTACHED_MULTI) s.progId = one;
  return s;
}

}  // namespace rtnl

}  // namespace fastlink
