// The tcp_metrics generic netlink family: TCP_METRICS_CMD_GET (dump, or one destination) and
// TCP_METRICS_CMD_DEL (one destination, or every entry), sent over the Netlink's generic
// netlink socket (GenlFamilyApi: the family resolved once per Netlink and cached by nl.families()).
#include "fastlink/tcp_metrics.hpp"

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/tcp_metrics.h>

#include <string>

#include "core/attr_rows.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/raw.hpp"
#include "genl/genl_message.hpp"

namespace fastlink {
namespace {

using core::Wire;
using core::field;

/// The metrics nest: attribute type = TCP_METRIC_* + 1 (TCP_METRIC_RTT is 0).
template <int kMetric, auto kMember>
constexpr auto metric() {
  return field<static_cast<uint16_t>(kMetric + 1), kMember, Wire::Reported>();
}
constexpr core::FieldTable kMetrics({
    metric<TCP_METRIC_RTT, &TcpMetricsEntry::rttMs>(),
    metric<TCP_METRIC_RTTVAR, &TcpMetricsEntry::rttVarMs>(),
    metric<TCP_METRIC_SSTHRESH, &TcpMetricsEntry::ssthresh>(),
    metric<TCP_METRIC_CWND, &TcpMetricsEntry::cwnd>(),
    metric<TCP_METRIC_REORDERING, &TcpMetricsEntry::reordering>(),
    metric<TCP_METRIC_RTT_US, &TcpMetricsEntry::rttUs>(),
    metric<TCP_METRIC_RTTVAR_US, &TcpMetricsEntry::rttVarUs>(),
});

bool getCookie(const nlattr* a, TcpMetricsEntry& e, const core::FieldContext&) {
  e.fastOpenCookie = core::copyBytes(a);
  return true;
}

// The kernel keys an entry by destination and (4.0+) source, each in its family's attribute: a
// get or delete sends those; the rest is reported.
constexpr core::FieldTable kEntry({
    core::familyAddressField<TCP_METRICS_ATTR_ADDR_IPV4, &TcpMetricsEntry::destination, 4>(),
    core::familyAddressField<TCP_METRICS_ATTR_ADDR_IPV6, &TcpMetricsEntry::destination, 16>(),
    core::familyAddressField<TCP_METRICS_ATTR_SADDR_IPV4, &TcpMetricsEntry::source, 4>(),
    core::familyAddressField<TCP_METRICS_ATTR_SADDR_IPV6, &TcpMetricsEntry::source, 16>(),
    field<TCP_METRICS_ATTR_AGE, &TcpMetricsEntry::ageMs, Wire::Reported>(),
    field<TCP_METRICS_ATTR_TW_TSVAL, &TcpMetricsEntry::twTsval, Wire::Reported>(),
    field<TCP_METRICS_ATTR_TW_TS_STAMP, &TcpMetricsEntry::twTsStamp, Wire::Reported>(),
    core::innerNestField<TCP_METRICS_ATTR_VALS, kMetrics, Wire::Reported>(),
    field<TCP_METRICS_ATTR_FOPEN_MSS, &TcpMetricsEntry::fastOpenMss, Wire::Reported>(),
    field<TCP_METRICS_ATTR_FOPEN_SYN_DROPS, &TcpMetricsEntry::fastOpenSynDrops, Wire::Reported>(),
    field<TCP_METRICS_ATTR_FOPEN_SYN_DROP_TS, &TcpMetricsEntry::fastOpenSynDropTs, Wire::Reported>(),
    core::AttrField<TcpMetricsEntry>{TCP_METRICS_ATTR_FOPEN_COOKIE, nullptr, getCookie, nullptr, false, Wire::Reported},
});

Request keyed(const GenlFamily& family, uint8_t cmd, const IpAddress& destination, const std::optional<IpAddress>& source,
              const char* verb) {
  TcpMetricsEntry key;
  key.destination = destination, key.source = source;
  genl::GenlWriter w(family, cmd, TCP_METRICS_GENL_VERSION);
  kEntry.encode(w, key);
  std::string s = std::string("tcp_metrics ") + verb + " " + destination.toString();
  if (source) s += " source " + source->toString();
  return Request(w.release(), s);
}

}  // namespace

uint64_t TcpMetricsEntry::rttMicros() const {
  if (rttUs) return *rttUs >> 3;
  if (rttMs) return (uint64_t{*rttMs} * 1000) >> 3;
  return 0;
}

uint64_t TcpMetricsEntry::rttVarMicros() const {
  if (rttVarUs) return *rttVarUs >> 2;
  if (rttVarMs) return (uint64_t{*rttVarMs} * 1000) >> 2;
  return 0;
}

Request TcpMetricsRequests::list(const GenlFamily& family) {
  genl::GenlWriter w(family, TCP_METRICS_CMD_GET, TCP_METRICS_GENL_VERSION, NLM_F_DUMP);
  return Request(w.release(), "tcp_metrics show");
}

Request TcpMetricsRequests::get(const GenlFamily& family, const IpAddress& destination,
                                const std::optional<IpAddress>& source) {
  return keyed(family, TCP_METRICS_CMD_GET, destination, source, "show");
}

Request TcpMetricsRequests::remove(const GenlFamily& family, const IpAddress& destination,
                                   const std::optional<IpAddress>& source) {
  return keyed(family, TCP_METRICS_CMD_DEL, destination, source, "delete");
}

Request TcpMetricsRequests::flushAll(const GenlFamily& family) {
  genl::GenlWriter w(family, TCP_METRICS_CMD_DEL, TCP_METRICS_GENL_VERSION);
  return Request(w.release(), "tcp_metrics flush");
}

TcpMetricsEntry decodeTcpMetrics(const nlmsghdr* m) {
  TcpMetricsEntry e;
  core::SeenTypes seen = core::decodeKnown(kEntry, genl::genlPayload(m, "tcp_metrics show"), e, core::FieldContext{"tcp_metrics show"});
  if (!seen.test(TCP_METRICS_ATTR_ADDR_IPV4) && !seen.test(TCP_METRICS_ATTR_ADDR_IPV6))
    throw Error(make_error_code(Errc::malformed_reply), "tcp_metrics show", "an entry without its destination address");
  return e;
}

TcpMetricsApi::TcpMetricsApi(GenlApi& families, core::Engine& engine)
    : GenlFamilyApi(families, engine, TCP_METRICS_GENL_NAME) {}

std::vector<TcpMetricsEntry> TcpMetricsApi::list() {
  std::vector<TcpMetricsEntry> out;
  dump(
      TcpMetricsRequests::list(family()),
      [&](const nlmsghdr* h) {
        if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
            static_cast<const genlmsghdr*>(NLMSG_DATA(h))->cmd == TCP_METRICS_CMD_GET)
          out.push_back(decodeTcpMetrics(h));
      },
      [&] { out.clear(); });
  return out;
}

TcpMetricsEntry TcpMetricsApi::get(const IpAddress& destination, const std::optional<IpAddress>& source) {
  return queryOne<TcpMetricsEntry>(TcpMetricsRequests::get(family(), destination, source), decodeTcpMetrics);
}

void TcpMetricsApi::remove(const IpAddress& destination, const std::optional<IpAddress>& source) {
  execute(TcpMetricsRequests::remove(family(), destination, source));
}

void TcpMetricsApi::flushAll() { execute(TcpMetricsRequests::flushAll(family())); }

TcpMetricsApi& Netlink::tcpMetrics() { return lazy(tcpMetrics_, families(), genericEngine()); }

}  // namespace fastlink
