// Bridge FDB: request builders, and the kernel-backed FdbApi.
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/fdb_codec.hpp"

namespace fastlink {

using core::MessageWriter;
using rtnl::FdbEncodeMode;

FdbApi& Netlink::fdb() { return lazy(fdb_); }

// ---- FdbRequests --------------------------------------------------------------------------

namespace {

Request build(uint16_t type, uint16_t flags, const FdbInfo& entry, FdbEncodeMode mode, const char* verb) {
  MessageWriter w(type, flags);
  rtnl::encodeFdb(w, entry, mode);
  return w.toRequest(rtnl::describeFdb(verb, entry));
}

}  // namespace

Request FdbRequests::add(const FdbInfo& e) {
  return build(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_EXCL, e, FdbEncodeMode::Add, "add");
}
Request FdbRequests::append(const FdbInfo& e) {
  return build(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_APPEND, e, FdbEncodeMode::Append, "append");
}
Request FdbRequests::replace(const FdbInfo& e) {
  return build(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, e, FdbEncodeMode::Replace, "replace");
}
Request FdbRequests::del(const FdbInfo& e) { return build(RTM_DELNEIGH, 0, e, FdbEncodeMode::Del, "del"); }

// ---- FdbApi ------------------------------------------------------------------------------------

uint32_t FdbApi::indexOf(const Ifref& dev) {
  if (dev.isIndex()) return dev.index();
  LinkApi links(engine_);
  return links.indexOf(dev);
}

FdbInfo FdbApi::resolved(const FdbInfo& e) {
  FdbInfo out = e;
  if (out.dev && out.dev->isName()) out.dev = Ifref(indexOf(*out.dev));
  if (out.via && out.via->isName()) out.via = Ifref(indexOf(*out.via));
  return out;
}

namespace {

// Every check but the device lookups runs first: bad input is reported as such and sends nothing.
void precheck(const FdbInfo& e, Request (*builder)(const FdbInfo&)) {
  FdbInfo probe = e;
  if (probe.dev && probe.dev->isName()) {
    validateIfname(probe.dev->name());
    probe.dev = Ifref(1u);
  }
  if (probe.via && probe.via->isName()) {
    validateIfname(probe.via->name());
    probe.via = Ifref(1u);
  }
  (void)builder(probe);
}

void send(core::Engine& engine, const Request& r) { engine.execute(r.bytes(), r.operation()); }

}  // namespace

void FdbApi::add(const FdbInfo& e) {
  precheck(e, FdbRequests::add);
  send(engine_, FdbRequests::add(resolved(e)));
}
void FdbApi::append(const FdbInfo& e) {
  precheck(e, FdbRequests::append);
  send(engine_, FdbRequests::append(resolved(e)));
}
void FdbApi::replace(const FdbInfo& e) {
  precheck(e, FdbRequests::replace);
  send(engine_, FdbRequests::replace(resolved(e)));
}
void FdbApi::del(const FdbInfo& e) {
  precheck(e, FdbRequests::del);
  send(engine_, FdbRequests::del(resolved(e)));
}

void FdbApi::forEach(const FdbFilter& filter, const std::function<void(const FdbInfo&)>& each,
                     const std::function<void()>& restart) {
  uint32_t bridge = filter.bridge ? indexOf(*filter.bridge) : 0;
  uint32_t dev = filter.dev ? indexOf(*filter.dev) : 0;
  MessageWriter w(RTM_GETNEIGH, 0);
  rtnl::encodeFdbDump(w, bridge, dev);
  std::string operation = std::string("fdb show") + (filter.bridge ? " br " + filter.bridge->toString() : "") +
                          (filter.dev ? " dev " + filter.dev->toString() : "");
  engine_.dump(
      w.bytes(), operation,
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWNEIGH) return;
        const auto* ndm = core::messageHeader<ndmsg>(m);
        if (!ndm || ndm->ndm_family != AF_BRIDGE) return;
        FdbInfo e = rtnl::decodeFdb(m);
        if (filter.vlan && e.vlan != filter.vlan) return;
        each(e);
      },
      restart);
}

std::vector<FdbInfo> FdbApi::list(const FdbFilter& filter) {
  std::vector<FdbInfo> out;
  forEach(filter, [&](const FdbInfo& e) { out.push_back(e); }, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
