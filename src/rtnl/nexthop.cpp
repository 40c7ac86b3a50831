// Nexthop objects: the codec (NexthopInfo <-> RTM_NEWNEXTHOP/RTM_DELNEXTHOP/RTM_GETNEXTHOP),
// the request builders, and the kernel-backed NexthopApi over the kit.
#include <sys/socket.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <cstddef>
#include <cstring>

#include "fastlink/netlink.hpp"
#include "fastlink/nexthop.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/nexthop_codec.hpp"

namespace fastlink::rtnl {
namespace {

// The simple attributes, in the order iproute2 sends them; NHA_GROUP (never with any of them
// but the id) follows.
constexpr FieldTable kFields({
    field<NHA_ID, &NexthopInfo::id>(),
    field<NHA_BLACKHOLE, &NexthopInfo::blackhole, Wire::Flag>(),
    field<NHA_OIF, &NexthopInfo::dev>("dev"),
    field<NHA_GATEWAY, &NexthopInfo::gateway>(),
    field<NHA_FDB, &NexthopInfo::fdb, Wire::Flag>(),
});

std::string describe(Verb verb, const NexthopInfo& n) {
  std::string s = std::string("nexthop ") + verbWord(verb);
  if (n.id) s += " id " + std::to_string(*n.id);
  if (n.isGroup()) {
    s += " group ";
    for (std::size_t i = 0; i < n.group.size(); ++i) {
      if (i) s += "/";
      s += std::to_string(n.group[i].id);
      if (n.group[i].weight != 1) s += "," + std::to_string(n.group[i].weight);
    }
  }
  if (n.gateway) s += " via " + n.gateway->toString();
  if (n.dev) s += " dev " + devWord(*n.dev);
  if (n.blackhole) s += " blackhole";
  return s;
}

}  // namespace

Request encodeNexthop(const NexthopInfo& n, Verb verb) {
  auto bad = [&](const std::string& why) { return invalid(describe(verb, n), why); };
  if (verb == Verb::Del) {
    if (!n.id || *n.id == 0) throw bad("nexthop id 0 is not valid");
    core::MessageWriter w(RTM_DELNEXTHOP, 0);
    w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
    w.putU32(NHA_ID, *n.id);
    return w.toRequest(lazily(verb, n, describe));
  }
  if (verb == Verb::Replace && !n.id) throw bad("replace needs the id of the nexthop");
  if (n.id && *n.id == 0) throw bad("nexthop id 0 is not valid (leave the id unset to let the kernel pick one)");
  if (n.isGroup()) {
    if (n.gateway || n.dev || n.blackhole || n.onlink)
      throw bad("a group nexthop cannot also have via, dev, blackhole or onlink");
    for (const auto& m : n.group) {
      if (m.id == 0) throw bad("group member id 0 is not valid");
      if (m.weight < 1 || m.weight > 256)
        throw bad("group member " + std::to_string(m.id) + ": weight " + std::to_string(m.weight) + " is out of range (1-256)");
    }
  } else {
    if (n.blackhole && (n.gateway || n.dev || n.fdb)) throw bad("a blackhole nexthop cannot have via, dev or fdb");
    if (!n.blackhole && !n.gateway && !n.dev) throw bad("a nexthop needs via, dev, blackhole or group");
    if (n.fdb && n.dev) throw bad("an fdb nexthop cannot have a device");
    if (n.gateway && n.family && *n.family != n.gateway->family()) throw bad("gateway is not of the nexthop's family");
  }
  core::MessageWriter w(RTM_NEWNEXTHOP, createFlags(verb));
  auto& nhm = w.putHeader<nhmsg>();
  if (n.isGroup()) nhm.nh_family = AF_UNSPEC;
  else if (n.gateway) nhm.nh_family = familyOf(n.gateway->family());
  else nhm.nh_family = familyOf(n.family.value_or(IpAddress::Family::v4));
  nhm.nh_protocol = static_cast<uint8_t>(n.protocol.value_or(RouteProtocol::Unspec));
  nhm.nh_flags = n.onlink ? RTNH_F_ONLINK : 0;
  kFields.encode(w, n);
  if (n.isGroup()) {
    std::vector<nexthop_grp> grp(n.group.size());
    for (std::size_t i = 0; i < n.group.size(); ++i) {
      std::memset(&grp[i], 0, sizeof grp[i]);
      grp[i].id = n.group[i].id;
      grp[i].weight = static_cast<uint8_t>(n.group[i].weight - 1);
    }
    w.putBytes(NHA_GROUP, {reinterpret_cast<const uint8_t*>(grp.data()), grp.size() * sizeof(nexthop_grp)});
  }
  return w.toRequest(lazily(verb, n, describe));
}

void encodeNexthopGet(core::MessageWriter& w, uint32_t id) {
  if (id == 0) throw invalid("nexthop get id 0", "nexthop id 0 is not valid");
  w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
  w.putU32(NHA_ID, id);
}

void encodeNexthopDump(core::MessageWriter& w, const NexthopFilter& filter, uint32_t oif) {
  w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
  if (oif) w.putU32(NHA_OIF, oif);
  if (filter.groupsOnly) w.putFlag(NHA_GROUPS);
  if (filter.fdbOnly) w.putFlag(NHA_FDB);
}

namespace {

void decodeGroup(const nlattr* a, std::vector<NexthopGroupMember>& group) {
  auto b = core::readBytes(a);
  if (b.size() % sizeof(nexthop_grp) != 0) throw malformed("decode nexthop", "NHA_GROUP is not an array of nexthop_grp");
  for (std::size_t at = 0; at < b.size(); at += sizeof(nexthop_grp)) {
    nexthop_grp g;
    std::memcpy(&g, b.data() + at, sizeof g);
    // Kernels from 6.12 carry the high byte of (weight - 1) in the byte after weight
    // (resvd1 in older headers, weight_high in newer ones: read it by offset).
    uint8_t high = b[at + offsetof(nexthop_grp, weight) + 1];
    group.push_back({g.id, static_cast<uint16_t>(((high << 8) | g.weight) + 1)});
  }
}

}  // namespace

NexthopInfo decodeNexthop(const nlmsghdr* m) {
  const auto& nhm = headerOf<nhmsg>(m, "nexthop");
  NexthopInfo n;
  if (nhm.nh_family == AF_INET) n.family = IpAddress::Family::v4;
  if (nhm.nh_family == AF_INET6) n.family = IpAddress::Family::v6;
  n.scope = static_cast<Scope>(nhm.nh_scope);
  n.protocol = static_cast<RouteProtocol>(nhm.nh_protocol);
  n.flags = nhm.nh_flags;
  n.onlink = (nhm.nh_flags & RTNH_F_ONLINK) != 0;
  kFields.decodeAll(attrsOf(m, sizeof(nhmsg)), n, {"decode nexthop"}, [&](const nlattr* a) {
    if (core::attrType(a) != NHA_GROUP) return false;
    decodeGroup(a, n.group);
    return true;
  });
  return n;
}

}  // namespace fastlink::rtnl

