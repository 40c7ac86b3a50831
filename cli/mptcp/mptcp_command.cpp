// The `mptcp` object: the kernel path manager's endpoints and limits (src/mptcp/, nl.mptcp()),
// printed as `ip mptcp` prints them (text; -j for endpoints as ip's JSON):
//   fastlink mptcp endpoint { show [ id ID ] | add ADDRESS ... | delete id ID | flush }
//   fastlink mptcp limits { show | set [ subflows N ] [ add_addr_accepted N ] }
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/mptcp.hpp"
#include "fastlink/netlink.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink mptcp endpoint add ADDRESS [ dev NAME ] [ id ID ] [ port NR ] [ FLAG-LIST ]
       fastlink mptcp endpoint delete id ID
       fastlink mptcp endpoint show [ id ID ]
       fastlink mptcp endpoint flush
       fastlink mptcp limits set [ subflows NR ] [ add_addr_accepted NR ]
       fastlink mptcp limits show

Where: FLAG-LIST := [ FLAG-LIST ] FLAG
       FLAG  := { signal | subflow | backup | fullmesh })";

/// The flag words in ip's order (bit order), `implicit` included: ip prints it, nobody sets it.
struct FlagWord {
  uint32_t bit;
  const char* word;
};
constexpr FlagWord kFlagWords[] = {{kMptcpSignal, "signal"},
                                   {kMptcpSubflow, "subflow"},
                                   {kMptcpBackup, "backup"},
                                   {kMptcpFullmesh, "fullmesh"},
                                   {kMptcpImplicit, "implicit"}};

/// One endpoint in ip's order and words, each text field followed by a space.
void writeEndpoint(FieldOut& f, const MptcpEndpoint& e, DeviceNames& names) {
  f.any("address", "{} ", e.address.toString());
  if (e.port) f.any("port", "port {} ", unsigned{*e.port});
  f.any("id", "id {} ", unsigned{e.id});
  uint32_t rest = e.flags;
  for (const FlagWord& w : kFlagWords)
    if (e.flags & w.bit) {
      f.flag(w.word, std::string(w.word) + " ");
      rest &= ~w.bit;
    }
  if (rest) f.any("rawflags", "rawflags {:02x} ", rest);
  if (e.ifindex) f.any("dev", "dev {} ", names.name(static_cast<uint32_t>(*e.ifindex)));
}

/// Runs `send` (one request, or a read into the command's variables); a failure is reported as ip
/// reports it (`device`: the device the command named).
template <class Send>
int sendReporting(Send&& send, std::string_view device = {}) {
  try {
    send();
  } catch (const Error& e) {
    return reportFailure(e, device);
  }
  return kExitOk;
}

uint8_t parseId(Args& args) { return static_cast<uint8_t>(parseInteger(args.value("id"), "id", 0, 255)); }

/// `[ id ID ]`, the only words of `endpoint show` and `delete` (`refusal`: anything else).
std::optional<uint8_t> onlyId(Args& args, std::string_view refusal) {
  std::optional<uint8_t> id;
  while (!args.done()) {
    if (args.accept("id")) id = parseId(args);
    else args.unknown(refusal);
  }
  return id;
}

int showEndpoints(Context& ctx, Args& args) {
  std::optional<uint8_t> id = onlyId(args, "mptcp endpoint show takes: id ID");
  Netlink& nl = ctx.netlink();
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  std::vector<MptcpEndpoint> endpoints;
  if (int status = sendReporting([&] {
        if (id) endpoints.push_back(nl.mptcp().endpoint(*id));
        else endpoints = nl.mptcp().endpoints();
      }))
    return status;
  printRecords(endpoints, ctx.options().json, ctx.options().pretty,
               [&](FieldOut& f, const MptcpEndpoint& e) { writeEndpoint(f, e, names); });
  return kExitOk;
}

