// The `addrlabel` object: the kernel's IPv6 address label table (fastlink/addrlabel.hpp), with
// ip's grammar, verb abbreviations, text and -j output and exit statuses:
//   fastlink addrlabel { add | del } prefix PREFIX [ dev DEV ] label LABEL
//   fastlink addrlabel [ list | flush | help ]
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/addrlabel.hpp"
#include "fastlink/netlink.hpp"
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

constexpr const char* kUsage = R"(Usage: fastlink addrlabel { add | del } prefix PREFIX [ dev DEV ] label LABEL
       fastlink addrlabel [ list | flush | help ]
       (-j prints JSON; see docs/cli/addrlabel.md))";


/// The family ip puts in its requests: -4/-6/-0 as given (the kernel has labels for inet6 only
/// and refuses the others), inet6 without one.
AddrLabelFamily requestFamily(const Context& ctx) {
  switch (ctx.options().family) {
    case FamilyOption::Inet: return AddrLabelFamily::Inet;
    case FamilyOption::Link: return AddrLabelFamily::Packet;
    default: return AddrLabelFamily::Inet6;
  }
}

/// One entry in ip's words: `prefix ADDR/LEN [dev DEV] label N `; JSON address, prefixlen,
/// ifname, label.
void writeEntry(FieldOut& f, const AddrLabelInfo& e, DeviceNames& names) {
  f.text("prefix ");
  f.any("address", "{}", e.prefix.address().toString());
  f.any("prefixlen", "/{} ", unsigned{e.prefix.length()});
  if (e.ifindex) {
    f.text("dev ");
    f.any("ifname", "{} ", names.name(e.ifindex));
  }
  f.any("label", "label {} ", e.label);
}

int list(Context& ctx, Args& args) {
  // ip: "ip addrlabel show" does not take any arguments (exit status 1).
  if (!args.done()) throw BadValueError(fmt::format("addrlabel list takes no arguments (not \"{}\")", args.peek()));
  Netlink& nl = ctx.netlink();
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  std::vector<AddrLabelInfo> entries;
  try {
    entries = nl.addressLabels().list(requestFamily(ctx));
  } catch (const Error& e) {
    reportFailure(e);
    return kExitUsage;  // ip: "Dump terminated", exit status 255
  }
  printRecords(entries, ctx.options().json, ctx.options().pretty,
               [&](FieldOut& f, const AddrLabelInfo& e) { writeEntry(f, e, names); });
  return kExitOk;
}

/// An add or del line: the entry, and the device as typed (resolved already when `resolveNow`).
struct ParsedEntry {
  AddrLabelInfo entry;
  std::optional<std::string> dev;
};

ParsedEntry parseEntry(Context& ctx, Args& args, bool add, bool resolveNow) {
  const char* verb = add ? "add" : "del";
  ParsedEntry p;
  // ip sends -4's family as given (the kernel refuses it), inet6 otherwise; an IPv4 prefix
  // without -4 goes as inet6 and the kernel refuses its 4-byte address.
  p.entry.family = ctx.options().family == FamilyOption::Inet ? AddrLabelFamily::Inet : AddrLabelFamily::Inet6;
  bool prefix = false, label = false;
  // Each word is checked where it stands, as ip does: the first bad one decides the message
  // and the exit status.
  while (!args.done()) {
    if (args.accept("prefix")) {
      p.entry.prefix = parseIpPrefix(ctx, args.value("prefix"));
      prefix = true;
    } else if (args.accept("dev")) {
      p.dev = args.value("dev");
      if (resolveNow) {
        std::optional<uint32_t> index = ctx.netlink().links().findIndex(*p.dev);
        // ip: "dev is invalid" before sending, a usage error (255) rather than its usual 1.
        if (!index) throw UsageError(fmt::format("dev: Cannot find device \"{}\"", *p.dev));
        p.entry.ifindex = *index;
      }
    } else if (args.accept("label")) {
      // 0xffffffff is the kernel's "no label": ip refuses it as it refuses a non-number (255).
      p.entry.label = parseU32(args.value("label"), "label", 0, 0xfffffffe);
      label = true;
    } else {
      args.unknown(fmt::format("addrlabel {} takes: prefix PREFIX, dev DEV, label LABEL", verb));
    }
  }
  if (!prefix) throw BadValueError(fmt::format("addrlabel {}: \"prefix PREFIX\" is required", verb));
  if (!label) throw BadValueError(fmt::format("addrlabel {}: \"label LABEL\" is required", verb));
  return p;
}

int modify(Context& ctx, Args& args, bool add) {
  ParsedEntry p = parseEntry(ctx, args, add, true);
  try {
    AddrLabelApi& labels = ctx.netlink().addressLabels();
    add ? labels.add(p.entry) : labels.del(p.entry);
  } catch (const Error& e) {
    return reportFailure(Error(e.code(), args.text(), e.extack()));  // named as the user typed it
  }
  return kExitOk;
}

/// A -batch line: add and del are one request each; list and flush read, and are refused.
PreparedRequest prepareAddrlabel(Context& ctx, Args& args) {
  std::string verb = args.done() ? std::string("list") : args.next();
  bool add = matches(verb, "add");
  if (!add && !matches(verb, "delete")) {
    if (matches(verb, "help")) throw UsageError(kUsage);
    throw UsageError(fmt::format("addrlabel {} cannot be used in a batch (a batch sends add and del lines)", verb));
  }
  ParsedEntry p = parseEntry(ctx, args, add, false);
  return requestNamingDevice(p.dev, [p, add](uint32_t index) {
    AddrLabelInfo e = p.entry;
    if (p.dev) e.ifindex = index;
    return add ? AddrLabelRequests::add(e) : AddrLabelRequests::del(e);
  });
}

int flush(Context& ctx, Args& args) {
  // ip: "ip addrlabel flush" does not allow extra arguments (exit status 1).
  if (!args.done()) throw BadValueError(fmt::format("addrlabel flush takes no arguments (not \"{}\")", args.peek()));
  try {
    ctx.netlink().addressLabels().flush(requestFamily(ctx));
  } catch (const Error& e) {
    reportFailure(e);
    return kExitBadValue;  // ip: "Flush terminated", exit status 1
  }
  return kExitOk;
}

int runAddrlabel(Context& ctx, Args& args) {
  return runIpVerbs(ctx, args, kUsage, "addrlabel verbs: add, del, list, flush, help",
                    {{{"list", "lst", "show"}, list},
                     {{"add"}, [](Context& c, Args& a) { return modify(c, a, true); }},
                     {{"delete"}, [](Context& c, Args& a) { return modify(c, a, false); }},
                     {{"flush"}, flush}});
}

const Registrar kAddrlabel{
    ObjectCommand{.name = "addrlabel", .aliases = {}, .usage = kUsage, .run = runAddrlabel, .prepare = prepareAddrlabel}};

}  // namespace
}  // namespace fastlink::cli
