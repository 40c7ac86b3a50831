// MptcpApi: the kernel path manager's endpoints and limits over the `mptcp_pm` generic netlink
// family (include/uapi/linux/mptcp.h; every constant used is in Debian 12's 6.1 headers).
#include <linux/mptcp.h>
#include <sys/socket.h>

#include <string>

#include "core/attr_rows.hpp"
#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "genl/genl_message.hpp"
#include "mptcp/mptcp_codec.hpp"

namespace fastlink {

namespace {

using core::AttrField;
using core::FieldContext;
using core::FieldTable;
using core::Wire;

constexpr uint32_t kKnownFlags = kMptcpSignal | kMptcpSubflow | kMptcpBackup | kMptcpFullmesh | kMptcpImplicit;

// The address's family tells the kernel which of ADDR4 and ADDR6 to read; a reply's address is
// read from whichever it has.
void putFamily(core::MessageWriter& w, const AttrField<MptcpEndpoint>&, const MptcpEndpoint& e) {
  w.putU16(MPTCP_PM_ADDR_ATTR_FAMILY, e.address.isV4() ? AF_INET : AF_INET6);
}
// The kernel sends port 0 for an endpoint without one (6.18 does; 6.1 leaves it out).
bool getPort(const nlattr* a, MptcpEndpoint& e, const FieldContext&) {
  if (uint16_t port = core::readU16(a)) e.port = port;
  return true;
}

// The MPTCP_PM_ATTR_ADDR nest, in the order ip sends it.
constexpr FieldTable kEndpoint({
    AttrField<MptcpEndpoint>{MPTCP_PM_ADDR_ATTR_FAMILY, putFamily, nullptr, nullptr, false, Wire::Sent},
    core::familyAddressField<MPTCP_PM_ADDR_ATTR_ADDR4, &MptcpEndpoint::address, 4>(),
    core::familyAddressField<MPTCP_PM_ADDR_ATTR_ADDR6, &MptcpEndpoint::address, 16>(),
    core::valueField<MPTCP_PM_ADDR_ATTR_ID, &MptcpEndpoint::id>(),
    AttrField<MptcpEndpoint>{MPTCP_PM_ADDR_ATTR_PORT, core::field<MPTCP_PM_ADDR_ATTR_PORT, &MptcpEndpoint::port>().put, getPort},
    core::valueField<MPTCP_PM_ADDR_ATTR_FLAGS, &MptcpEndpoint::flags>(),
    core::field<MPTCP_PM_ADDR_ATTR_IF_IDX, &MptcpEndpoint::ifindex>(),
});

/// The family's top-level attributes: an endpoint in its nest (or the limits, kLimits).
struct EndpointAttrs {
  std::optional<MptcpEndpoint> endpoint;
};
constexpr FieldTable kEndpointMessage({core::nestField<MPTCP_PM_ATTR_ADDR, &EndpointAttrs::endpoint, kEndpoint>()});

constexpr FieldTable kLimits({
    core::field<MPTCP_PM_ATTR_RCV_ADD_ADDRS, &MptcpLimits::addAddrAccepted>(),
    core::field<MPTCP_PM_ATTR_SUBFLOWS, &MptcpLimits::subflows>(),
});

template <class Info, std::size_t N>
Request request(const GenlFamily& family, uint8_t cmd, const FieldTable<Info, N>& table, const Info& attrs,
                const std::string& operation) {
  genl::GenlWriter w(family, cmd, MPTCP_PM_VER);
  table.encode(w, attrs);
  return w.toRequest(operation);
}
/// A request with no attribute.
Request bare(const GenlFamily& family, uint8_t cmd, const std::string& operation) {
  return request(family, cmd, kLimits, {}, operation);
}

template <class Info, std::size_t N>
Info decode(const nlmsghdr* m, const FieldTable<Info, N>& table, const char* operation) {
  Info attrs;
  core::decodeKnown(table, genl::genlPayload(m, operation), attrs, FieldContext{operation});
  return attrs;
}

/// The MPTCP_PM_ATTR_ADDR nest with only the id (get and delete name an endpoint by it).
Request byId(const GenlFamily& family, uint8_t cmd, uint8_t id, const std::string& operation) {
  genl::GenlWriter w(family, cmd, MPTCP_PM_VER);
  std::size_t nest = w.beginNest(MPTCP_PM_ATTR_ADDR);
  MptcpEndpoint e;
  e.id = id;
  const auto& row = kEndpoint.rowOf<&MptcpEndpoint::id>();
  row.put(w, row, e);
  w.endNest(nest);
  return w.toRequest(operation);
}

}  // namespace

namespace mptcp {

MptcpEndpoint decodeEndpoint(const nlmsghdr* m) {
  auto attrs = decode(m, kEndpointMessage, "ip mptcp endpoint show");
  if (!attrs.endpoint) throw Error(make_error_code(Errc::malformed_reply), "ip mptcp endpoint show", "an endpoint without its address");
  return *attrs.endpoint;
}

MptcpLimits decodeLimits(const nlmsghdr* m) { return decode(m, kLimits, "ip mptcp limits show"); }

}  // namespace mptcp

Request MptcpRequests::listEndpoints(const GenlFamily& family) {
  return bare(family, MPTCP_PM_CMD_GET_ADDR, "ip mptcp endpoint show");
}

Request MptcpRequests::getEndpoint(const GenlFamily& family, uint8_t id) {
  return byId(family, MPTCP_PM_CMD_GET_ADDR, id, "ip mptcp endpoint show id " + std::to_string(id));
}

Request MptcpRequests::addEndpoint(const GenlFamily& family, const MptcpEndpoint& e) {
  std::string op = "ip mptcp endpoint add " + e.address.toString();
  if (e.flags & ~kKnownFlags) throw Error::invalidArgument(op, "unknown endpoint flags " + std::to_string(e.flags & ~kKnownFlags));
  return request(family, MPTCP_PM_CMD_ADD_ADDR, kEndpointMessage, EndpointAttrs{e}, op);
}

Request MptcpRequests::deleteEndpoint(const GenlFamily& family, uint8_t id) {
  return byId(family, MPTCP_PM_CMD_DEL_ADDR, id, "ip mptcp endpoint delete id " + std::to_string(id));
}

Request MptcpRequests::flushEndpoints(const GenlFamily& family) {
  return bare(family, MPTCP_PM_CMD_FLUSH_ADDRS, "ip mptcp endpoint flush");
}

Request MptcpRequests::getLimits(const GenlFamily& family) {
  return bare(family, MPTCP_PM_CMD_GET_LIMITS, "ip mptcp limits show");
}

Request MptcpRequests::setLimits(const GenlFamily& family, const MptcpLimits& l) {
  std::string op = "ip mptcp limits set";
  if (l.subflows) op += " subflows " + std::to_string(*l.subflows);
  if (l.addAddrAccepted) op += " add_addr_accepted " + std::to_string(*l.addAddrAccepted);
  if (!l.subflows && !l.addAddrAccepted) throw Error::invalidArgument(op, "no limit given to change");
  return request(family, MPTCP_PM_CMD_SET_LIMITS, kLimits, l, op);
}

// ---- MptcpApi --------------------------------------------------------------------------------

MptcpApi& Netlink::mptcp() { return lazy(mptcp_, families(), genericEngine()); }

MptcpApi::MptcpApi(GenlApi& families, core::Engine& engine) : GenlFamilyApi(families, engine, MPTCP_PM_NAME, "5.7") {}

std::vector<MptcpEndpoint> MptcpApi::endpoints() {
  Request r = MptcpRequests::listEndpoints(family("ip mptcp endpoint show"));
  std::vector<MptcpEndpoint> out;
  dump(r, [&](const nlmsghdr* m) { out.push_back(mptcp::decodeEndpoint(m)); }, [&] { out.clear(); });
  return out;
}

MptcpEndpoint MptcpApi::endpoint(uint8_t id) {
  return queryOne<MptcpEndpoint>(MptcpRequests::getEndpoint(family("ip mptcp endpoint show"), id), mptcp::decodeEndpoint);
}

void MptcpApi::addEndpoint(const MptcpEndpoint& endpoint) {
  execute(MptcpRequests::addEndpoint(family("ip mptcp endpoint add"), endpoint));
}

void MptcpApi::deleteEndpoint(uint8_t id) { execute(MptcpRequests::deleteEndpoint(family("ip mptcp endpoint delete"), id)); }

void MptcpApi::flushEndpoints() { execute(MptcpRequests::flushEndpoints(family("ip mptcp endpoint flush"))); }

MptcpLimits MptcpApi::limits() {
  return queryOne<MptcpLimits>(MptcpRequests::getLimits(family("ip mptcp limits show")), mptcp::decodeLimits);
}

void MptcpApi::setLimits(const MptcpLimits& limits) {
  execute(MptcpRequests::setLimits(family("ip mptcp limits set"), limits));
}

}  // namespace fastlink
