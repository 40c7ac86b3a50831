// RuleInfo <-> RTM_NEWRULE/RTM_DELRULE/RTM_GETRULE messages (fib_rule_hdr + FRA_*).
#pragma once

#include <linux/netlink.h>

#include <string>

#include "core/message.hpp"
#include "fastlink/rule.hpp"

namespace fastlink::rtnl {

enum class RuleEncodeMode { Add, Del };

/// Validates `rule` and writes its fib_rule_hdr and attributes, with `ip rule add`'s defaults
/// for an add. Throws Error(EINVAL) on bad input before anything is sent.
void encodeRule(core::MessageWriter& writer, const RuleInfo& rule, RuleEncodeMode mode);

/// Writes a dump request: only the family may be set (strict checking).
void encodeRuleDump(core::MessageWriter& writer, std::optional<IpAddress::Family> family);

/// Decodes one RTM_NEWRULE message.
RuleInfo decodeRule(const nlmsghdr* message);

/// "rule add pref 100 from 10.0.0.0/8 lookup 100" for error messages.
std::string describeRule(const char* verb, const RuleInfo& rule);

}  // namespace fastlink::rtnl
