// XDP over rtnetlink: RTM_SETLINK with the IFLA_XDP nest (attach / replace / detach) and
// RTM_GETLINK decoded for the attached program ids. Its own requests, not LinkApi's: XDP is
// one nest on a link message and needs none of the link codec.
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <iterator>
#include <string>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/xdp.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/link_xdp.hpp"

namespace fastlink {

namespace {

// Per XdpMode, in its order: the IFLA_XDP_FLAGS bit, ip's keyword and the name toString() gives.
struct ModeNames {
  uint32_t flag;
  const char* word;
  const char* name;
};
constexpr ModeNames kModes[] = {
    {0, "xdp", "auto"},
    {XDP_FLAGS_SKB_MODE, "xdpgeneric", "generic"},
    {XDP_FLAGS_DRV_MODE, "xdpdrv", "native"},
    {XDP_FLAGS_HW_MODE, "xdpoffload", "offload"},
};
// A value outside the enumerators (a cast) reads as Auto.
const ModeNames& namesOf(XdpMode mode) {
  auto i = static_cast<std::size_t>(mode);
  return kModes[i < std::size(kModes) ? i : 0];
}
uint32_t modeFlag(XdpMode mode) { return namesOf(mode).flag; }
std::string modeWord(XdpMode mode) { return namesOf(mode).word; }

// The device by index in the header, or by IFLA_IFNAME with index 0 (the kernel looks a
// device up by name then), so no separate name lookup is needed.
void putDevice(core::MessageWriter& w, const Ifref& device) {
  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_UNSPEC;
  if (device.isName()) {
    validateIfname(device.name());
    w.putString(IFLA_IFNAME, device.name());
  } else {
    // putHeader's reference is valid until the next put: set the index first.
    ifi.ifi_index = static_cast<int>(device.index());
  }
}

Request setXdp(const Ifref& device, int fd, std::optional<int> expectedFd, uint32_t flags, std::string operation) {
  core::MessageWriter w(RTM_SETLINK, 0);
  putDevice(w, device);
  std::size_t nest = w.beginNest(IFLA_XDP | NLA_F_NESTED);
  w.putS32(IFLA_XDP_FD, fd);
  if (expectedFd) w.putS32(IFLA_XDP_EXPECTED_FD, *expectedFd);
  if (flags) w.putU32(IFLA_XDP_FLAGS, flags);
  w.endNest(nest);
  return w.toRequest(std::move(operation));
}

}  // namespace

std::string toString(XdpMode mode) { return namesOf(mode).name; }

Request XdpRequests::attach(const Ifref& device, int progFd, XdpMode mode) {
  return setXdp(device, progFd, std::nullopt, XDP_FLAGS_UPDATE_IF_NOEXIST | modeFlag(mode),
                "ip link set dev " + device.toString() + " " + modeWord(mode) + " fd " + std::to_string(progFd));
}

Request XdpRequests::replace(const Ifref& device, int progFd, int expectedFd, XdpMode mode) {
  return setXdp(device, progFd, expectedFd, XDP_FLAGS_REPLACE | modeFlag(mode),
                "ip -force link set dev " + device.toString() + " " + modeWord(mode) + " fd " + std::to_string(progFd) +
                    " (replacing fd " + std::to_string(expectedFd) + ")");
}

Request XdpRequests::detach(const Ifref& device, XdpMode mode) {
  return setXdp(device, -1, std::nullopt, modeFlag(mode), "ip link set dev " + device.toString() + " " + modeWord(mode) + " off");
}

Request XdpRequests::get(const Ifref& device) {
  core::MessageWriter w(RTM_GETLINK, 0);
  putDevice(w, device);
  // Only what the status needs: no statistics.
  w.putU32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  return w.toRequest("ip -d link show dev " + device.toString());
}

XdpApi& Netlink::xdp() { return lazy(xdp_); }

XdpStatus XdpApi::status(const Ifref& device) {
  Request r = XdpRequests::get(device);
  XdpStatus s;
  engine_.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) { s = rtnl::decodeXdpStatus(m); });
  return s;
}

// attach() and replace() take a loaded XdpProgram: they live with it in xdp_program.cpp (the
// `xdp` component, which links libbpf), so that the core library never references libbpf.

void XdpApi::detach(const Ifref& device, const XdpAttachOptions& options) {
  if (options.mode != XdpMode::Auto) {
    engine_.execute(XdpRequests::detach(device, options.mode));
    return;
  }
  // "Off" without a mode means whatever is attached: the kernel alone would pick the driver
  // hook and leave a generic program in place.
  XdpStatus s = status(device);
  if (s.genericProgId) engine_.execute(XdpRequests::detach(device, XdpMode::Generic));
  if (s.nativeProgId) engine_.execute(XdpRequests::detach(device, XdpMode::Native));
  if (s.offloadProgId) engine_.execute(XdpRequests::detach(device, XdpMode::Offload));
}

}  // namespace fastlink
