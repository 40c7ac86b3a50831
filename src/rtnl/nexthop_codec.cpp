#include "rtnl/nexthop_codec.hpp"

#include <sys/socket.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {
namespace {

uint8_t familyOf(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

std::string describe(const char* verb, const NexthopInfo& n) {
  std::string s = std::string("nexthop ") + verb;
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
  if (n.dev) s += " dev " + (n.dev->isName() ? n.dev->name() : std::to_string(n.dev->index()));
  if (n.blackhole) s += " blackhole";
  return s;
}

}  // namespace

Request encodeNexthop(const NexthopInfo& n, bool replace) {
  std::string operation = describe(replace ? "replace" : "add", n);
  auto bad = [&](const std::string& why) { return Error::invalidArgument(operation, why); };
  if (replace && !n.id) throw bad("replace needs the id of the nexthop");
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
  core::MessageWriter w(RTM_NEWNEXTHOP, replace ? NLM_F_CREATE | NLM_F_REPLACE : NLM_F_CREATE | NLM_F_EXCL);
  auto& nhm = w.putHeader<nhmsg>();
  if (n.isGroup()) nhm.nh_family = AF_UNSPEC;
  else if (n.gateway) nhm.nh_family = familyOf(n.gateway->family());
  else nhm.nh_family = familyOf(n.family.value_or(IpAddress::Family::v4));
  nhm.nh_protocol = static_cast<uint8_t>(n.protocol.value_or(RouteProtocol::Unspec));
  nhm.nh_flags = n.onlink ? RTNH_F_ONLINK : 0;
  if (n.id) w.putU32(NHA_ID, *n.id);
  if (n.isGroup()) {
    std::vector<nexthop_grp> grp(n.group.size());
    for (std::size_t i = 0; i < n.group.size(); ++i) {
      std::memset(&grp[i], 0, sizeof grp[i]);
      grp[i].id = n.group[i].id;
      grp[i].weight = static_cast<uint8_t>(n.group[i].weight - 1);
    }
    w.putBytes(NHA_GROUP, {reinterpret_cast<const uint8_t*>(grp.data()), grp.size() * sizeof(nexthop_grp)});
  }
  if (n.blackhole) w.putFlag(NHA_BLACKHOLE);
  if (n.dev) w.putU32(NHA_OIF, requireIndex(*n.dev, "dev"));
  if (n.gateway) w.putBytes(NHA_GATEWAY, n.gateway->bytes());
  if (n.fdb) w.putFlag(NHA_FDB);
  return w.toRequest(std::move(operation));
}

Request encodeNexthopDel(uint32_t id) {
  std::string operation = "nexthop del id " + std::to_string(id);
  if (id == 0) throw Error::invalidArgument(operation, "nexthop id 0 is not valid");
  core::MessageWriter w(RTM_DELNEXTHOP, 0);
  w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
  w.putU32(NHA_ID, id);
  return w.toRequest(std::move(operation));
}

void encodeNexthopGet(core::MessageWriter& w, uint32_t id) {
  if (id == 0) throw Error::invalidArgument("nexthop get id 0", "nexthop id 0 is not valid");
  w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
  w.putU32(NHA_ID, id);
}

void encodeNexthopDump(core::MessageWriter& w, const NexthopFilter& filter, uint32_t oif) {
  w.putHeader<nhmsg>().nh_family = AF_UNSPEC;
  if (oif) w.putU32(NHA_OIF, oif);
  if (filter.groupsOnly) w.putFlag(NHA_GROUPS);
  if (filter.fdbOnly) w.putFlag(NHA_FDB);
}

NexthopInfo decodeNexthop(const nlmsghdr* m) {
  const auto* nhm = core::messageHeader<nhmsg>(m);
  auto malformed = [](const char* why) { return Error(make_error_code(Errc::malformed_reply), "decode nexthop", why); };
  if (!nhm) throw malformed("short nexthop message");
  NexthopInfo n;
  if (nhm->nh_family == AF_INET) n.family = IpAddress::Family::v4;
  if (nhm->nh_family == AF_INET6) n.family = IpAddress::Family::v6;
  n.scope = static_cast<Scope>(nhm->nh_scope);
  n.protocol = static_cast<RouteProtocol>(nhm->nh_protocol);
  n.flags = nhm->nh_flags;
  n.onlink = (nhm->nh_flags & RTNH_F_ONLINK) != 0;
  core::AttrTable t = core::AttrTable::ofMessage(m, sizeof(nhmsg), NHA_MAX);
  for (const nlattr* a : t.all()) {
    switch (core::attrType(a)) {
      case NHA_ID: n.id = core::readU32(a); break;
      case NHA_GROUP: {
        auto b = core::readBytes(a);
        if (b.size() % sizeof(nexthop_grp) != 0) throw malformed("NHA_GROUP is not an array of nexthop_grp");
        for (std::size_t at = 0; at < b.size(); at += sizeof(nexthop_grp)) {
          nexthop_grp g;
          std::memcpy(&g, b.data() + at, sizeof g);
          // Kernels from 6.12 carry the high byte of (weight - 1) in the former resvd1.
          n.group.push_back({g.id, static_cast<uint16_t>(((g.resvd1 << 8) | g.weight) + 1)});
        }
        break;
      }
      case NHA_BLACKHOLE: n.blackhole = true; break;
      case NHA_OIF: n.dev = Ifref(core::readU32(a)); break;
      case NHA_GATEWAY: {
        auto b = core::readBytes(a);
        if (b.size() != 4 && b.size() != 16) throw malformed("NHA_GATEWAY has a bad length");
        n.gateway = IpAddress::fromBytes(b);
        break;
      }
      case NHA_FDB: n.fdb = true; break;
      default: n.unknown.append(core::attrType(a), core::readBytes(a));
    }
  }
  return n;
}

}  // namespace fastlink::rtnl
