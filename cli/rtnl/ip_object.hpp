// What the rtnetlink objects' commands read and print the same way, written once: ip's
// abbreviated verbs (matches(), and the verb table of the objects whose every verb ip
// abbreviates), a library name lookup's error as the keyword's usage error (tables, protocols,
// scopes, NUD states), the family words of a show line, the device names a listing prints, and
// a show command's streamed text or JSON.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/route.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/field_stream.hpp"

namespace fastlink::cli {

/// ip's matches(): `word` is a non-empty prefix of `name` (`s` for show, `del` for delete).
inline bool matches(std::string_view word, std::string_view name) { return !word.empty() && name.starts_with(word); }

/// A verb of an object whose verbs ip abbreviates (addrlabel, token, mroute, ntable): the names
/// that select it, in ip's order, and what it runs on the words after it.
struct IpVerb {
  std::initializer_list<std::string_view> names;
  int (*run)(Context& ctx, Args& args);
};

/// ip's dispatch for those objects: no words run the first verb; else the first verb one of
/// whose names the word abbreviates (in the table's order: ip's, which decides `l`, `s`, `d`);
/// else a prefix of `help` is `usage` (a UsageError: ip prints it and exits 255) and any other
/// word is refused as `REFUSAL (not "WORD")`.
inline int runIpVerbs(Context& ctx, Args& args, const char* usage, std::string_view refusal,
                      std::initializer_list<IpVerb> verbs) {
  if (args.done()) return verbs.begin()->run(ctx, args);
  std::string verb = args.next();
  for (const IpVerb& v : verbs)
    for (std::string_view name : v.names)
      if (matches(verb, name)) return v.run(ctx, args);
  if (matches(verb, "help")) throw UsageError(usage);
  throw UsageError(fmt::format("{} (not \"{}\")", refusal, verb));
}

/// `f()`, with a library Error it throws (a name its tables do not know, a prefix that does not
/// parse) turned into the UsageError `KEYWORD: REASON`.
template <class F>
auto orUsage(std::string_view keyword, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: {}", keyword, e.reason()));
  }
}

/// A routing table as ip reads it (rt_tables' names or a number).
inline uint32_t parseRouteTable(std::string_view text) {
  return orUsage("table", [&] { return RouteNames::system().tableId(text); });
}
/// A route protocol as ip reads it (rt_protos' names or a number), errors naming `keyword`.
inline RouteProtocol parseRouteProtocol(std::string_view text, std::string_view keyword = "proto") {
  return orUsage(keyword, [&] { return RouteNames::system().protocol(text); });
}

/// The request of a -batch line about the device `dev` (or none), its errors naming the line as
/// typed: `encode(index)` builds it with the device's ifindex (0 without a device).
template <class Encode>
PreparedRequest requestNamingDevice(const std::optional<std::string>& dev, Encode encode) {
  PreparedRequest r;
  if (dev) r.needs = {*dev};
  r.device = dev;
  r.namedAsTyped = true;
  r.encode = [dev, encode = std::move(encode)](Resolver& resolver) { return encode(dev ? resolver.index(*dev) : 0u); };
  return r;
}

/// `-4`/`inet` or `-6`/`inet6` among a show line's words (ip's family words after the verb).
inline std::optional<IpAddress::Family> acceptFamilyWord(Args& args) {
  if (args.acceptAny({"-4", "inet"})) return IpAddress::Family::v4;
  if (args.acceptAny({"-6", "inet6"})) return IpAddress::Family::v6;
  return std::nullopt;
}

/// The names a listing prints for its devices, read by one streamed link dump: call it before the
/// listing's own dump (one dump at a time on the socket).
inline DeviceNames loadDeviceNames(Netlink& nl) {
  DeviceNames names;
  names.load(nl.links());
  return names;
}

/// A show command's streamed output: `print(fields, restart)` with StreamJson fields under -j
/// (-p: indented), else StreamText, over one OutBuffer; `restart` is what a dump that the kernel
/// restarts (NLM_F_DUMP_INTR) calls. What was written is flushed also when `print` throws.
template <class Print>
void streamFields(const Context& ctx, Print&& print) {
  OutBuffer out;
  if (ctx.options().json) {
    JsonOut j(out, ctx.options().pretty);
    StreamJson fields(j);
    print(fields, [&] { j.restartDump(); });
  } else {
    StreamText fields(out);
    print(fields, [&] { out.restartDump(); });
  }
}

}  // namespace fastlink::cli
