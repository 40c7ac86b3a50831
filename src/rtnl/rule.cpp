// Rules: request builders, and the kernel-backed RuleApi.
#include <sys/socket.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "rtnl/rule_codec.hpp"

namespace fastlink {

using core::MessageWriter;

RuleApi& Netlink::rules() { return lazy(rules_); }

RuleInfo& RuleInfo::setTable(std::string_view nameOrNumber) {
  table = RouteNames::system().tableId(nameOrNumber);
  return *this;
}

Request RuleRequests::add(const RuleInfo& rule) {
  MessageWriter w(RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL);
  rtnl::encodeRule(w, rule, rtnl::RuleEncodeMode::Add);
  return w.toRequest(rtnl::describeRule("add", rule));
}

Request RuleRequests::del(const RuleInfo& rule) {
  MessageWriter w(RTM_DELRULE, 0);
  rtnl::encodeRule(w, rule, rtnl::RuleEncodeMode::Del);
  return w.toRequest(rtnl::describeRule("del", rule));
}

void RuleApi::add(const RuleInfo& rule) {
  Request r = RuleRequests::add(rule);
  engine_.execute(r.bytes(), r.operation());
}

void RuleApi::del(const RuleInfo& rule) {
  Request r = RuleRequests::del(rule);
  engine_.execute(r.bytes(), r.operation());
}

void RuleApi::forEach(const RuleFilter& filter, const std::function<void(const RuleInfo&)>& each,
                      const std::function<void()>& restart) {
  MessageWriter w(RTM_GETRULE, 0);
  rtnl::encodeRuleDump(w, filter.family);
  engine_.dump(
      w.bytes(), "rule show",
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWRULE) return;
        const auto* frh = core::messageHeader<fib_rule_hdr>(m);
        if (!frh || (frh->family != AF_INET && frh->family != AF_INET6)) return;  // e.g. ipmr rules
        RuleInfo r = rtnl::decodeRule(m);
        if (filter.priority && r.priority != filter.priority) return;
        if (filter.table && r.table != filter.table) return;
        if (filter.iif && r.iif != filter.iif) return;
        if (filter.oif && r.oif != filter.oif) return;
        each(r);
      },
      restart);
}

std::vector<RuleInfo> RuleApi::list(const RuleFilter& filter) {
  std::vector<RuleInfo> out;
  forEach(filter, [&](const RuleInfo& r) { out.push_back(r); }, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
