// Addresses: request builders, and the kernel-backed AddrApi.
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/addr.hpp"
#include "rtnl/addr_codec.hpp"

namespace fastlink {

using rtnl::AddrVerb;

AddrApi& Netlink::addresses() { return lazy(addresses_); }

Request AddrRequests::add(const AddrInfo& addr) { return rtnl::encodeAddr(addr, AddrVerb::Add); }
Request AddrRequests::replace(const AddrInfo& addr) { return rtnl::encodeAddr(addr, AddrVerb::Replace); }
Request AddrRequests::del(const AddrInfo& addr) { return rtnl::encodeAddr(addr, AddrVerb::Del); }

AddrApi::AddrApi(core::Engine& engine) : engine_(engine), links_(engine) {}

AddrInfo AddrApi::resolve(const AddrInfo& addr) {
  AddrInfo out = addr;
  if (!out.dev) return out;
  if (out.label) {
    // iproute2's rule: a label starts with the device's name ("v0:web" on v0).
    std::string name = out.dev->isName() ? out.dev->name() : links_.get(*out.dev).name.value_or("");
    if (out.label->compare(0, name.size(), name) != 0)
      throw Error::invalidArgument("address", "label \"" + *out.label + "\" must begin with the device name \"" + name + "\"");
  }
  if (out.dev->isName()) out.dev = Ifref(links_.indexOf(*out.dev));
  return out;
}

void AddrApi::add(const AddrInfo& addr) {
  Request r = AddrRequests::add(resolve(addr));
  engine_.execute(r.bytes(), r.operation());
}

void AddrApi::replace(const AddrInfo& addr) {
  Request r = AddrRequests::replace(resolve(addr));
  engine_.execute(r.bytes(), r.operation());
}

void AddrApi::del(const AddrInfo& addr) {
  Request r = AddrRequests::del(resolve(addr));
  engine_.execute(r.bytes(), r.operation());
}

void AddrApi::forEach(const AddrFilter& filter, const std::function<void(const AddrInfo&)>& each,
                      const std::function<void()>& restart) {
  uint32_t ifindex = filter.dev ? links_.indexOf(*filter.dev) : 0;
  core::MessageWriter w(RTM_GETADDR, 0);
  rtnl::encodeAddrDump(w, filter, ifindex);
  engine_.dump(
      w.bytes(), "address show",
      [&](const nlmsghdr* m) {
        if (!rtnl::isIpAddr(m)) return;
        AddrInfo a = rtnl::decodeAddr(m);
        if (rtnl::addrMatches(a, filter, ifindex)) each(a);
      },
      restart);
}

std::vector<AddrInfo> AddrApi::list(const AddrFilter& filter) {
  std::vector<AddrInfo> out;
  forEach(filter, [&](const AddrInfo& a) { out.push_back(a); }, [&] { out.clear(); });
  return out;
}

std::size_t AddrApi::flush(const AddrFilter& filter) {
  std::vector<AddrInfo> found = list(filter);
  std::size_t next = 0, deleted = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == found.size()) return std::nullopt;
    const AddrInfo& a = found[next++];
    AddrInfo key(*a.address, *a.dev);
    if (a.peer) key.setPeer(*a.peer);
    return AddrRequests::del(key);
  };
  std::optional<Error> failure;
  engine_.runBatch(source, BatchOptions{.onError = OnError::Continue}, [&](std::size_t, const RequestResult& r) {
    if (r.status == RequestStatus::Applied) ++deleted;
    // Deleting a primary IPv4 address also deletes its secondaries: those are gone already.
    else if (r.error && r.error->code() != std::errc::address_not_available && !failure) failure = r.error;
  });
  if (failure) throw *failure;
  return deleted;
}

}  // namespace fastlink
