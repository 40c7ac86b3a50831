// Bridge VLANs: the codec (BridgeVlanInfo <-> RTM_SETLINK/RTM_DELLINK with IFLA_AF_SPEC, and the
// VLAN dump), the request builders, and the kernel-backed BridgeVlanApi over the kit.
#include <sys/socket.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/bridge_vlan.hpp"
#include "fastlink/netlink.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/bridge_vlan_codec.hpp"
#include "rtnl/kit.hpp"

namespace fastlink::rtnl {
namespace {

constexpr uint16_t kMinVid = 1;
constexpr uint16_t kMaxVid = 4094;  // 0 and 4095 are reserved by 802.1Q

// Which table a change is for (the bridge's own, a port's) and the VLAN's own flags.
constexpr FlagBit<BridgeVlanInfo> kBridgeFlags[] = {{BRIDGE_FLAGS_MASTER, &BridgeVlanInfo::master},
                                                    {BRIDGE_FLAGS_SELF, &BridgeVlanInfo::self}};
constexpr FlagBit<BridgeVlanInfo> kVlanFlags[] = {{BRIDGE_VLAN_INFO_PVID, &BridgeVlanInfo::pvid},
                                                  {BRIDGE_VLAN_INFO_UNTAGGED, &BridgeVlanInfo::untagged}};

void putVlanInfo(core::MessageWriter& w, uint16_t flags, uint16_t vid) { putStruct(w, IFLA_BRIDGE_VLAN_INFO, bridge_vlan_info{flags, vid}); }

std::string describe(Verb verb, const BridgeVlanInfo& v) {
  std::string s = std::string("vlan ") + verbWord(verb);
  if (v.vid) s += " vid " + std::to_string(*v.vid) + (v.vidEnd ? "-" + std::to_string(*v.vidEnd) : "");
  if (v.dev) s += " dev " + devWord(*v.dev);
  if (v.pvid.value_or(false)) s += " pvid";
  if (v.untagged.value_or(false)) s += " untagged";
  if (v.master.value_or(false)) s += " master";
  if (v.self.value_or(false)) s += " self";
  return s;
}

}  // namespace

Request encodeBridgeVlan(const BridgeVlanInfo& v, Verb verb) {
  auto operation = [&] { return describe(verb, v); };
  if (!v.dev) throw invalid(operation, "a VLAN needs a device (dev DEV)");
  uint32_t ifindex = requireIndex(*v.dev, "dev", true);
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
  if (verb == Verb::Del && (v.pvid || v.untagged)) throw invalid(operation, "a delete names VLANs only (no pvid/untagged)");

  core::MessageWriter w(verb == Verb::Del ? RTM_DELLINK : RTM_SETLINK, 0);
  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_BRIDGE;
  ifi.ifi_index = static_cast<int>(ifindex);
  std::size_t spec = w.beginNest(IFLA_AF_SPEC);
  if (auto bridgeFlags = static_cast<uint16_t>(encodeBits(v, kBridgeFlags))) w.putU16(IFLA_BRIDGE_FLAGS, bridgeFlags);
  auto flags = static_cast<uint16_t>(encodeBits(v, kVlanFlags));
  if (range) {
    putVlanInfo(w, flags | BRIDGE_VLAN_INFO_RANGE_BEGIN, *v.vid);
    putVlanInfo(w, flags | BRIDGE_VLAN_INFO_RANGE_END, *v.vidEnd);
  } else {
    putVlanInfo(w, flags, *v.vid);
  }
  w.endNest(spec);
  return w.toRequest(lazily(verb, v, describe));
}

void encodeBridgeVlanDump(core::MessageWriter& w, bool compressed) {
  // Strict checking: the header stays zero but for the family, and IFLA_EXT_MASK is the only
  // attribute the kernel accepts here (so there is no device filter).
  w.putHeader<ifinfomsg>().ifi_family = AF_BRIDGE;
  w.putU32(IFLA_EXT_MASK, compressed ? RTEXT_FILTER_BRVLAN_COMPRESSED : RTEXT_FILTER_BRVLAN);
}

std::vector<BridgeVlanInfo> decodeBridgeVlans(const nlmsghdr* message) {
  const auto& ifi = headerOf<ifinfomsg>(message, "bridge vlan");
  auto bad = [](const std::string& why) { return malformed("decode bridge vlan", why); };
  core::AttrTable t = core::AttrTable::ofMessage(message, sizeof(ifinfomsg), IFLA_MAX);
  std::vector<BridgeVlanInfo> out;
  const nlattr* spec = t.get(IFLA_AF_SPEC);
  if (!spec) return out;
  BridgeVlanInfo base;
  base.dev = Ifref(static_cast<uint32_t>(ifi.ifi_index));
  if (auto* a = t.get(IFLA_IFNAME)) base.devName = core::readString(a);
  if (auto* a = t.get(IFLA_MASTER)) base.masterDev = core::readU32(a);
  bool inRange = false;
  uint16_t rangeStart = 0;
  core::AttrTable nested = core::AttrTable::ofNest(spec, IFLA_BRIDGE_MAX);
  for (const nlattr* a : nested.all()) {
    if (core::attrType(a) != IFLA_BRIDGE_VLAN_INFO) continue;
    auto info = readExact<bridge_vlan_info>(a, "decode bridge vlan");
    if (info.flags & BRIDGE_VLAN_INFO_RANGE_BEGIN) {
      inRange = true;
      rangeStart = info.vid;
      continue;
    }
    BridgeVlanInfo v = base;
    uint16_t flags = info.flags & ~(BRIDGE_VLAN_INFO_RANGE_BEGIN | BRIDGE_VLAN_INFO_RANGE_END);
    if (info.flags & BRIDGE_VLAN_INFO_RANGE_END) {
      if (!inRange) throw bad("VLAN range end without a beginning");
      v.vid = rangeStart;
      v.vidEnd = info.vid;
      inRange = false;
    } else {
      v.vid = info.vid;
    }
    v.flags = flags;
    decodeBits(flags, v, kVlanFlags);
    v.brentry = (flags & BRIDGE_VLAN_INFO_BRENTRY) != 0;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fastlink::rtnl

namespace fastlink {
namespace {

struct Traits : rtnl::Object<BridgeVlanInfo, BridgeVlanFilter, RTM_NEWLINK, rtnl::familyBit(AF_BRIDGE)> {
  static constexpr const char* kNoun = "vlan";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes&) { rtnl::encodeBridgeVlanDump(w, f.compressed); }
  static std::vector<Info> decodeMany(const nlmsghdr* m) { return rtnl::decodeBridgeVlans(m); }
  // The kernel has no device filter for this dump.
  static bool matches(const Info& v, const Filter&, const rtnl::Indexes& ix) { return !ix.dev || v.dev == Ifref(ix.dev); }
  static std::string show(const Filter& f) { return std::string("vlan show") + (f.dev ? " dev " + f.dev->toString() : ""); }
};

}  // namespace

BridgeVlanApi& Netlink::bridgeVlans() { return lazy(bridgeVlans_); }

FASTLINK_RTNL_VERB(BridgeVlan, add, Add, encodeBridgeVlan)
FASTLINK_RTNL_VERB(BridgeVlan, del, Del, encodeBridgeVlan)

FASTLINK_RTNL_LIST_API(BridgeVlanApi, Traits)

}  // namespace fastlink
