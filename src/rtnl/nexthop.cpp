// Nexthop objects: request builders, and the kernel-backed NexthopApi.
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/nexthop.hpp"
#include "rtnl/nexthop_codec.hpp"

namespace fastlink {

NexthopApi& Netlink::nexthops() { return lazy(nexthops_); }

Request NexthopRequests::add(const NexthopInfo& nexthop) { return rtnl::encodeNexthop(nexthop, false); }
Request NexthopRequests::replace(const NexthopInfo& nexthop) { return rtnl::encodeNexthop(nexthop, true); }
Request NexthopRequests::del(uint32_t id) { return rtnl::encodeNexthopDel(id); }

NexthopApi::NexthopApi(core::Engine& engine) : engine_(engine), links_(engine) {}

NexthopInfo NexthopApi::resolve(const NexthopInfo& nexthop) {
  NexthopInfo out = nexthop;
  if (out.dev && out.dev->isName()) out.dev = Ifref(links_.indexOf(*out.dev));
  return out;
}

void NexthopApi::add(const NexthopInfo& nexthop) {
  Request r = NexthopRequests::add(resolve(nexthop));
  engine_.execute(r.bytes(), r.operation());
}

void NexthopApi::replace(const NexthopInfo& nexthop) {
  Request r = NexthopRequests::replace(resolve(nexthop));
  engine_.execute(r.bytes(), r.operation());
}

void NexthopApi::del(uint32_t id) {
  Request r = NexthopRequests::del(id);
  engine_.execute(r.bytes(), r.operation());
}

NexthopInfo NexthopApi::get(uint32_t id) {
  core::MessageWriter w(RTM_GETNEXTHOP, 0);
  rtnl::encodeNexthopGet(w, id);
  std::string operation = "nexthop get id " + std::to_string(id);
  std::optional<NexthopInfo> out;
  engine_.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    if (m->nlmsg_type == RTM_NEWNEXTHOP) out = rtnl::decodeNexthop(m);
  });
  if (!out) throw Error(make_error_code(Errc::malformed_reply), operation, "no nexthop in the reply");
  return std::move(*out);
}

void NexthopApi::forEach(const NexthopFilter& filter, const std::function<void(const NexthopInfo&)>& each,
                         const std::function<void()>& restart) {
  uint32_t oif = filter.dev ? links_.indexOf(*filter.dev) : 0;
  core::MessageWriter w(RTM_GETNEXTHOP, 0);
  rtnl::encodeNexthopDump(w, filter, oif);
  engine_.dump(
      w.bytes(), "nexthop show",
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWNEXTHOP) return;
        NexthopInfo n = rtnl::decodeNexthop(m);
        // The kernel filtered (strict checking); the same checks here cost nothing.
        if (oif && n.devIndex() != oif) return;
        if (filter.groupsOnly && !n.isGroup()) return;
        if (filter.fdbOnly && !n.fdb) return;
        each(n);
      },
      restart);
}

std::vector<NexthopInfo> NexthopApi::list(const NexthopFilter& filter) {
  std::vector<NexthopInfo> out;
  forEach(filter, [&](const NexthopInfo& n) { out.push_back(n); }, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
