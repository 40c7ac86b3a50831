// Namespace ids: RTM_NEWNSID / RTM_GETNSID (by fd, pid or id; dumps with a target) over the
// route engine, and the ids of the namespaces named under /run/netns (listNamedNetns).
#include "fastlink/netns_ids.hpp"

#include <sys/socket.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/netns_named.hpp"
#include "rtnl/dump_all.hpp"
#include "rtnl/netns_codec.hpp"

namespace fastlink {
namespace {

/// The rtgenmsg (AF_UNSPEC) every nsid request starts with.
void putRtgen(core::MessageWriter& w) { w.putHeader<rtgenmsg>().rtgen_family = AF_UNSPEC; }

/// The namespace a set or get is about: by pid when there is one, else by fd.
void putTarget(core::MessageWriter& w, int fd, pid_t pid) {
  if (pid > 0) w.putU32(NETNSA_PID, static_cast<uint32_t>(pid));
  else w.putU32(NETNSA_FD, static_cast<uint32_t>(fd));
}

std::string targetText(std::optional<int32_t> targetNsid) {
  return targetNsid ? " target-nsid " + std::to_string(*targetNsid) : std::string();
}

}  // namespace

namespace rtnl {

NsidInfo decodeNsid(const nlmsghdr* m) {
  if (!core::messageHeader<rtgenmsg>(m))
    throw Error(make_error_code(Errc::malformed_reply), "netns list-id", "an nsid message shorter than its rtgenmsg");
  core::AttrTable a = core::AttrTable::ofMessage(m, sizeof(rtgenmsg), NETNSA_MAX);
  const nlattr* nsid = a.get(NETNSA_NSID);
  if (!nsid) throw Error(make_error_code(Errc::malformed_reply), "netns list-id", "an nsid message without NETNSA_NSID");
  NsidInfo info;
  info.nsid = core::readS32(nsid);
  if (const nlattr* current = a.get(NETNSA_CURRENT_NSID)) info.currentNsid = core::readS32(current);
  info.deleted = m->nlmsg_type == RTM_DELNSID;
  return info;
}

}  // namespace rtnl

Request NetnsIdRequests::set(int fd, pid_t pid, int32_t nsid, const std::string& name) {
  core::MessageWriter w(RTM_NEWNSID, 0);
  putRtgen(w);
  putTarget(w, fd, pid);
  w.putS32(NETNSA_NSID, nsid);
  return w.toRequest("netns set " + name + " " + (nsid < 0 ? std::string("auto") : std::to_string(nsid)));
}

Request NetnsIdRequests::get(int fd, pid_t pid, const std::string& name) {
  core::MessageWriter w(RTM_GETNSID, 0);
  putRtgen(w);
  putTarget(w, fd, pid);
  return w.toRequest("netns id of " + name);
}

Request NetnsIdRequests::find(int32_t nsid, std::optional<int32_t> targetNsid) {
  core::MessageWriter w(RTM_GETNSID, 0);
  putRtgen(w);
  w.putS32(NETNSA_NSID, nsid);
  if (targetNsid) w.putS32(NETNSA_TARGET_NSID, *targetNsid);
  return w.toRequest("netns list-id" + targetText(targetNsid) + " nsid " + std::to_string(nsid));
}

Request NetnsIdRequests::list(const NsidFilter& filter) {
  core::MessageWriter w(RTM_GETNSID, NLM_F_DUMP);
  putRtgen(w);
  if (filter.targetNsid) w.putS32(NETNSA_TARGET_NSID, *filter.targetNsid);
  return w.toRequest("netns list-id" + targetText(filter.targetNsid));
}

NetnsApi& Netlink::netns() { return lazy(netns_); }

std::optional<int32_t> NetnsApi::id(const Netns& target) {
  std::shared_ptr<NetnsHandle> handle = NetnsHandle::open(target);
  Request r = NetnsIdRequests::get(handle->fd(), handle->pid(), target.toString());
  std::optional<int32_t> id;
  engine_.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) {
    // The kernel answers NETNSA_NSID -1 (NETNSA_NSID_NOT_ASSIGNED) for a namespace it has no id for.
    NsidInfo info = rtnl::decodeNsid(m);
    if (info.nsid >= 0) id = info.nsid;
  });
  return id;
}

void NetnsApi::setId(const Netns& target, std::optional<int32_t> nsid) {
  if (nsid && *nsid < 0)
    throw Error::invalidArgument("netns set " + target.toString(), "an nsid is >= 0 (none: the kernel picks one)");
  std::shared_ptr<NetnsHandle> handle = NetnsHandle::open(target);
  engine_.execute(NetnsIdRequests::set(handle->fd(), handle->pid(), nsid.value_or(NsidInfo::kNotAssigned), target.toString()));
}

std::vector<NsidInfo> NetnsApi::list(const NsidFilter& filter) {
  return rtnl::dumpAll(engine_, NetnsIdRequests::list(filter), RTM_NEWNSID, rtnl::decodeNsid);
}

NsidInfo NetnsApi::find(int32_t nsid, std::optional<int32_t> targetNsid) {
  Request r = NetnsIdRequests::find(nsid, targetNsid);
  NsidInfo out;
  engine_.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) { out = rtnl::decodeNsid(m); });
  return out;
}

std::map<int32_t, std::string> namedNetnsIds(const std::optional<Netns>& ns) {
  std::map<int32_t, std::string> ids;
  std::vector<std::string> names = listNamedNetns();
  if (names.empty()) return ids;
  NetlinkOptions options;
  options.netns = ns;
  Netlink own(options);
  for (const std::string& name : names) {
    // A name that is no namespace (a bind mount left behind), or that we may not open, is
    // skipped, as ip skips it. Two names of one namespace: the last read wins, as in ip's map.
    try {
      if (auto id = own.netns().id(Netns::named(name))) ids.insert_or_assign(*id, name);
    } catch (const Error&) {
    }
  }
  return ids;
}

}  // namespace fastlink
