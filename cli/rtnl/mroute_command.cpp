// The `mroute` object: the kernel's multicast forwarding cache (fastlink/mroute.hpp), as
// `ip mroute show` prints it (text, -s, -j), with its selectors, abbreviations and statuses:
//   fastlink [ -4 | -6 ] mroute [ show | list ] [ [ to ] PREFIX ] [ from PREFIX ] [ iif DEV ]
//                                [ table TABLE_ID ]
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/mroute.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/route.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/ip_compat.hpp"
#include "kit/json_float.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink mroute show [ [ to ] PREFIX ] [ from PREFIX ] [ iif DEVICE ]
                            [ table TABLE_ID ]
TABLE_ID := [ local | main | default | all | NUMBER ])";

constexpr uint32_t kTableDefault = 253;  // RT_TABLE_DEFAULT: ipmr's table, ip's IPv4 default filter
constexpr uint32_t kTableMain = 254;
constexpr uint32_t kUnresolved = 32;  // RTNH_F_UNRESOLVED
constexpr uint32_t kOffload = 8;      // RTNH_F_OFFLOAD


struct Filter {
  uint32_t table = 0;  ///< 0: every table
  std::optional<uint32_t> iif;
  std::optional<Prefix> group, source;

  bool selects(const MrouteInfo& e) const {
    if (table && e.table != table) return false;
    if (iif && e.iif.value_or(0) != *iif) return false;
    if (group && !(e.group && e.group->family() == group->family() && group->contains(*e.group))) return false;
    if (source && !(e.source && e.source->family() == source->family() && source->contains(*e.source))) return false;
    return true;
  }
};

/// One entry in ip's words and columns (print_mroute).
void writeEntry(FieldOut& f, const MrouteInfo& e, DeviceNames& names, bool stats, bool details, bool tableFiltered,
                bool json, const char* sl) {
  std::string src = e.source ? e.source->toString() : "unknown";
  std::string dst = e.group ? e.group->toString() : "unknown";
  if (json) {
    f.json("src", src);
    f.json("dst", dst);
  } else {
    f.text("{:<32} Iif: ", "(" + src + "," + dst + ")");
  }
  if (e.iif) f.any("iif", "{:<10} ", names.name(*e.iif));
  else f.any("iif", "{} ", std::string("unresolved"));
  if (!e.oifs.empty()) {
    if (json) {
      nlohmann::ordered_json oifs = nlohmann::ordered_json::array();
      for (const MrouteOif& o : e.oifs) {
        nlohmann::ordered_json one;
        one["oif"] = names.name(o.ifindex);
        if (o.ttl > 1) one["ttl"] = o.ttl;
        oifs.push_back(std::move(one));
      }
      f.json("multipath", std::move(oifs));
    } else {
      f.text("Oifs: ");
      for (const MrouteOif& o : e.oifs) {
        f.text("{}", names.name(o.ifindex));
        if (o.ttl > 1) f.text("(ttl {}) ", unsigned{o.ttl});
        else f.text(" ");
      }
    }
  }
  f.any("state", " State: {}", std::string(e.flags & kUnresolved ? "unresolved" : "resolved"));
  if (e.flags & kOffload) f.any("offload", nullptr, "{}", std::string(" offload"));
  if (stats && e.stats) {
    f.text("{}", sl);  // ip's print_nl: a new line, `\` with -o
    f.any("packets", "  {} packets,", e.stats->packets);
    f.any("bytes", " {} bytes", e.stats->bytes);
    if (e.stats->wrongIf) f.any("wrong_if", ", {} arrived on wrong iif.", e.stats->wrongIf);
  }
  if (stats && e.lastUse) {
    // ip converts the kernel's clock_t at 100 per second (its __jiffies_to_tv).
    double age = static_cast<double>(*e.lastUse * 10000 / 1000000) + static_cast<double>(*e.lastUse * 10000 % 1000000) / 1e6;
    f.any("expires", ipJsonFloat(age), ", Age {:.2f}", age);
  }
  if (e.table && (e.table != kTableMain || details) && !tableFiltered)
    f.any("table", " Table: {}", RouteNames::system().tableName(e.table));
}

