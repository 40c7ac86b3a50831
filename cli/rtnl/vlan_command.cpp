// The `vlan` object: `fastlink vlan { add | del | show } ...`, in `bridge vlan`'s grammar.
#include <fmt/format.h>

#include <map>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/bridge_vlan.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink vlan { add | del } vid VLAN_ID[-VLAN_END] dev DEV [ pvid ] [ untagged ]
                     [ self ] [ master ]
       fastlink vlan [ show ] [ dev DEV ] [ compress ])";

struct ParsedVlan {
  BridgeVlanInfo info;
  std::string dev;
};

ParsedVlan parseModify(Args& args, bool del) {
  ParsedVlan p;
  while (!args.done()) {
    if (args.accept("vid")) {
      std::string text = args.value("vid");
      auto dash = text.find('-');
      p.info.vid = static_cast<uint16_t>(parseInteger(text.substr(0, dash), "vid", 1, 4094));
      if (dash != std::string::npos) {
        p.info.vidEnd = static_cast<uint16_t>(parseInteger(text.substr(dash + 1), "vid", 1, 4094));
        if (*p.info.vidEnd < *p.info.vid) throw UsageError(fmt::format("vid: range {} is empty", text));
      }
    } else if (args.accept("dev")) p.dev = parseIfname(args.value("dev"), "dev");
    else if (!del && args.accept("pvid")) p.info.pvid = true;
    else if (!del && args.accept("untagged")) p.info.untagged = true;
    else if (args.accept("self")) p.info.self = true;
    else if (args.accept("master")) p.info.master = true;
    else args.unknown(del ? "vlan del takes: vid, dev, self, master" : "vlan add takes: vid, dev, pvid, untagged, self, master");
  }
  if (!p.info.vid) throw UsageError("vlan: \"vid VLAN_ID\" is required");
  if (p.dev.empty()) throw UsageError("vlan: \"dev DEV\" is required");
  return p;
}

PreparedRequest prepareModify(Args& args, bool del) {
  ParsedVlan p = parseModify(args, del);
  return deviceRequest(p.dev, p.info, [del](const BridgeVlanInfo& v, Resolver&) {
    return del ? BridgeVlanRequests::del(v) : BridgeVlanRequests::add(v);
  });
}

PreparedRequest prepareVlan(Context&, Args& args) {
  if (args.done()) throw UsageError("vlan: a verb is required (add, del, show)");
  if (args.peek() == "help") throw UsageError(kUsage);
  if (args.accept("add")) return prepareModify(args, false);
  if (args.acceptAny({"del", "delete"})) return prepareModify(args, true);
  if (args.acceptAny({"show", "list", "ls", "lst"})) throw UsageError("vlan show cannot be used in a batch (a batch only sends changes)");
  args.unknown("vlan verbs: add, del, show");
}

int showVlan(Context& ctx, Args& args) {
  BridgeVlanFilter filter;
  filter.compressed = false;  // like `bridge vlan show`: one entry per VLAN
  while (!args.done()) {
    if (args.accept("dev")) filter.dev = parseIfname(args.value("dev"), "dev");
    else if (args.acceptAny({"compress", "compressvlans"})) filter.compressed = true;
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("vlan show takes: dev, compress");
  }
  // Group the entries by device, in the kernel's order, like `bridge -j vlan show`.
  std::vector<std::pair<std::string, std::vector<BridgeVlanInfo>>> ports;
  ctx.netlink().bridgeVlans().forEach(filter, [&](const BridgeVlanInfo& v) {
    std::string name = v.devName.value_or(std::to_string(v.devIndex()));
    if (ports.empty() || ports.back().first != name) ports.emplace_back(name, std::vector<BridgeVlanInfo>{});
    ports.back().second.push_back(v);
  });
  auto flags = [](const BridgeVlanInfo& v) {
    std::vector<std::string> out;
    if (v.pvid.value_or(false)) out.emplace_back("PVID");
    if (v.untagged.value_or(false)) out.emplace_back("Egress Untagged");
    return out;
  };
  if (ctx.options().json) {
    JsonArrayWriter out(stdout, ctx.options().pretty);
    for (const auto& [name, vlans] : ports) {
      nlohmann::json port;
      port["ifname"] = name;
      port["vlans"] = nlohmann::json::array();
      for (const auto& v : vlans) {
        nlohmann::json j;
        j["vlan"] = *v.vid;
        if (v.vidEnd && *v.vidEnd != *v.vid) j["vlanEnd"] = *v.vidEnd;
        auto f = flags(v);
        if (!f.empty()) j["flags"] = f;
        port["vlans"].push_back(j);
      }
      out.add(port);
    }
    out.finish();
    return kExitOk;
  }
  if (!ports.empty()) printLine(fmt::format("{:<17} {}", "port", "vlan-id"));
  for (const auto& [name, vlans] : ports) {
    bool first = true;
    for (const auto& v : vlans) {
      std::string vid = std::to_string(*v.vid);
      if (v.vidEnd && *v.vidEnd != *v.vid) vid += "-" + std::to_string(*v.vidEnd);
      for (const auto& f : flags(v)) vid += " " + f;
      printLine(fmt::format("{:<17} {}", first ? name : "", vid));
      first = false;
    }
  }
  return kExitOk;
}

int runVlan(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage, {{{"show", "list", "ls", "lst"}, showVlan}}, prepareVlan);
}

const Registrar kVlan{ObjectCommand{.name = "vlan", .aliases = {}, .usage = kUsage, .run = runVlan, .prepare = prepareVlan}};

}  // namespace
}  // namespace fastlink::cli
