// What scripts written for ip rely on beyond each object's grammar: ip's abbreviations (`ip a s`,
// `ip ro sh`, `ip l s` resolved the way iproute2's matches() does it: the word is a prefix of the
// name, the first name in ip's own order wins) and the family options -4/-6 checked against the
// addresses a command gives.
#pragma once

#include "fastlink/netns.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/types.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastlink::cli {

/// The object `word` names as ip resolves it: a fastlink object's name (also for an alias), else
/// the first object of ip's table that `word` begins (`ne` = neighbor, `m` = maddress), else
/// `word` itself.
std::string resolveIpObject(std::string_view word);

/// True when `object` (as resolveIpObject returns it) is an object of ip's table: one fastlink
/// lacks is refused by its name as a usage error, not as an unknown word.
bool isIpObject(std::string_view object);

/// Rewrites words[1], the verb after the object words[0], to the verb ip takes it for (`s` after
/// `address` is `show`, after `link` it is `set`), when the object is one of ip's and the word is
/// a strict prefix of one of its verbs. Other words stay as they are.
void resolveIpVerb(std::vector<std::string>& words);
/// The verb `verb` of `object` stands for: itself, or a static string (never a copy).
std::string_view resolvedIpVerb(std::string_view object, std::string_view verb);

class Context;
/// The family -4/-6 (or -f) selects, as ip's preferred_family; none for -0 and no option.
std::optional<IpAddress::Family> familyOption(const Context& ctx);

/// Refuses, as ip does, an address (`what` = "address") or prefix ("prefix") of the other family
/// than -4/-6 selects: `inet6 prefix is expected rather than "10.0.0.0/8".` (BadValueError, exit
/// status 1). `typed` is the word as given.
void requireFamily(const Context& ctx, IpAddress::Family family, std::string_view typed, std::string_view what);

/// A prefix (or address) word after the keyword `what`: one that does not parse is `WHAT:
/// REASON` (BadValueError, exit status 1, as ip's get_prefix fails).
Prefix parsePrefixAs(std::string_view what, std::string_view text);

/// A prefix (or address) word as ip's get_prefix reads it: one that does not parse is
/// `prefix: REASON`, one of the other family than -4/-6 select is requireFamily's message (both
/// BadValueError, exit status 1).
Prefix parseIpPrefix(const Context& ctx, const std::string& text);

/// The namespace `netns WORD` names in `link add/set` and a veth's peer, as ip's netns_get_fd
/// then get_integer: a word with a '/' is a path (`/proc/PID/ns/net`), a name under /run/netns
/// that exists is that namespace, a number is a process id (IFLA_NET_NS_PID), else the name
/// (which then fails to open, naming it).
Netns parseNetnsTarget(const std::string& word);

}  // namespace fastlink::cli
