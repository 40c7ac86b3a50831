// Multicast routes: RTM_GETROUTE dumps of RTNL_FAMILY_IPMR / RTNL_FAMILY_IP6MR (rtmsg, RTA_SRC,
// RTA_DST, RTA_IIF, RTA_MULTIPATH as rtnexthops with the TTL threshold in rtnh_hops,
// RTA_MFC_STATS, RTA_EXPIRES), over the Netlink's rtnetlink socket.
#include "fastlink/mroute.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/attr_fields.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/dump_all.hpp"
#include "rtnl/route_codec.hpp"

namespace fastlink {
namespace {

[[noreturn]] void malformed(const char* why) { throw Error(make_error_code(Errc::malformed_reply), "mroute show", why); }

}  // namespace

Request MrouteRequests::list(MrouteFamily family, std::optional<uint32_t> table) {
  core::MessageWriter w(RTM_GETROUTE, NLM_F_DUMP);
  w.putHeader<rtmsg>().rtm_family = static_cast<uint8_t>(family);
  if (table) w.putU32(RTA_TABLE, *table);
  return Request(w.release(), "mroute show");
}

MrouteInfo decodeMroute(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(rtmsg))) malformed("shorter than rtmsg");
  const auto* r = static_cast<const rtmsg*>(NLMSG_DATA(m));
  MrouteInfo e;
  e.family = r->rtm_family;
  e.type = r->rtm_type;
  e.flags = r->rtm_flags;
  e.table = r->rtm_table;
  core::AttrTable a = core::AttrTable::ofMessage(m, sizeof(rtmsg), RTA_MAX);
  if (const nlattr* v = a.get(RTA_TABLE)) e.table = core::readU32(v);
  if (const nlattr* v = a.get(RTA_SRC)) e.source = core::readAddress(v, 0, "mroute source");
  if (const nlattr* v = a.get(RTA_DST)) e.group = core::readAddress(v, 0, "mroute group");
  if (const nlattr* v = a.get(RTA_IIF)) e.iif = core::readU32(v);
  if (const nlattr* v = a.get(RTA_MULTIPATH)) {
    // ip stops at a record that does not fit: so does this (what came before it is kept).
    rtnl::forEachNexthop(core::readBytes(v), [&](const rtnexthop& nh, std::span<const uint8_t>) {
      e.oifs.push_back(MrouteOif{.ifindex = static_cast<uint32_t>(nh.rtnh_ifindex), .ttl = nh.rtnh_hops});
    });
  }
  if (const nlattr* v = a.get(RTA_MFC_STATS)) {
    auto s = rtnl::readWhole<rta_mfc_stats>(v, "mroute show", "RTA_MFC_STATS shorter than its struct");
    e.stats = MrouteStats{.packets = s.mfcs_packets, .bytes = s.mfcs_bytes, .wrongIf = s.mfcs_wrong_if};
  }
  if (const nlattr* v = a.get(RTA_EXPIRES)) e.lastUse = core::readU64(v);
  return e;
}

std::vector<MrouteInfo> MrouteApi::list(MrouteFamily family, std::optional<uint32_t> table) {
  return rtnl::dumpAll(engine_, MrouteRequests::list(family, table), RTM_NEWROUTE, decodeMroute);
}

MrouteApi& Netlink::multicastRoutes() { return lazy(multicastRoutes_); }

}  // namespace fastlink