int show(Context& ctx, Args& args) {
  MrouteFamily family = MrouteFamily::Ipv4;
  Filter filter;
  switch (ctx.options().family) {
    case FamilyOption::Any:
    case FamilyOption::Inet: filter.table = kTableDefault; break;  // ip: "for backward compatibility"
    case FamilyOption::Inet6: family = MrouteFamily::Ipv6; break;
    case FamilyOption::Link: return kExitOk;  // ip: the family has no multicast routing, nothing printed
  }
  IpAddress::Family addressFamily = family == MrouteFamily::Ipv4 ? IpAddress::Family::v4 : IpAddress::Family::v6;
  auto prefix = [&](const std::string& text, const char* what) {
    Prefix p = parsePrefixAs(what, text);  // ip: exit status 1
    if (p.family() != addressFamily)
      throw BadValueError(fmt::format("{} prefix is expected rather than \"{}\".",
                                      addressFamily == IpAddress::Family::v4 ? "inet" : "inet6", text));
    return p;
  };
  std::optional<std::string> iif;
  while (!args.done()) {
    std::string word = args.next();
    if (matches(word, "table")) {
      const std::string& id = args.value("table");
      if (id == "all") filter.table = 0;
      else if (id == "help") throw UsageError(kUsage);
      else {
        try {
          filter.table = RouteNames::system().tableId(id);
        } catch (const Error&) {
          throw UsageError(fmt::format("table: \"{}\" is not a table id", id));  // ip: invarg, 255
        }
      }
    } else if (word == "iif") {
      iif = args.value("iif");
    } else if (matches(word, "from")) {
      filter.source = prefix(args.value("from"), "from");
    } else {
      std::string text = word;
      if (word == "to") text = args.value("to");
      if (matches(text, "help")) throw UsageError(kUsage);
      filter.group = prefix(text, "to");
    }
  }
  Netlink& nl = ctx.netlink();
  if (iif) {
    std::optional<uint32_t> index = nl.links().findIndex(*iif);
    if (!index) throw BadValueError(fmt::format("Cannot find device \"{}\"", *iif));  // ip: exit status 1
    filter.iif = *index;
  }
  DeviceNames names([&nl](uint32_t i) { return nl.links().find(Ifref(i)); });
  std::vector<MrouteInfo> shown;
  try {
    names.load(nl.links());  // before the route dump: one dump at a time on the socket
    std::optional<uint32_t> table;
    if (filter.table) table = filter.table;
    for (MrouteInfo& e : nl.multicastRoutes().list(family, table)) {
      if (e.type != 5)  // RTN_MULTICAST: ip stops at anything else
        throw Error(make_error_code(Errc::malformed_reply), "mroute show",
                    "a route that is not multicast: does the kernel have IP multicast routing?");
      if (filter.selects(e)) shown.push_back(std::move(e));
    }
  } catch (const Error& e) {
    reportFailure(e);
    return kExitBadValue;  // ip: "Dump terminated", exit status 1
  }
  bool stats = ctx.options().stats > 0, details = ctx.options().details, json = ctx.options().json;
  bool tableFiltered = filter.table != 0;
  printRecords(shown, json, ctx.options().pretty, [&](FieldOut& f, const MrouteInfo& e) {
    writeEntry(f, e, names, stats, details, tableFiltered, json, ctx.options().oneline ? "\\" : "\n");
  });
  return kExitOk;
}

int runMroute(Context& ctx, Args& args) {
  return runIpVerbs(ctx, args, kUsage, "mroute verbs: show, help", {{{"list", "show", "lst"}, show}});
}

const Registrar kMroute{ObjectCommand{.name = "mroute", .aliases = {}, .usage = kUsage, .run = runMroute, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