namespace fastlink {
namespace {

struct Traits : rtnl::Object<NexthopInfo, NexthopFilter, RTM_NEWNEXTHOP> {
  static constexpr const char* kNoun = "nexthop";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) { rtnl::encodeNexthopDump(w, f, ix.dev); }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { out = rtnl::decodeNexthop(m); }
  // The kernel filtered (strict checking); the same checks here cost nothing.
  static bool matches(const Info& n, const Filter& f, const rtnl::Indexes& ix) {
    return (!ix.dev || n.devIndex() == ix.dev) && (!f.groupsOnly || n.isGroup()) && (!f.fdbOnly || n.fdb);
  }
};

}  // namespace

NexthopApi& Netlink::nexthops() { return lazy(nexthops_); }

FASTLINK_RTNL_VERB(Nexthop, add, Add, encodeNexthop)
FASTLINK_RTNL_VERB(Nexthop, replace, Replace, encodeNexthop)

Request NexthopRequests::del(uint32_t id) { return rtnl::encodeNexthop(NexthopInfo().setId(id), rtnl::Verb::Del); }
void NexthopApi::del(uint32_t id) { rtnl::send(engine_, NexthopRequests::del(id)); }

NexthopInfo NexthopApi::get(uint32_t id) {
  core::MessageWriter w(RTM_GETNEXTHOP, 0);
  rtnl::encodeNexthopGet(w, id);
  return rtnl::get<Traits>(engine_, w, "nexthop get id " + std::to_string(id));
}

FASTLINK_RTNL_LIST_API(NexthopApi, Traits)

}  // namespace fastlink
