// The `token` object: IPv6 interface identifier tokens (fastlink/token.hpp), with ip's grammar,
// abbreviations, text and -j output and exit statuses:
//   fastlink token [ list | get ] [ dev DEV ]
//   fastlink token { set | add } TOKEN dev DEV
//   fastlink token del dev DEV
#include <fmt/format.h>
#include <net/if.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/token.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/ip_compat.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink token [ list | set | del | get ] [ TOKEN ] [ dev DEV ]
       (-j prints JSON; see docs/cli/token.md))";


/// `dev DEV` as ip resolves it before sending: a device that does not exist is a usage error (255).
uint32_t deviceIndex(Netlink& nl, const std::string& name) {
  std::optional<uint32_t> index = nl.links().findIndex(name);
  if (!index) throw UsageError(fmt::format("dev: Cannot find device \"{}\"", name));
  return *index;
}

int list(Context& ctx, Args& args) {
  Netlink& nl = ctx.netlink();
  std::optional<uint32_t> only;
  // ip reads `dev DEV` and ignores every other word (and what follows the device).
  while (!args.done()) {
    if (args.accept("dev")) {
      only = deviceIndex(nl, args.value("dev"));
      break;
    }
    args.next();
  }
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  std::vector<TokenInfo> shown;
  try {
    names.load(nl.links());  // before the token dump: one dump at a time on the socket
    for (TokenInfo& t : nl.tokens().list()) {
      // As ip: no loopback, no NOARP device, no index 0; a record without a token ends the dump.
      if (t.ifindex == 0 || (only && t.ifindex != *only) || (t.flags & (IFF_LOOPBACK | IFF_NOARP))) continue;
      if (!t.token)
        throw Error(std::make_error_code(std::errc::operation_not_supported), "token list",
                    "the kernel reports no IPv6 token for device " + names.name(t.ifindex));
      shown.push_back(std::move(t));
    }
  } catch (const Error& e) {
    reportFailure(e);
    return kExitBadValue;  // ip: "Dump terminated", exit status 1
  }
  printRecords(shown, ctx.options().json, ctx.options().pretty, [&](FieldOut& f, const TokenInfo& t) {
    f.text("token ");
    f.any("token", "{}", t.token->toString());
    f.text(" dev ");
    f.any("ifname", "{}", names.name(t.ifindex));
  });
  return kExitOk;
}

/// A set or del line: the token, and the device as typed (resolved already when `resolveNow`).
struct ParsedToken {
  IpAddress token;
  std::string dev;
  uint32_t ifindex = 0;
};

ParsedToken parseSet(Context& ctx, Args& args, bool del, bool resolveNow) {
  std::optional<IpAddress> token;
  if (del) token = IpAddress::parse("::");
  std::optional<std::string> dev;
  ParsedToken p;
  // As ip: the first token and the first device count; later ones are read and ignored.
  while (!args.done()) {
    if (args.accept("dev")) {
      const std::string& name = args.value("dev");
      if (!dev) {
        if (resolveNow) p.ifindex = deviceIndex(ctx.netlink(), name);
        dev = name;
      }
      continue;
    }
    const std::string& word = args.next();
    if (matches(word, "help")) throw UsageError(kUsage);
    if (token) continue;
    Prefix prefix = parsePrefixAs("token", word);  // ip: exit status 1
    if (prefix.isV4()) throw BadValueError(fmt::format("inet6 prefix is expected rather than \"{}\".", word));
    token = prefix.address();  // the prefix length is not sent: the kernel keeps the lower 64 bits
  }
  if (!token) throw BadValueError("token set: a TOKEN is required");
  if (!dev) throw BadValueError(fmt::format("token {}: \"dev DEV\" is required", del ? "del" : "set"));
  p.token = *token;
  p.dev = *dev;
  return p;
}

int set(Context& ctx, Args& args, bool del) {
  ParsedToken p = parseSet(ctx, args, del, true);
  try {
    ctx.netlink().tokens().set(p.ifindex, p.token);
  } catch (const Error& e) {
    return reportFailure(Error(e.code(), args.text(), e.extack()), p.dev);  // named as the user typed it
  }
  return kExitOk;
}

/// A -batch line: set (add) and del are one request each; list and get read, and are refused.
PreparedRequest prepareToken(Context& ctx, Args& args) {
  std::string verb = args.done() ? std::string("list") : args.next();
  bool del = matches(verb, "delete");
  if (!del && !matches(verb, "set") && !matches(verb, "add")) {
    if (matches(verb, "help")) throw UsageError(kUsage);
    throw UsageError(fmt::format("token {} cannot be used in a batch (a batch sends set and del lines)", verb));
  }
  ParsedToken p = parseSet(ctx, args, del, false);
  return requestNamingDevice(p.dev, [token = p.token](uint32_t index) { return TokenRequests::set(index, token); });
}

int runToken(Context& ctx, Args& args) {
  return runIpVerbs(ctx, args, kUsage, "token verbs: list, set, del, get, help",
                    {{{"list", "lst", "show"}, list},
                     {{"set", "add"}, [](Context& c, Args& a) { return set(c, a, false); }},
                     {{"delete"}, [](Context& c, Args& a) { return set(c, a, true); }},
                     {{"get"}, list}});
}

const Registrar kToken{ObjectCommand{.name = "token", .aliases = {}, .usage = kUsage, .run = runToken, .prepare = prepareToken}};

}  // namespace
}  // namespace fastlink::cli
