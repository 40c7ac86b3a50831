// RuleInfo <-> RTM_NEWRULE/RTM_DELRULE/RTM_GETRULE messages (fib_rule_hdr + FRA_*).
#pragma once

#include <linux/netlink.h>

#include <string>

#include "fastlink/rule.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Validates and encodes an Add (with `ip rule add`'s defaults) or Del request. Throws
/// Error(EINVAL) on bad input before anything is sent.
Request encodeRule(const RuleInfo& rule, Verb verb);

/// Writes a dump request: only the family may be set (strict checking); with `multicast` the
/// family is RTNL_FAMILY_IPMR/IP6MR (unset: every family, the caller keeps its kind).
void encodeRuleDump(core::MessageWriter& writer, std::optional<IpAddress::Family> family, bool multicast = false);

/// AF_INET, AF_INET6, RTNL_FAMILY_IPMR, RTNL_FAMILY_IP6MR: the families decodeRule reads.
bool isRuleFamily(uint8_t family);

/// Decodes one RTM_NEWRULE message.
RuleInfo decodeRule(const nlmsghdr* message);

}  // namespace fastlink::rtnl