int addEndpoint(Context& ctx, Args& args) {
  if (args.done()) throw UsageError("mptcp endpoint add: ADDRESS is required");
  MptcpEndpoint e;
  e.address = parseIp(args.next(), "address");
  std::optional<std::string> dev;
  while (!args.done()) {
    if (args.accept("dev")) dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("id")) e.id = parseId(args);
    else if (args.accept("port")) e.port = static_cast<uint16_t>(parseInteger(args.value("port"), "port", 0, 65535));
    else {
      bool known = false;
      for (const FlagWord& w : kFlagWords)
        if (w.bit != kMptcpImplicit && args.accept(w.word)) {
          e.flags |= w.bit;
          known = true;
          break;
        }
      if (!known) args.unknown("mptcp endpoint add takes: dev NAME, id ID, port NR, signal, subflow, backup, fullmesh");
    }
  }
  Netlink& nl = ctx.netlink();
  return sendReporting(
      [&] {
        if (dev) e.ifindex = static_cast<int32_t>(nl.links().indexOf(Ifref(*dev)));
        nl.mptcp().addEndpoint(e);
      },
      dev.value_or(""));
}

int deleteEndpoint(Context& ctx, Args& args) {
  std::optional<uint8_t> id = onlyId(args, "mptcp endpoint delete takes: id ID");
  if (!id) throw UsageError("mptcp endpoint delete: \"id ID\" is required");
  return sendReporting([&] { ctx.netlink().mptcp().deleteEndpoint(*id); });
}

int runEndpoint(Context& ctx, Args& args) {
  const std::string verb = args.done() ? "show" : args.next();
  if (matches(verb, "add")) return addEndpoint(ctx, args);
  if (matches(verb, "delete")) return deleteEndpoint(ctx, args);
  if (matches(verb, "show") || verb == "list") return showEndpoints(ctx, args);
  if (matches(verb, "flush")) {
    if (!args.done()) args.unknown("mptcp endpoint flush takes nothing");
    return sendReporting([&] { ctx.netlink().mptcp().flushEndpoints(); });
  }
  throw UsageError("mptcp endpoint verbs: add, delete, show, flush (not \"" + verb + "\")");
}

int runLimits(Context& ctx, Args& args) {
  const std::string verb = args.done() ? "show" : args.next();
  // As ip, `s` is `set`; a set without a limit is refused here (ip sends it and changes nothing).
  if (matches(verb, "set")) {
    MptcpLimits l;
    while (!args.done()) {
      if (args.accept("subflows")) l.subflows = parseU32(args.value("subflows"), "subflows");
      else if (args.accept("add_addr_accepted")) l.addAddrAccepted = parseU32(args.value("add_addr_accepted"), "add_addr_accepted");
      else args.unknown("mptcp limits set takes: subflows NR, add_addr_accepted NR");
    }
    if (!l.subflows && !l.addAddrAccepted) throw UsageError("mptcp limits set: subflows NR or add_addr_accepted NR is required");
    return sendReporting([&] { ctx.netlink().mptcp().setLimits(l); });
  }
  if (!matches(verb, "show")) throw UsageError("mptcp limits verbs: set, show (not \"" + verb + "\")");
  if (!args.done()) args.unknown("mptcp limits show takes nothing");
  MptcpLimits limits;
  if (int status = sendReporting([&] { limits = ctx.netlink().mptcp().limits(); })) return status;
  // ip 6.1 prints the limits as text even under -j; fastlink prints the JSON asked for.
  printRecords(std::vector<MptcpLimits>{limits}, ctx.options().json, ctx.options().pretty, [](FieldOut& f, const MptcpLimits& l) {
    if (l.addAddrAccepted) f.any("add_addr_accepted", "add_addr_accepted {} ", *l.addAddrAccepted);
    if (l.subflows) f.any("subflows", "subflows {} ", *l.subflows);
  });
  return kExitOk;
}

int runMptcp(Context& ctx, Args& args) {
  if (args.done() || args.peek() == "help") {
    printLine(kUsage);
    return kExitOk;
  }
  const std::string what = args.next();
  if (matches(what, "endpoint")) return runEndpoint(ctx, args);
  if (matches(what, "limits")) return runLimits(ctx, args);
  throw UsageError("mptcp objects: endpoint, limits (not \"" + what + "\")");
}

const Registrar kMptcp{ObjectCommand{.name = "mptcp", .aliases = {}, .usage = kUsage, .run = runMptcp, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
