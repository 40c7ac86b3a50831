// The tcp_metrics generic netlink family: TCP_METRICS_CMD_GET (dump, or one destination) and
// TCP_METRICS_CMD_DEL (one destination, or every entry), sent over the Netlink's generic
// netlink socket (GenlFamilyApi: the family resolved once per Netlink and cached by nl.families()).
#include "fastlink/tcp_metrics.hpp"

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/tcp_metrics.h>

#include <string>

#include "core/attr_fields.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/raw.hpp"
#include "genl/genl_message.hpp"

namespace fastlink {
namespace {

void putAddresses(core::MessageWriter& w, const IpAddress& destination, const std::optional<IpAddress>& source) {
  // The kernel keys an entry by destination and (4.0+) source; each in its family's attribute.
  w.putBytes(destination.isV4() ? TCP_METRICS_ATTR_ADDR_IPV4 : TCP_METRICS_ATTR_ADDR_IPV6, destination.bytes());
  if (source) w.putBytes(source->isV4() ? TCP_METRICS_ATTR_SADDR_IPV4 : TCP_METRICS_ATTR_SADDR_IPV6, source->bytes());
}

std::string describe(const char* verb, const IpAddress& destination, const std::optional<IpAddress>& source) {
  std::string s = std::string("tcp_metrics ") + verb + " " + destination.toString();
  if (source) s += " source " + source->toString();
  return s;
}

[[noreturn]] void malformed(const char* why) {
  throw Error(make_error_code(Errc::malformed_reply), "tcp_metrics show", why);
}

std::optional<IpAddress> address(const core::AttrTable& t, uint16_t v4, uint16_t v6) {
  if (const nlattr* a = t.get(v4)) return core::readAddress(a, 4, "tcp_metrics IPv4 address");
  if (const nlattr* a = t.get(v6)) return core::readAddress(a, 16, "tcp_metrics IPv6 address");
  return std::nullopt;
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
  genl::GenlWriter w(family, TCP_METRICS_CMD_GET, TCP_METRICS_GENL_VERSION);
  putAddresses(w, destination, source);
  return Request(w.release(), describe("show", destination, source));
}

Request TcpMetricsRequests::remove(const GenlFamily& family, const IpAddress& destination,
                                   const std::optional<IpAddress>& source) {
  genl::GenlWriter w(family, TCP_METRICS_CMD_DEL, TCP_METRICS_GENL_VERSION);
  putAddresses(w, destination, source);
  return Request(w.release(), describe("delete", destination, source));
}

Request TcpMetricsRequests::flushAll(const GenlFamily& family) {
  genl::GenlWriter w(family, TCP_METRICS_CMD_DEL, TCP_METRICS_GENL_VERSION);
  return Request(w.release(), "tcp_metrics flush");
}

TcpMetricsEntry decodeTcpMetrics(const nlmsghdr* m) {
  genl::GenlReply r = genl::decodeGenl(m, TCP_METRICS_ATTR_MAX);
  const core::AttrTable& t = r.attrs;
  TcpMetricsEntry e;
  std::optional<IpAddress> destination = address(t, TCP_METRICS_ATTR_ADDR_IPV4, TCP_METRICS_ATTR_ADDR_IPV6);
  if (!destination) malformed("an entry without its destination address");
  e.destination = *destination;
  e.source = address(t, TCP_METRICS_ATTR_SADDR_IPV4, TCP_METRICS_ATTR_SADDR_IPV6);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_AGE)) e.ageMs = core::readU64(a);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_TW_TSVAL)) e.twTsval = core::readU32(a);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_TW_TS_STAMP)) e.twTsStamp = core::readS32(a);
  if (const nlattr* vals = t.get(TCP_METRICS_ATTR_VALS)) {
    // Nested with types metric + 1 (TCP_METRIC_RTT is 0).
    core::AttrTable v = core::AttrTable::ofNest(vals, TCP_METRIC_MAX + 1);
    auto metric = [&](int index, std::optional<uint32_t>& field) {
      if (const nlattr* a = v.get(static_cast<uint16_t>(index + 1))) field = core::readU32(a);
    };
    metric(TCP_METRIC_RTT, e.rttMs);
    metric(TCP_METRIC_RTTVAR, e.rttVarMs);
    metric(TCP_METRIC_SSTHRESH, e.ssthresh);
    metric(TCP_METRIC_CWND, e.cwnd);
    metric(TCP_METRIC_REORDERING, e.reordering);
    metric(TCP_METRIC_RTT_US, e.rttUs);
    metric(TCP_METRIC_RTTVAR_US, e.rttVarUs);
  }
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_FOPEN_MSS)) e.fastOpenMss = core::readU16(a);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_FOPEN_SYN_DROPS)) e.fastOpenSynDrops = core::readU16(a);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_FOPEN_SYN_DROP_TS)) e.fastOpenSynDropTs = core::readU64(a);
  if (const nlattr* a = t.get(TCP_METRICS_ATTR_FOPEN_COOKIE)) {
    auto cookie = core::readBytes(a);
    e.fastOpenCookie.assign(cookie.begin(), cookie.end());
  }
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
