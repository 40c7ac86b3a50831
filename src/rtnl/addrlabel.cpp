// Address labels: RTM_{NEW,DEL,GET}ADDRLABEL (ifaddrlblmsg, IFAL_ADDRESS, IFAL_LABEL), sent over
// the Netlink's rtnetlink socket through its raw API.
#include "fastlink/addrlabel.hpp"

#include <linux/if_addrlabel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <string>

#include "core/attr_fields.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/dump_all.hpp"

namespace fastlink {
namespace {

/// What the user typed for the entry: errors name the request as ip's command line.
std::string describe(const char* verb, const AddrLabelInfo& e) {
  std::string s = std::string("addrlabel ") + verb + " prefix " + e.prefix.toStringWithLength();
  if (e.ifindex) s += " dev " + std::to_string(e.ifindex);
  return s + " label " + std::to_string(e.label);
}

Request modify(uint16_t type, uint16_t flags, const AddrLabelInfo& e, const char* verb) {
  core::MessageWriter w(type, flags);
  auto& h = w.putHeader<ifaddrlblmsg>();
  h.ifal_family = static_cast<uint8_t>(e.family);
  h.ifal_prefixlen = e.prefix.length();
  h.ifal_index = e.ifindex;
  // ip's order: the label, then the address.
  w.putU32(IFAL_LABEL, e.label);
  w.putBytes(IFAL_ADDRESS, e.prefix.address().bytes());
  return Request(w.release(), describe(verb, e));
}

[[noreturn]] void malformed(const char* why) {
  throw Error(make_error_code(Errc::malformed_reply), "addrlabel list", why);
}

}  // namespace

Request AddrLabelRequests::add(const AddrLabelInfo& entry) {
  return modify(RTM_NEWADDRLABEL, NLM_F_CREATE | NLM_F_EXCL, entry, "add");
}

Request AddrLabelRequests::del(const AddrLabelInfo& entry) { return modify(RTM_DELADDRLABEL, 0, entry, "del"); }

Request AddrLabelRequests::list(AddrLabelFamily family) {
  core::MessageWriter w(RTM_GETADDRLABEL, NLM_F_DUMP);
  w.putHeader<ifaddrlblmsg>().ifal_family = static_cast<uint8_t>(family);
  return Request(w.release(), "addrlabel list");
}

AddrLabelInfo decodeAddrLabel(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(ifaddrlblmsg))) malformed("shorter than ifaddrlblmsg");
  const auto* h = static_cast<const ifaddrlblmsg*>(NLMSG_DATA(m));
  core::AttrTable t = core::AttrTable::ofMessage(m, sizeof(ifaddrlblmsg), IFAL_MAX);
  const nlattr* address = t.get(IFAL_ADDRESS);
  const nlattr* label = t.get(IFAL_LABEL);
  if (!address || !label) malformed("an entry without its address or label");
  AddrLabelInfo e;
  e.family = static_cast<AddrLabelFamily>(h->ifal_family);
  IpAddress a = core::readAddress(address, 0, "addrlabel address");
  if (h->ifal_prefixlen > (a.isV4() ? 32 : 128)) malformed("a prefix length beyond the address");
  e.prefix = Prefix(a, h->ifal_prefixlen);
  e.ifindex = h->ifal_index;
  e.label = core::readU32(label);
  return e;
}

std::vector<AddrLabelInfo> AddrLabelApi::list(AddrLabelFamily family) {
  return rtnl::dumpAll(engine_, AddrLabelRequests::list(family), RTM_NEWADDRLABEL, decodeAddrLabel);
}

void AddrLabelApi::add(const AddrLabelInfo& entry) { engine_.execute(AddrLabelRequests::add(entry)); }

void AddrLabelApi::del(const AddrLabelInfo& entry) { engine_.execute(AddrLabelRequests::del(entry)); }

std::size_t AddrLabelApi::flush(AddrLabelFamily family) {
  // As ip: one dump, then one delete per entry it listed (the dump is read whole first: one
  // request at a time on the socket).
  std::vector<AddrLabelInfo> entries = list(family);
  for (const AddrLabelInfo& e : entries) del(e);
  return entries.size();
}

AddrLabelApi& Netlink::addressLabels() { return lazy(addressLabels_); }

}  // namespace fastlink
