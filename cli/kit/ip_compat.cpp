#include "kit/ip_compat.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "kit/command.hpp"

namespace fastlink::cli {
namespace {

/// One entry of ip's tables: the word ip compares with matches(), and the word fastlink's
/// parser takes for it (the same unless fastlink spells it otherwise).
struct IpWord {
  std::string_view ip;
  std::string_view fastlink;
};

// ip.c's command table, in its order (the first match wins: `n` is neighbor, not ntable).
constexpr IpWord kObjects[] = {
    {"address", "address"}, {"addrlabel", "addrlabel"}, {"maddress", "maddress"}, {"route", "route"},
    {"rule", "rule"},       {"neighbor", "neigh"},      {"neighbour", "neigh"},   {"ntable", "ntable"},
    {"ntbl", "ntbl"},       {"link", "link"},           {"l2tp", "l2tp"},         {"fou", "fou"},
    {"ila", "ila"},         {"macsec", "macsec"},       {"tunnel", "tunnel"},     {"tuntap", "tuntap"},
    {"tap", "tuntap"},      {"token", "token"},         {"tcpmetrics", "tcpmetrics"},
    {"tcp_metrics", "tcp_metrics"}, {"monitor", "monitor"}, {"xfrm", "xfrm"}, {"mroute", "mroute"},
    {"mrule", "mrule"},     {"netns", "netns"},         {"netconf", "netconf"},   {"vrf", "vrf"},
    {"sr", "sr"},           {"nexthop", "nexthop"},     {"mptcp", "mptcp"},       {"ioam", "ioam"},
    {"stats", "stats"},     {"help", "help"}};

// The verbs of each object, in the order its do_ip*() function tries them (ip/ipaddress.c,
// iproute.c, ipneigh.c, iprule.c, iplink.c, ipnexthop.c, iptuntap.c, ipnetconf.c,
// ipmaddr.c of iproute2 6.1).
constexpr IpWord kAddressVerbs[] = {{"add", "add"},   {"change", "change"}, {"replace", "replace"}, {"delete", "delete"},
                                    {"list", "list"}, {"show", "show"},     {"lst", "lst"},         {"flush", "flush"},
                                    {"save", "save"}, {"showdump", "showdump"}, {"restore", "restore"}, {"help", "help"}};
constexpr IpWord kRouteVerbs[] = {{"add", "add"},       {"change", "change"}, {"replace", "replace"}, {"prepend", "prepend"},
                                  {"append", "append"}, {"test", "test"},     {"delete", "delete"},   {"list", "list"},
                                  {"show", "show"},     {"lst", "lst"},       {"get", "get"},         {"flush", "flush"},
                                  {"save", "save"},     {"restore", "restore"}, {"showdump", "showdump"}, {"help", "help"}};
constexpr IpWord kNeighVerbs[] = {{"add", "add"}, {"change", "change"}, {"replace", "replace"}, {"delete", "delete"},
                                  {"get", "get"}, {"show", "show"},     {"lst", "lst"},         {"list", "list"},
                                  {"flush", "flush"}, {"help", "help"}};
constexpr IpWord kRuleVerbs[] = {{"list", "list"}, {"lst", "lst"},       {"show", "show"},     {"save", "save"},
                                 {"restore", "restore"}, {"add", "add"}, {"delete", "delete"}, {"flush", "flush"},
                                 {"help", "help"}};
constexpr IpWord kLinkVerbs[] = {{"add", "add"},       {"set", "set"},   {"change", "change"}, {"replace", "replace"},
                                 {"delete", "delete"}, {"show", "show"}, {"lst", "lst"},       {"list", "list"},
                                 {"xstats", "xstats"}, {"afstats", "afstats"}, {"property", "property"}, {"help", "help"}};
constexpr IpWord kNexthopVerbs[] = {{"add", "add"},   {"replace", "replace"}, {"delete", "delete"}, {"list", "list"},
                                    {"show", "show"}, {"lst", "list"},        {"get", "get"},       {"flush", "flush"},
                                    {"bucket", "bucket"}, {"help", "help"}};
constexpr IpWord kTuntapVerbs[] = {{"add", "add"},   {"delete", "delete"}, {"show", "show"},
                                   {"list", "list"}, {"lst", "lst"},       {"help", "help"}};
constexpr IpWord kMaddressVerbs[] = {{"add", "add"}, {"delete", "delete"}, {"list", "list"},
                                     {"show", "show"}, {"lst", "lst"},       {"help", "help"}};
constexpr IpWord kNetconfVerbs[] = {{"show", "show"}, {"lst", "lst"}, {"list", "list"}, {"help", "help"}};

/// iproute2's matches(): `word` is a non-empty prefix of `name`.
bool matches(std::string_view word, std::string_view name) { return !word.empty() && name.starts_with(word); }

template <std::size_t N>
std::pair<const IpWord*, const IpWord*> range(const IpWord (&table)[N]) {
  return {table, table + N};
}

}  // namespace

std::string resolveIpObject(std::string_view word) {
  if (const ObjectCommand* command = findCommand(word)) return std::string(command->name);  // `a` is `address`
  for (const auto& o : kObjects)
    if (matches(word, o.ip)) return std::string(o.fastlink);
  return std::string(word);
}

bool isIpObject(std::string_view object) {
  return std::any_of(std::begin(kObjects), std::end(kObjects), [&](const IpWord& o) { return o.fastlink == object; });
}

std::string_view resolvedIpVerb(std::string_view object, std::string_view verb) {
  std::pair<const IpWord*, const IpWord*> verbs{nullptr, nullptr};
  if (object == "address") verbs = range(kAddressVerbs);
  else if (object == "route") verbs = range(kRouteVerbs);
  else if (object == "neigh") verbs = range(kNeighVerbs);
  else if (object == "rule" || object == "mrule") verbs = range(kRuleVerbs);
  else if (object == "link") verbs = range(kLinkVerbs);
  else if (object == "nexthop") verbs = range(kNexthopVerbs);
  else if (object == "tuntap") verbs = range(kTuntapVerbs);
  else if (object == "netconf") verbs = range(kNetconfVerbs);
  else if (object == "maddress") verbs = range(kMaddressVerbs);
  for (auto v = verbs.first; v != verbs.second; ++v)
    if (verb == v->ip) return verb;  // a whole verb: no abbreviation to resolve
  for (auto v = verbs.first; v != verbs.second; ++v)
    if (matches(verb, v->ip)) return v->fastlink;
  return verb;
}

void resolveIpVerb(std::vector<std::string>& words) {
  if (words.size() < 2) return;
  std::string_view verb = resolvedIpVerb(words[0], words[1]);
  if (verb.data() != words[1].data()) words[1] = verb;
}

std::optional<IpAddress::Family> familyOption(const Context& ctx) {
  if (ctx.options().family == FamilyOption::Inet) return IpAddress::Family::v4;
  if (ctx.options().family == FamilyOption::Inet6) return IpAddress::Family::v6;
  return std::nullopt;
}

void requireFamily(const Context& ctx, IpAddress::Family family, std::string_view typed, std::string_view what) {
  std::optional<IpAddress::Family> wanted = familyOption(ctx);
  if (!wanted || *wanted == family) return;
  throw BadValueError(fmt::format("{} {} is expected rather than \"{}\".",
                                  *wanted == IpAddress::Family::v4 ? "inet" : "inet6", what, typed));
}

/// ip's get_addr_ipv4 reads an IPv4 address of fewer than four parts, the rest zero: `0/0`,
/// `10/8`, `172.16/12` (old scripts write routes so). `text` with its address padded to four
/// parts when it is such a short prefix (decimal parts up to 255, a `/LEN`), else as it is.
std::string padShortIpv4Prefix(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::string(text);
  std::string_view address = text.substr(0, slash);
  int parts = 1;
  for (std::size_t i = 0, digits = 0; i < address.size(); ++i) {
    if (address[i] == '.') {
      if (digits == 0) return std::string(text);
      ++parts, digits = 0;
    } else if (!std::isdigit(static_cast<unsigned char>(address[i])) || ++digits > 3) {
      return std::string(text);
    }
  }
  if (parts >= 4 || address.back() == '.') return std::string(text);
  std::string padded(address);
  for (; parts < 4; ++parts) padded += ".0";
  return padded + std::string(text.substr(slash));
}

Prefix parsePrefixAs(std::string_view what, std::string_view text) {
  try {
    return Prefix::parse(text);
  } catch (const Error& e) {
    // A short IPv4 prefix, else the error names the text as it was written.
    if (std::string padded = padShortIpv4Prefix(text); padded != text) {
      try {
        return Prefix::parse(padded);
      } catch (const Error&) {
      }
    }
    throw BadValueError(fmt::format("{}: {}", what, e.reason()));
  }
}

Prefix parseIpPrefix(const Context& ctx, const std::string& text) {
  Prefix p = parsePrefixAs("prefix", text);
  requireFamily(ctx, p.family(), text, "prefix");
  return p;
}

Netns parseNetnsTarget(const std::string& word) {
  if (word.find('/') != std::string::npos) return Netns::path(word);
  if (::access(("/run/netns/" + word).c_str(), F_OK) == 0) return Netns::named(word);
  bool number = !word.empty() && word.size() <= 9 &&
                std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (number) return Netns::pid(static_cast<pid_t>(std::stol(word)));
  return Netns::named(word);
}

}  // namespace fastlink::cli
