// ConntrackApi: the conntrack table of the Netlink's namespace over its NETLINK_NETFILTER socket.
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "core/engine.hpp"
#include "fastlink/conntrack.hpp"
#include "fastlink/netlink.hpp"
#include "netfilter/conntrack_codec.hpp"

namespace fastlink {

ConntrackApi& Netlink::conntrack() { return lazy(conntrack_, netfilterEngine()); }

void ConntrackApi::forEach(const ConntrackFilter& filter, const std::function<void(const ConntrackEntry&)>& each,
                           const std::function<void()>& restart) {
  // CTA_FILTER compares tuples of one family: the kernel refuses it (EOPNOTSUPP) in a dump of
  // every family. Without a family, such a filter is one dump per family.
  bool tupleFilter = filter.src || filter.dst || filter.replySrc || filter.replyDst || filter.protocol || filter.zone;
  if (tupleFilter && !filter.effectiveFamily()) {
    for (IpAddress::Family family : {IpAddress::Family::v4, IpAddress::Family::v6}) {
      ConntrackFilter one = filter;
      one.family = family;
      forEach(one, each, restart);
    }
    return;
  }
  Request r = ConntrackRequests::list(filter);
  engine_.dump(
      r.bytes(), r.operation(),
      [&](const nlmsghdr* m) {
        if (netfilter::conntrackMessageKind(m->nlmsg_type) != IPCTNL_MSG_CT_NEW) return;
        ConntrackEntry e = netfilter::decodeEntry(m);
        // The kernel filtered already; this only matters on kernels that ignore a filter field.
        if (filter.matches(e)) each(e);
      },
      [&] {
        if (restart) restart();
      });
}

std::vector<ConntrackEntry> ConntrackApi::list(const ConntrackFilter& filter) {
  std::vector<ConntrackEntry> out;
  forEach(filter, [&](const ConntrackEntry& e) { out.push_back(e); }, [&] { out.clear(); });
  return out;
}

ConntrackEntry ConntrackApi::get(const ConntrackEntry& key) {
  Request r = ConntrackRequests::get(key);
  std::optional<ConntrackEntry> found;
  engine_.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) { found = netfilter::decodeEntry(m); });
  if (!found) throw Error(std::make_error_code(std::errc::no_such_file_or_directory), r.operation());
  return *found;
}

void ConntrackApi::create(const ConntrackEntry& entry) { engine_.execute(ConntrackRequests::create(entry)); }
void ConntrackApi::update(const ConntrackEntry& entry) { engine_.execute(ConntrackRequests::update(entry)); }
void ConntrackApi::del(const ConntrackEntry& entry) { engine_.execute(ConntrackRequests::del(entry)); }
void ConntrackApi::flush(std::optional<IpAddress::Family> family) { engine_.execute(ConntrackRequests::flush(family)); }

std::size_t ConntrackApi::deleteMatching(const ConntrackFilter& filter,
                                         const std::function<void(const ConntrackEntry&)>& each) {
  // The dump first, whole: deleting while the kernel walks the table would interrupt the dump.
  std::vector<ConntrackEntry> victims = list(filter);
  std::size_t next = 0;
  std::size_t deleted = 0;
  BatchOptions options;
  options.onError = OnError::Continue;
  run(
      [&]() -> std::optional<Request> {
        if (next == victims.size()) return std::nullopt;
        return ConntrackRequests::del(victims[next++]);
      },
      options,
      [&](std::size_t index, const RequestResult& result) {
        if (result.status == RequestStatus::Applied) {
          ++deleted;
          if (each) each(victims[index]);
          return;
        }
        // Gone meanwhile (timed out, or deleted by someone else): what was asked for is true.
        if (result.error && result.error->code() == std::errc::no_such_file_or_directory) return;
        if (result.error) throw *result.error;
      });
  return deleted;
}

BatchResult ConntrackApi::run(const RequestSource& source, const BatchOptions& options, const ResultSink& sink) {
  return engine_.runBatch(source, options, sink);
}

}  // namespace fastlink
