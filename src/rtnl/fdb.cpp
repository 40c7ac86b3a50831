// Bridge FDB: the codec (FdbInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH of AF_BRIDGE), the
// request builders, and the kernel-backed FdbApi over the kit.
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/fdb.hpp"
#include "fastlink/netlink.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/fdb_codec.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/neigh_codec.hpp"

namespace fastlink::rtnl {
namespace {

constexpr uint32_t kMaxVni = 0xffffff;  // 24 bits

// bridge(8): permanent = NOARP|PERMANENT, static = NOARP|REACHABLE, dynamic = REACHABLE.
uint16_t nudOf(FdbState state) {
  switch (state) {
    case FdbState::Permanent: return NUD_NOARP | NUD_PERMANENT;
    case FdbState::Static: return NUD_NOARP | NUD_REACHABLE;
    case FdbState::Dynamic: return NUD_REACHABLE;
    case FdbState::Stale: break;
  }
  return 0;
}

// The simple attributes, in the order bridge(8) sends them.
constexpr FieldTable kFields({
    field<NDA_LLADDR, &FdbInfo::mac>(),
    field<NDA_DST, &FdbInfo::dst>(),
    field<NDA_VLAN, &FdbInfo::vlan>(),
    field<NDA_PORT, &FdbInfo::port, Wire::Be16>(),
    field<NDA_VNI, &FdbInfo::vni>(),
    field<NDA_SRC_VNI, &FdbInfo::srcVni>(),
    field<NDA_IFINDEX, &FdbInfo::via>("via", true),
    field<NDA_MASTER, &FdbInfo::masterDev, Wire::Reported>(),
});

// The NTF_* bits an entry has as members (NTF_OFFLOADED is only reported).
constexpr FlagBit<FdbInfo> kFlagBits[] = {
    {NTF_MASTER, &FdbInfo::master}, {NTF_SELF, &FdbInfo::self}, {NTF_STICKY, &FdbInfo::sticky},
    {NTF_EXT_LEARNED, &FdbInfo::externLearn}, {NTF_ROUTER, &FdbInfo::router}};

std::string describe(Verb verb, const FdbInfo& e) {
  std::string s = std::string("fdb ") + verbWord(verb);
  if (e.mac) s += " " + e.mac->toString();
  if (e.dev) s += " dev " + devWord(*e.dev);
  if (e.master.value_or(false)) s += " master";
  if (e.self.value_or(false)) s += " self";
  if (e.state) s += " " + (*e.state == FdbState::Dynamic ? std::string("dynamic") : fdbStateName(*e.state));
  if (e.vlan) s += " vlan " + std::to_string(*e.vlan);
  if (e.dst) s += " dst " + e.dst->toString();
  if (e.port) s += " port " + std::to_string(*e.port);
  if (e.vni) s += " vni " + std::to_string(*e.vni);
  if (e.srcVni) s += " src_vni " + std::to_string(*e.srcVni);
  return s;
}

}  // namespace

Request encodeFdb(const FdbInfo& e, Verb verb) {
  auto operation = [&] { return describe(verb, e); };
  bool del = verb == Verb::Del;
  if (!e.mac) throw invalid(operation, "an fdb entry needs a MAC address");
  if (e.mac->size() != 6) throw invalid(operation, "an fdb MAC address has 6 bytes");
  if (!e.dev) throw invalid(operation, "an fdb entry needs a device (dev DEV)");
  uint32_t ifindex = requireIndex(*e.dev, "dev", true);
  if (e.vlan && (*e.vlan < 1 || *e.vlan > 4094))
    throw invalid(operation, "vlan " + std::to_string(*e.vlan) + " out of range (1-4094)");
  if (e.vni && *e.vni > kMaxVni) throw invalid(operation, "vni " + std::to_string(*e.vni) + " out of range (0-16777215)");
  if (e.srcVni && *e.srcVni > kMaxVni)
    throw invalid(operation, "src_vni " + std::to_string(*e.srcVni) + " out of range (0-16777215)");
  if (e.state == FdbState::Stale) throw invalid(operation, "stale is reported by the kernel, not set");
  FdbState state = e.state.value_or(FdbState::Permanent);
  if (!del && e.sticky.value_or(false) && state == FdbState::Permanent)
    throw invalid(operation, "a sticky entry cannot be permanent (use static or dynamic)");
  bool master = e.master.value_or(false);
  bool self = e.self.value_or(false) || !master;  // like bridge(8): self unless master is asked
  bool remote = e.dst || e.port || e.vni || e.srcVni || e.via;
  if (remote && !self) throw invalid(operation, "dst/port/vni/src_vni/via belong to a vxlan device's own table (self), not to a bridge (master)");
  if (verb == Verb::Append && !e.dst) throw invalid(operation, "append adds a remote destination: it needs dst");

  core::MessageWriter w(messageType(verb, RTM_NEWNEIGH), createFlags(verb));
  auto& ndm = putNdmsg(w, AF_BRIDGE, ifindex);
  if (!del) ndm.ndm_state = nudOf(state);
  ndm.ndm_flags = static_cast<uint8_t>(encodeBits(e, kFlagBits) | (self ? NTF_SELF : 0));
  kFields.encode(w, e);
  return w.toRequest(lazily(verb, e, describe));
}

void encodeFdbDump(core::MessageWriter& w, uint32_t bridge, uint32_t dev) {
  // Strict checking: only ndm_ifindex may be set in the header, only NDA_MASTER/NDA_IFINDEX follow.
  putNdmsg(w, AF_BRIDGE, dev);
  if (bridge) w.putU32(NDA_MASTER, bridge);
}

FdbInfo decodeFdb(const nlmsghdr* message) {
  FdbInfo e;
  const auto& ndm = decodeNdmsg(message, "fdb", "decode fdb", e, kFields, kFlagBits, [&](const nda_cacheinfo& ci) {
    e.usedAgo = ci.ndm_used, e.updatedAgo = ci.ndm_updated;
  });
  e.nudState = ndm.ndm_state;
  e.offloaded = (ndm.ndm_flags & NTF_OFFLOADED) != 0;
  if (ndm.ndm_state & NUD_PERMANENT) e.state = FdbState::Permanent;
  else if (ndm.ndm_state & NUD_NOARP) e.state = FdbState::Static;
  else if (ndm.ndm_state & NUD_STALE) e.state = FdbState::Stale;
  else e.state = FdbState::Dynamic;
  return e;
}

}  // namespace fastlink::rtnl

