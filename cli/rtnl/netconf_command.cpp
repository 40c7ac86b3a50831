// The `netconf` object: the kernel's per-device IP settings (forwarding, rp_filter, ...) as
// `ip netconf show` prints them, text and -j:
//   fastlink [-4|-6] netconf [ show ] [ dev DEV ]
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fastlink/netconf.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink netconf [ show | list ] [ dev DEV ]
       (-4 or -6: one family; -j prints JSON; see docs/cli/netconf.md))";

const char* familyWord(NetconfFamily family) {
  switch (family) {
    case NetconfFamily::Inet: return "inet";
    case NetconfFamily::Inet6: return "inet6";
    case NetconfFamily::Mpls: return "mpls";
    case NetconfFamily::Any: break;
  }
  return "???";  // ip's family_name() for a family it does not know
}

const char* rpFilterWord(uint32_t mode) {
  switch (mode) {
    case 0: return "off";
    case 1: return "strict";
    case 2: return "loose";
  }
  return "unknown mode";
}

/// One record in ip's order and words: every text field is followed by a space, as ip prints it.
void writeNetconf(FieldOut& f, const NetconfInfo& n, DeviceNames& names) {
  f.any("family", "{} ", std::string(familyWord(n.family)));
  if (n.ifindex) {
    std::string name = *n.ifindex == NetconfInfo::kAll       ? "all"
                       : *n.ifindex == NetconfInfo::kDefault ? "default"
                                                             : names.name(static_cast<uint32_t>(*n.ifindex));
    f.any("interface", "{} ", name);
  }
  auto onOff = [&](const char* key, const std::optional<bool>& on) {
    if (on) f.any(key, *on, "{} ", fmt::format("{} {}", key, *on ? "on" : "off"));
  };
  onOff("forwarding", n.forwarding);
  if (n.rpFilter) f.any("rp_filter", "rp_filter {} ", std::string(rpFilterWord(*n.rpFilter)));
  onOff("mc_forwarding", n.mcForwarding);
  onOff("proxy_neigh", n.proxyNeigh);
  onOff("ignore_routes_with_linkdown", n.ignoreRoutesWithLinkdown);
  onOff("input", n.input);
}

int show(Context& ctx, Args& args) {
  std::optional<std::string> dev;
  while (!args.done()) {
    if (args.accept("dev")) dev = args.value("dev");
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("netconf show takes: dev DEV");
  }
  Netlink& nl = ctx.netlink();
  NetconfFamily family = NetconfFamily::Any;
  if (auto f = familyOption(ctx)) family = *f == IpAddress::Family::v4 ? NetconfFamily::Inet : NetconfFamily::Inet6;
  DeviceNames names([&nl](uint32_t index) { return nl.links().find(Ifref(index)); });
  std::vector<NetconfInfo> records;
  try {
    std::optional<int32_t> index;
    if (dev) {
      try {
        index = static_cast<int32_t>(nl.links().indexOf(Ifref(*dev)));
      } catch (const Error& e) {
        throw Error(e.code(), "netconf show dev " + *dev, e.extack());  // what the user typed
      }
    }
    names.load(nl.links());  // before the netconf dump: one dump at a time on the socket
    if (isOtherFamily()) {
      // -M, -B: neither family has netconf records here; ip's get of one device's prints
      // nothing at all (not even -j's []), its dump an empty list.
      if (index) return kExitOk;
    } else if (ctx.options().family == FamilyOption::Link) {
      // -0: no family of links has netconf records; ip prints none.
    } else if (index && family != NetconfFamily::Any) {
      records.push_back(getNetconf(nl, family, *index));  // ip asks for the one record
    } else {
      // ip dumps every record (of each family) and keeps the device's.
      for (NetconfInfo& n : listNetconf(nl, family))
        if (!index || n.ifindex == index) records.push_back(std::move(n));
    }
  } catch (const Error& e) {
    return reportFailure(e, dev.value_or(""));
  }
  printRecords(records, ctx.options().json, ctx.options().pretty,
               [&](FieldOut& f, const NetconfInfo& n) { writeNetconf(f, n, names); });
  return kExitOk;
}

int runNetconf(Context& ctx, Args& args) { return runShowOnly(ctx, args, kUsage, "netconf verbs: show", show); }

const Registrar kNetconf{
    ObjectCommand{.name = "netconf", .aliases = {}, .usage = kUsage, .run = runNetconf, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
