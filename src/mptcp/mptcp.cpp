// MptcpApi: the kernel path manager's endpoints and limits over the `mptcp_pm` generic netlink
// family (include/uapi/linux/mptcp.h; every constant used is in Debian 12's 6.1 headers).
#include <linux/mptcp.h>
#include <sys/socket.h>

#include <string>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "genl/genl_message.hpp"
#include "mptcp/mptcp_codec.hpp"

namespace fastlink {

namespace {

constexpr uint32_t kKnownFlags = kMptcpSignal | kMptcpSubflow | kMptcpBackup | kMptcpFullmesh | kMptcpImplicit;

Request bare(const GenlFamily& family, uint8_t cmd, const std::string& operation) {
  genl::GenlWriter w(family, cmd, MPTCP_PM_VER);
  return w.toRequest(operation);
}

/// The MPTCP_PM_ATTR_ADDR nest with only the id (get and delete name an endpoint by it).
Request byId(const GenlFamily& family, uint8_t cmd, uint8_t id, const std::string& operation) {
  genl::GenlWriter w(family, cmd, MPTCP_PM_VER);
  std::size_t nest = w.beginNest(MPTCP_PM_ATTR_ADDR);
  w.putU8(MPTCP_PM_ADDR_ATTR_ID, id);
  w.endNest(nest);
  return w.toRequest(operation);
}

/// An address attribute of `size` bytes (4 or 16); a shorter one is a malformed reply.
IpAddress readAddress(const nlattr* a, std::size_t size) {
  std::span<const uint8_t> bytes = core::readBytes(a);
  if (bytes.size() < size) core::attributeTooShort(size == 4 ? "in_addr" : "in6_addr");
  return IpAddress::fromBytes(bytes.first(size));
}

}  // namespace

namespace mptcp {

MptcpEndpoint decodeEndpoint(const nlmsghdr* m) {
  genl::GenlReply r = genl::decodeGenl(m, MPTCP_PM_ATTR_MAX);
  const nlattr* nest = r.attrs.get(MPTCP_PM_ATTR_ADDR);
  if (!nest) throw Error(make_error_code(Errc::malformed_reply), "ip mptcp endpoint show", "an endpoint without its address");
  core::AttrTable a = core::AttrTable::ofNest(nest, MPTCP_PM_ADDR_ATTR_MAX);
  MptcpEndpoint e;
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_ADDR4)) e.address = readAddress(v, 4);
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_ADDR6)) e.address = readAddress(v, 16);
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_ID)) e.id = core::readU8(v);
  // The kernel sends port 0 for an endpoint without one (6.18 does; 6.1 leaves it out).
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_PORT))
    if (uint16_t port = core::readU16(v)) e.port = port;
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_FLAGS)) e.flags = core::readU32(v);
  if (auto* v = a.get(MPTCP_PM_ADDR_ATTR_IF_IDX)) e.ifindex = core::readS32(v);
  return e;
}

MptcpLimits decodeLimits(const nlmsghdr* m) {
  genl::GenlReply r = genl::decodeGenl(m, MPTCP_PM_ATTR_MAX);
  MptcpLimits l;
  if (auto* v = r.attrs.get(MPTCP_PM_ATTR_RCV_ADD_ADDRS)) l.addAddrAccepted = core::readU32(v);
  if (auto* v = r.attrs.get(MPTCP_PM_ATTR_SUBFLOWS)) l.subflows = core::readU32(v);
  return l;
}

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
  genl::GenlWriter w(family, MPTCP_PM_CMD_ADD_ADDR, MPTCP_PM_VER);
  std::size_t nest = w.beginNest(MPTCP_PM_ATTR_ADDR);
  w.putU16(MPTCP_PM_ADDR_ATTR_FAMILY, e.address.isV4() ? AF_INET : AF_INET6);
  w.putBytes(e.address.isV4() ? MPTCP_PM_ADDR_ATTR_ADDR4 : MPTCP_PM_ADDR_ATTR_ADDR6, e.address.bytes());
  if (e.id) w.putU8(MPTCP_PM_ADDR_ATTR_ID, e.id);
  if (e.port) w.putU16(MPTCP_PM_ADDR_ATTR_PORT, *e.port);
  if (e.flags) w.putU32(MPTCP_PM_ADDR_ATTR_FLAGS, e.flags);
  if (e.ifindex) w.putS32(MPTCP_PM_ADDR_ATTR_IF_IDX, *e.ifindex);
  w.endNest(nest);
  return w.toRequest(op);
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
  genl::GenlWriter w(family, MPTCP_PM_CMD_SET_LIMITS, MPTCP_PM_VER);
  if (l.addAddrAccepted) w.putU32(MPTCP_PM_ATTR_RCV_ADD_ADDRS, *l.addAddrAccepted);
  if (l.subflows) w.putU32(MPTCP_PM_ATTR_SUBFLOWS, *l.subflows);
  return w.toRequest(op);
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