namespace fastlink {

std::string fdbStateName(FdbState state) {
  switch (state) {
    case FdbState::Permanent: return "permanent";
    case FdbState::Static: return "static";
    case FdbState::Dynamic: return "";
    case FdbState::Stale: return "stale";
  }
  return "";
}

namespace {

struct Traits : rtnl::Object<FdbInfo, FdbFilter, RTM_NEWNEIGH, rtnl::familyBit(AF_BRIDGE)> {
  static constexpr const char* kNoun = "fdb";
  static void devices(auto& e, auto&& visit) {
    visit(e.dev);
    visit(e.via);
  }
  static void encodeDump(core::MessageWriter& w, const Filter&, const rtnl::Indexes& ix) { rtnl::encodeFdbDump(w, ix.master, ix.dev); }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { out = rtnl::decodeFdb(m); }
  static bool matches(const Info& e, const Filter& f, const rtnl::Indexes&) { return !f.vlan || e.vlan == f.vlan; }
  static std::string show(const Filter& f) {
    return std::string("fdb show") + (f.bridge ? " br " + f.bridge->toString() : "") + (f.dev ? " dev " + f.dev->toString() : "");
  }
};

}  // namespace

FdbApi& Netlink::fdb() { return lazy(fdb_); }

FASTLINK_RTNL_VERB(Fdb, add, Add, encodeFdb)
FASTLINK_RTNL_VERB(Fdb, append, Append, encodeFdb)
FASTLINK_RTNL_VERB(Fdb, replace, Replace, encodeFdb)
FASTLINK_RTNL_VERB(Fdb, del, Del, encodeFdb)

FASTLINK_RTNL_LIST_API(FdbApi, Traits)

}  // namespace fastlink
