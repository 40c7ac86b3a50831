#include "rtnl/bridge_vlan_codec.hpp"

#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/error.hpp"

namespace fastlink::rtnl {
namespace {

constexpr uint16_t kMinVid = 1;
constexpr uint16_t kMaxVid = 4094;  // 0 and 4095 are reserved by 802.1Q

Error invalid(const std::string& operation, const std::string& why) { return Error::invalidArgument(operation, why); }

void putVlanInfo(core::MessageWriter& w, uint16_t flags, uint16_t vid) {
  bridge_vlan_info info{};
  info.flags = flags;
  info.vid = vid;
  w.putBytes(IFLA_BRIDGE_VLAN_INFO, {reinterpret_cast<const uint8_t*>(&info), sizeof info});
}

}  // namespace

std::string describeBridgeVlan(const char* verb, const BridgeVlanInfo& v) {
  std::string s = std::string("vlan ") + verb;
  if (v.vid) s += " vid " + std::to_string(*v.vid) + (v.vidEnd ? "-" + std::to_string(*v.vidEnd) : "");
  if (v.dev) s += " dev " + (v.dev->isName() ? v.dev->name() : std::to_string(v.dev->index()));
  if (v.pvid.value_or(false)) s += " pvid";
  if (v.untagged.value_or(false)) s += " untagged";
  if (v.master.value_or(false)) s += " master";
  if (v.self.value_or(false)) s += " self";
  return s;
}

void encodeBridgeVlan(core::MessageWriter& w, const BridgeVlanInfo& v, bool del) {
  std::string operation = describeBridgeVlan(del ? "del" : "add", v);
  if (!v.dev) throw invalid(operation, "a VLAN needs a device (dev DEV)");
  if (v.dev->isName())
    throw invalid(operation, "device \"" + v.dev->name() + "\" must be resolved to an ifindex first (BridgeVlanApi does this)");
  if (v.dev->index() == 0 || v.dev->index() > INT32_MAX) throw invalid(operation, "invalid ifindex");
  if (!v.vid) throw invalid(operation, "a VLAN needs a vid");
  auto checkVid = [&](uint16_t vid) {
    if (vid < kMinVid || vid > kMaxVid)
      throw invalid(operation, "vid " + std::to_string(vid) + " out of range (1-4094)");
  };
  checkVid(*v.vid);
  bool range = v.vidEnd && *v.vidEnd != *v.vid;
  if (v.vidEnd) {
    checkVid(*v.vidEnd);
    if (*v.vidEnd < *v.vid)
      throw invalid(operation, "vid range " + std::to_string(*v.vid) + "-" + std::to_string(*v.vidEnd) + " is empty");
  }
  if (range && v.pvid.value_or(false)) throw invalid(operation, "a range of VLANs cannot be the pvid");
  if (del && (v.pvid || v.untagged)) throw invalid(operation, "a delete names VLANs only (no pvid/untagged)");

  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_BRIDGE;
  ifi.ifi_index = static_cast<int>(v.dev->index());
  std::size_t spec = w.beginNest(IFLA_AF_SPEC);
  uint16_t bridgeFlags = 0;
  if (v.master.value_or(false)) bridgeFlags |= BRIDGE_FLAGS_MASTER;
  if (v.self.value_or(false)) bridgeFlags |= BRIDGE_FLAGS_SELF;
  if (bridgeFlags) w.putU16(IFLA_BRIDGE_FLAGS, bridgeFlags);
  uint16_t flags = 0;
  if (v.pvid.value_or(false)) flags |= BRIDGE_VLAN_INFO_PVID;
  if (v.untagged.value_or(false)) flags |= BRIDGE_VLAN_INFO_UNTAGGED;
  if (range) {
    putVlanInfo(w, flags | BRIDGE_VLAN_INFO_RANGE_BEGIN, *v.vid);
    putVlanInfo(w, flags | BRIDGE_VLAN_INFO_RANGE_END, *v.vidEnd);
  } else {
    putVlanInfo(w, flags, *v.vid);
  }
  w.endNest(spec);
}

void encodeBridgeVlanDump(core::MessageWriter& w, bool compressed) {
  // Strict checking: the header stays zero but for the family, and IFLA_EXT_MASK is the only
  // attribute the kernel accepts here (so there is no device filter).
  w.putHeader<ifinfomsg>().ifi_family = AF_BRIDGE;
  w.putU32(IFLA_EXT_MASK, compressed ? RTEXT_FILTER_BRVLAN_COMPRESSED : RTEXT_FILTER_BRVLAN);
}

std::vector<BridgeVlanInfo> decodeBridgeVlans(const nlmsghdr* message) {
  const auto* ifi = core::messageHeader<ifinfomsg>(message);
  auto malformed = [](const std::string& why) { return Error(make_error_code(Errc::malformed_reply), "decode bridge vlan", why); };
  if (!ifi) throw malformed("short link message");
  core::AttrTable t = core::AttrTable::ofMessage(message, sizeof(ifinfomsg), IFLA_MAX);
  std::vector<BridgeVlanInfo> out;
  const nlattr* spec = t.get(IFLA_AF_SPEC);
  if (!spec) return out;
  BridgeVlanInfo base;
  base.dev = Ifref(static_cast<uint32_t>(ifi->ifi_index));
  if (auto* a = t.get(IFLA_IFNAME)) base.devName = core::readString(a);
  if (auto* a = t.get(IFLA_MASTER)) base.masterDev = core::readU32(a);
  bool inRange = false;
  uint16_t rangeStart = 0;
  core::AttrTable nested = core::AttrTable::ofNest(spec, IFLA_BRIDGE_MAX);
  for (const nlattr* a : nested.all()) {
    if (core::attrType(a) != IFLA_BRIDGE_VLAN_INFO) continue;
    auto bytes = core::readBytes(a);
    if (bytes.size() < sizeof(bridge_vlan_info)) throw malformed("short IFLA_BRIDGE_VLAN_INFO");
    bridge_vlan_info info;
    std::memcpy(&info, bytes.data(), sizeof info);
    if (info.flags & BRIDGE_VLAN_INFO_RANGE_BEGIN) {
      inRange = true;
      rangeStart = info.vid;
      continue;
    }
    BridgeVlanInfo v = base;
    uint16_t flags = info.flags & ~(BRIDGE_VLAN_INFO_RANGE_BEGIN | BRIDGE_VLAN_INFO_RANGE_END);
    if (info.flags & BRIDGE_VLAN_INFO_RANGE_END) {
      if (!inRange) throw malformed("VLAN range end without a beginning");
      v.vid = rangeStart;
      v.vidEnd = info.vid;
      inRange = false;
    } else {
      v.vid = info.vid;
    }
    v.flags = flags;
    v.pvid = (flags & BRIDGE_VLAN_INFO_PVID) != 0;
    v.untagged = (flags & BRIDGE_VLAN_INFO_UNTAGGED) != 0;
    v.brentry = (flags & BRIDGE_VLAN_INFO_BRENTRY) != 0;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fastlink::rtnl
