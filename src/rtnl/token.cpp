// IPv6 tokens: RTM_SETLINK with IFLA_AF_SPEC { AF_INET6 { IFLA_INET6_TOKEN } } and the AF_INET6
// link dump (IFLA_PROTINFO { IFLA_INET6_TOKEN }), over the Netlink's rtnetlink socket.
#include "fastlink/token.hpp"

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <string>

#include "core/attr_fields.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/dump_all.hpp"

namespace fastlink {
namespace {

[[noreturn]] void malformed(const char* why) { throw Error(make_error_code(Errc::malformed_reply), "token list", why); }

}  // namespace

Request TokenRequests::set(uint32_t ifindex, const IpAddress& token) {
  if (token.isV4())
    throw Error(std::make_error_code(std::errc::invalid_argument), "token set",
                "a token is an IPv6 interface identifier, not " + token.toString());
  core::MessageWriter w(RTM_SETLINK, 0);
  auto& h = w.putHeader<ifinfomsg>();
  h.ifi_family = AF_INET6;
  h.ifi_index = static_cast<int>(ifindex);
  std::size_t spec = w.beginNest(IFLA_AF_SPEC);
  std::size_t inet6 = w.beginNest(AF_INET6);
  w.putBytes(IFLA_INET6_TOKEN, token.bytes());
  w.endNest(inet6);
  w.endNest(spec);
  return Request(w.release(), "token set " + token.toString() + " dev " + std::to_string(ifindex));
}

Request TokenRequests::list() {
  core::MessageWriter w(RTM_GETLINK, NLM_F_DUMP);
  w.putHeader<ifinfomsg>().ifi_family = AF_INET6;
  return Request(w.release(), "token list");
}

TokenInfo decodeToken(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg))) malformed("shorter than ifinfomsg");
  const auto* h = static_cast<const ifinfomsg*>(NLMSG_DATA(m));
  TokenInfo t;
  t.ifindex = static_cast<uint32_t>(h->ifi_index);
  t.flags = h->ifi_flags;
  core::AttrTable attrs = core::AttrTable::ofMessage(m, sizeof(ifinfomsg), IFLA_PROTINFO);
  if (const nlattr* info = attrs.get(IFLA_PROTINFO)) {
    core::AttrTable inet6 = core::AttrTable::ofNest(info, IFLA_INET6_TOKEN);
    if (const nlattr* token = inet6.get(IFLA_INET6_TOKEN)) t.token = core::readAddress(token, 16, "IPv6 token");
  }
  return t;
}

std::vector<TokenInfo> TokenApi::list() {
  // An AF_INET6 dump answers with the IPv6 records only; anything else is not a token.
  return rtnl::dumpAll(engine_, TokenRequests::list(), RTM_NEWLINK, decodeToken, [](const nlmsghdr* m) {
    return m->nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg)) && static_cast<const ifinfomsg*>(NLMSG_DATA(m))->ifi_family == AF_INET6;
  });
}

void TokenApi::set(uint32_t ifindex, const IpAddress& token) { engine_.execute(TokenRequests::set(ifindex, token)); }

void TokenApi::clear(uint32_t ifindex) { set(ifindex, IpAddress::parse("::")); }

TokenApi& Netlink::tokens() { return lazy(tokens_); }

}  // namespace fastlink
