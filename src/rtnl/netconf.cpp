// netconf: RTM_GETNETCONF dumps and gets over the raw API (netconfmsg, NETCONFA_* attributes).
#include "fastlink/netconf.hpp"

#include <linux/netconf.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <string>

#include "fastlink/netlink.hpp"
#include "fastlink/raw.hpp"

namespace fastlink {
namespace {

RawMessage request(NetconfFamily family) {
  RawMessage m;
  m.type = RTM_GETNETCONF;
  m.header.assign(sizeof(netconfmsg), static_cast<uint8_t>(family));  // padded to 4 on the wire
  return m;
}

template <class T>
std::optional<T> value(const RawMessage& m, uint16_t type) {
  auto a = m.attributes.find(type);
  if (!a || a->payload.size() < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, a->payload.data(), sizeof v);
  return v;
}

std::optional<bool> flag(const RawMessage& m, uint16_t type) {
  auto v = value<uint32_t>(m, type);
  return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

NetconfInfo decode(const RawMessage& m) {
  NetconfInfo n;
  if (!m.header.empty()) n.family = static_cast<NetconfFamily>(m.header[0]);
  n.ifindex = value<int32_t>(m, NETCONFA_IFINDEX);
  n.forwarding = flag(m, NETCONFA_FORWARDING);
  n.rpFilter = value<uint32_t>(m, NETCONFA_RP_FILTER);
  n.mcForwarding = flag(m, NETCONFA_MC_FORWARDING);
  n.proxyNeigh = flag(m, NETCONFA_PROXY_NEIGH);
  n.ignoreRoutesWithLinkdown = flag(m, NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN);
  n.input = flag(m, NETCONFA_INPUT);
  return n;
}

}  // namespace

std::vector<NetconfInfo> listNetconf(Netlink& nl, NetconfFamily family) {
  std::vector<NetconfInfo> out;
  nl.raw(Protocol::Route).dump(
      request(family), [&](const RawMessage& m) { out.push_back(decode(m)); }, "netconf show", sizeof(netconfmsg),
      [&] { out.clear(); });
  return out;
}

NetconfInfo getNetconf(Netlink& nl, NetconfFamily family, int32_t ifindex) {
  RawMessage m = request(family);
  m.attributes.append(NETCONFA_IFINDEX, {reinterpret_cast<const uint8_t*>(&ifindex), sizeof ifindex});
  return decode(nl.raw(Protocol::Route).query(m, "netconf show dev " + std::to_string(ifindex), sizeof(netconfmsg)));
}

}  // namespace fastlink
