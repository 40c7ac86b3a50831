// Bridge FDB: the codec (FdbInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH of AF_BRIDGE), the
// request builders, and the kernel-backed FdbApi over the kit.
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "fastlink/fdb.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/fdb_codec.hpp"
#include "rtnl/kit.hpp"

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
  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = AF_BRIDGE;
  ndm.ndm_ifindex = static_cast<int32_t>(ifindex);
  if (!del) ndm.ndm_state = nudOf(state);
  uint8_t flags = 0;
  if (master) flags |= NTF_MASTER;
  if (self) flags |= NTF_SELF;
  if (e.sticky.value_or(false)) flags |= NTF_STICKY;
  if (e.externLearn.value_or(false)) flags |= NTF_EXT_LEARNED;
  if (e.router.value_or(false)) flags |= NTF_ROUTER;
  ndm.ndm_flags = flags;
  // Attribute order as bridge(8) sends them.
  w.putBytes(NDA_LLADDR, e.mac->bytes());
  if (e.dst) w.putBytes(NDA_DST, e.dst->bytes());
  if (e.vlan) w.putU16(NDA_VLAN, *e.vlan);
  if (e.port) w.putBe16(NDA_PORT, *e.port);
  if (e.vni) w.putU32(NDA_VNI, *e.vni);
  if (e.srcVni) w.putU32(NDA_SRC_VNI, *e.srcVni);
  if (e.via) w.putU32(NDA_IFINDEX, requireIndex(*e.via, "via", true));
  return w.toRequest(lazily(verb, e, describe));
}

void encodeFdbDump(core::MessageWriter& w, uint32_t bridge, uint32_t dev) {
  // Strict checking: only ndm_ifindex may be set in the header, only NDA_MASTER/NDA_IFINDEX follow.
  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = AF_BRIDGE;
  ndm.ndm_ifindex = static_cast<int32_t>(dev);
  if (bridge) w.putU32(NDA_MASTER, bridge);
}

FdbInfo decodeFdb(const nlmsghdr* message) {
  const auto& ndm = headerOf<ndmsg>(message, "fdb");
  FdbInfo e;
  e.dev = Ifref(static_cast<uint32_t>(ndm.ndm_ifindex));
  e.flags = ndm.ndm_flags;
  e.nudState = ndm.ndm_state;
  e.self = (ndm.ndm_flags & NTF_SELF) != 0;
  e.master = (ndm.ndm_flags & NTF_MASTER) != 0;
  e.sticky = (ndm.ndm_flags & NTF_STICKY) != 0;
  e.externLearn = (ndm.ndm_flags & NTF_EXT_LEARNED) != 0;
  e.router = (ndm.ndm_flags & NTF_ROUTER) != 0;
  e.offloaded = (ndm.ndm_flags & NTF_OFFLOADED) != 0;
  if (ndm.ndm_state & NUD_PERMANENT) e.state = FdbState::Permanent;
  else if (ndm.ndm_state & NUD_NOARP) e.state = FdbState::Static;
  else if (ndm.ndm_state & NUD_STALE) e.state = FdbState::Stale;
  else e.state = FdbState::Dynamic;
  forEachAttr(attrsOf(message, sizeof(ndmsg)), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case NDA_LLADDR: e.mac = MacAddress(core::readBytes(a)); break;
      case NDA_DST: e.dst = readAddress(a, 0, "decode fdb"); break;
      case NDA_VLAN: e.vlan = core::readU16(a); break;
      case NDA_PORT: e.port = core::readBe16(a); break;
      case NDA_VNI: e.vni = core::readU32(a); break;
      case NDA_SRC_VNI: e.srcVni = core::readU32(a); break;
      case NDA_IFINDEX: e.via = Ifref(core::readU32(a)); break;
      case NDA_MASTER: e.masterDev = core::readU32(a); break;
      case NDA_CACHEINFO: {
        auto ci = readExact<nda_cacheinfo>(a, "decode fdb");
        e.usedAgo = ci.ndm_used, e.updatedAgo = ci.ndm_updated;
        break;
      }
      default: e.unknown.append(core::attrType(a), core::readBytes(a));
    }
  });
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
