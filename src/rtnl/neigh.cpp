// Neighbours: request builders, and the kernel-backed NeighApi.
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/neigh_codec.hpp"

namespace fastlink {

using core::MessageWriter;
using rtnl::NeighEncodeMode;

NeighApi& Netlink::neighbours() { return lazy(neighbours_); }

// ---- NeighRequests ------------------------------------------------------------------------

namespace {

Request build(uint16_t type, uint16_t flags, const NeighInfo& neigh, NeighEncodeMode mode, const char* verb) {
  MessageWriter w(type, flags);
  rtnl::encodeNeigh(w, neigh, mode);
  return w.toRequest(rtnl::describeNeigh(verb, neigh));
}

}  // namespace

Request NeighRequests::add(const NeighInfo& neigh) {
  return build(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_EXCL, neigh, NeighEncodeMode::Add, "add");
}

Request NeighRequests::replace(const NeighInfo& neigh) {
  return build(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, neigh, NeighEncodeMode::Replace, "replace");
}

Request NeighRequests::change(const NeighInfo& neigh) {
  return build(RTM_NEWNEIGH, NLM_F_REPLACE, neigh, NeighEncodeMode::Change, "change");
}

Request NeighRequests::del(const NeighInfo& neigh) {
  return build(RTM_DELNEIGH, 0, neigh, NeighEncodeMode::Del, "del");
}

// ---- NeighApi ---------------------------------------------------------------------------------

uint32_t NeighApi::indexOf(const Ifref& dev) {
  if (dev.isIndex()) return dev.index();
  LinkApi links(engine_);
  return links.indexOf(dev);
}

NeighInfo NeighApi::resolved(const NeighInfo& neigh) {
  NeighInfo out = neigh;
  if (out.dev && out.dev->isName()) {
    validateIfname(out.dev->name());
    out.dev = Ifref(indexOf(*out.dev));
  }
  return out;
}

namespace {

void send(core::Engine& engine, const Request& r) { engine.execute(r.bytes(), r.operation()); }

// Checks the request before any name lookup, so bad input never reaches the kernel and a
// nonexistent device is not what hides the real mistake.
void precheck(const NeighInfo& neigh, Request (*builder)(const NeighInfo&)) {
  NeighInfo probe = neigh;
  if (probe.dev && probe.dev->isName()) {
    validateIfname(probe.dev->name());
    probe.dev = Ifref(1u);
  }
  (void)builder(probe);
}

}  // namespace

void NeighApi::add(const NeighInfo& neigh) {
  precheck(neigh, NeighRequests::add);
  send(engine_, NeighRequests::add(resolved(neigh)));
}

void NeighApi::replace(const NeighInfo& neigh) {
  precheck(neigh, NeighRequests::replace);
  send(engine_, NeighRequests::replace(resolved(neigh)));
}

void NeighApi::change(const NeighInfo& neigh) {
  precheck(neigh, NeighRequests::change);
  send(engine_, NeighRequests::change(resolved(neigh)));
}

void NeighApi::del(const NeighInfo& neigh) {
  precheck(neigh, NeighRequests::del);
  send(engine_, NeighRequests::del(resolved(neigh)));
}

NeighInfo NeighApi::get(const IpAddress& dst, const Ifref& dev, bool proxy) {
  std::string operation = std::string("neigh get ") + (proxy ? "proxy " : "") + dst.toString() + " dev " + dev.toString();
  if (dev.isName()) validateIfname(dev.name());
  MessageWriter w(RTM_GETNEIGH, 0);
  rtnl::encodeNeighGet(w, dst, indexOf(dev), proxy);
  std::optional<NeighInfo> out;
  engine_.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    if (m->nlmsg_type == RTM_NEWNEIGH) out = rtnl::decodeNeigh(m);
  });
  if (!out) throw Error(make_error_code(Errc::malformed_reply), operation, "no neighbour in the reply");
  return std::move(*out);
}

std::optional<NeighInfo> NeighApi::find(const IpAddress& dst, const Ifref& dev, bool proxy) {
  try {
    return get(dst, dev, proxy);
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_file_or_directory) return std::nullopt;
    throw;
  }
}

void NeighApi::forEach(const NeighFilter& filter, const std::function<void(const NeighInfo&)>& each,
                       const std::function<void()>& restart) {
  uint32_t ifindex = filter.dev ? indexOf(*filter.dev) : 0;
  uint32_t master = filter.master ? indexOf(*filter.master) : 0;
  MessageWriter w(RTM_GETNEIGH, 0);
  rtnl::encodeNeighDump(w, filter.family, ifindex, master, filter.proxy);
  std::string operation = std::string("neigh show") + (filter.proxy ? " proxy" : "") +
                          (filter.dev ? " dev " + filter.dev->toString() : "") +
                          (filter.master ? " master " + filter.master->toString() : "");
  engine_.dump(
      w.bytes(), operation,
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWNEIGH) return;
        const auto* ndm = core::messageHeader<ndmsg>(m);
        if (!ndm || (ndm->ndm_family != AF_INET && ndm->ndm_family != AF_INET6)) return;
        NeighInfo n = rtnl::decodeNeigh(m);
        if (filter.stateMask && !n.isProxy()) {
          auto bits = static_cast<uint16_t>(n.state.value_or(NeighState::None));
          if (bits ? !(bits & *filter.stateMask) : !(*filter.stateMask & kNeighStateNoneBit)) return;
        }
        each(n);
      },
      restart);
}

std::vector<NeighInfo> NeighApi::list(const NeighFilter& filter) {
  std::vector<NeighInfo> out;
  forEach(filter, [&](const NeighInfo& n) { out.push_back(n); }, [&] { out.clear(); });
  return out;
}

std::size_t NeighApi::flush(const NeighFilter& filter) {
  NeighFilter f = filter;
  if (!f.stateMask && !f.proxy)  // like `ip neigh flush`: permanent and noarp entries stay
    f.stateMask = static_cast<uint16_t>(0xffff & ~(static_cast<uint16_t>(NeighState::Permanent) |
                                                 static_cast<uint16_t>(NeighState::Noarp)));
  std::vector<NeighInfo> victims;
  forEach(f, [&](const NeighInfo& n) {
    if (!n.dst) return;
    NeighInfo key;
    key.dst = n.dst;
    key.dev = n.dev;
    if (n.isProxy()) key.proxy = true;
    victims.push_back(std::move(key));
  }, [&] { victims.clear(); });

  std::size_t next = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == victims.size()) return std::nullopt;
    return NeighRequests::del(victims[next++]);
  };
  std::size_t deleted = 0;
  std::optional<Error> failure;
  BatchOptions options;
  options.onError = OnError::Continue;
  engine_.runBatch(source, options, [&](std::size_t, const RequestResult& r) {
    if (r.status == RequestStatus::Applied) {
      ++deleted;
    } else if (r.error && r.error->code() != std::errc::no_such_file_or_directory && !failure) {
      failure = *r.error;  // an entry that vanished meanwhile is already flushed
    }
  });
  if (failure) throw *failure;
  return deleted;
}

}  // namespace fastlink
