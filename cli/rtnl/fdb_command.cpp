// The `fdb` object: `fastlink fdb { add | append | del | replace | show } ...`, in `bridge fdb`'s
// grammar.
#include <fmt/format.h>


#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/fields.hpp"
#include "fastlink/fdb.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink fdb { add | append | del | replace } LLADDR dev DEV
                    [ self ] [ master ] [ local | permanent | static | dynamic ] [ sticky ]
                    [ extern_learn ] [ router ] [ vlan VID ] [ dst IPADDR ] [ port PORT ]
                    [ vni VNI ] [ src_vni VNI ] [ via DEV ]
       fastlink fdb [ show ] [ br BRIDGE ] [ brport DEV | dev DEV ] [ vlan VID ])";

enum class Verb { Add, Append, Del, Replace };

struct ParsedFdb {
  FdbInfo info;
  std::string dev;
  std::optional<std::string> via;
};

uint16_t parseVlan(std::string_view text) {
  return static_cast<uint16_t>(parseInteger(text, "vlan", 1, 4094));
}

ParsedFdb parseModify(Args& args) {
  ParsedFdb p;
  while (!args.done()) {
    if (args.accept("dev")) p.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("self")) p.info.self = true;
    else if (args.accept("master")) p.info.master = true;
    else if (args.acceptAny({"local", "permanent"})) p.info.state = FdbState::Permanent;
    else if (args.acceptAny({"static", "temp"})) p.info.state = FdbState::Static;
    else if (args.accept("dynamic")) p.info.state = FdbState::Dynamic;
    else if (args.accept("sticky")) p.info.sticky = true;
    else if (args.accept("extern_learn")) p.info.externLearn = true;
    else if (args.accept("router")) p.info.router = true;
    else if (args.accept("vlan")) p.info.vlan = parseVlan(args.value("vlan"));
    else if (args.accept("dst")) p.info.dst = parseIp(args.value("dst"), "dst");
    else if (args.accept("port")) p.info.port = static_cast<uint16_t>(parseInteger(args.value("port"), "port", 0, 65535));
    else if (args.accept("vni")) p.info.vni = parseU32(args.value("vni"), "vni", 0, (1u << 24) - 1);
    else if (args.accept("src_vni")) p.info.srcVni = parseU32(args.value("src_vni"), "src_vni", 0, (1u << 24) - 1);
    else if (args.accept("via")) p.via = parseIfname(args.value("via"), "via");
    else if (!p.info.mac) p.info.mac = parseMac(args.next(), "lladdr");
    else args.unknown("fdb takes: dev, self, master, local, permanent, static, dynamic, sticky, extern_learn, router, "
                      "vlan, dst, port, vni, src_vni, via");
  }
  if (!p.info.mac) throw UsageError("fdb: a MAC address is required");
  if (p.dev.empty()) throw UsageError("fdb: \"dev DEV\" is required");
  return p;
}

PreparedRequest prepareModify(Args& args, Verb verb) {
  ParsedFdb p = parseModify(args);
  PreparedRequest r = deviceRequest(p.dev, p.info, [via = p.via, verb](FdbInfo e, Resolver& resolver) {
    if (via) e.via = Ifref(resolver.index(*via));
    switch (verb) {
      case Verb::Add: return FdbRequests::add(e);
      case Verb::Append: return FdbRequests::append(e);
      case Verb::Del: return FdbRequests::del(e);
      case Verb::Replace: break;
    }
    return FdbRequests::replace(e);
  });
  if (p.via) r.needs.push_back(*p.via);
  return r;
}

PreparedRequest prepareFdb(Context&, Args& args) {
  if (args.done()) throw UsageError("fdb: a verb is required (add, append, del, replace, show)");
  if (args.peek() == "help") throw UsageError(kUsage);
  if (args.accept("add")) return prepareModify(args, Verb::Add);
  if (args.accept("append")) return prepareModify(args, Verb::Append);
  if (args.acceptAny({"del", "delete"})) return prepareModify(args, Verb::Del);
  if (args.accept("replace")) return prepareModify(args, Verb::Replace);
  if (args.acceptAny({"show", "list", "ls", "lst"})) throw UsageError("fdb show cannot be used in a batch (a batch only sends changes)");
  args.unknown("fdb verbs: add, append, del, replace, show");
}

// ---- show ----------------------------------------------------------------------------------------

std::vector<std::string> flagWords(const FdbInfo& e) {
  std::vector<std::string> out;
  if (e.self.value_or(false)) out.emplace_back("self");
  if (e.router.value_or(false)) out.emplace_back("router");
  if (e.externLearn.value_or(false)) out.emplace_back("extern_learn");
  if (e.offloaded.value_or(false)) out.emplace_back("offload");
  if (e.master.value_or(false)) out.emplace_back("master");
  if (e.sticky.value_or(false)) out.emplace_back("sticky");
  return out;
}

/// One entry in bridge(8)'s words and -j keys. The text starts with the MAC, which every entry
/// the kernel reports has (NDA_LLADDR).
void writeEntry(FieldOut& f, const FdbInfo& e, const DeviceNames& names, bool withDev) {
  f.any("mac", "{}", e.mac ? e.mac->toString() : "");
  if (withDev) f.any("ifname", " dev {}", names.nameOrIndex(e.devIndex()));
  if (e.vlan) f.any("vlan", " vlan {}", *e.vlan);
  if (e.dst) f.any("dst", " dst {}", e.dst->toString());
  if (e.port) f.any("port", " port {}", *e.port);
  if (e.vni) f.any("vni", " vni {}", *e.vni);
  if (e.srcVni) f.any("src_vni", " src_vni {}", *e.srcVni);
  if (e.via && e.via->isIndex()) f.any("via", " via {}", names.nameOrIndex(e.via->index()));
  std::vector<std::string> flags = flagWords(e);
  f.json("flags", flags);
  for (const auto& word : flags) f.text(" {}", word);
  if (e.masterDev) f.any("master", " master {}", names.nameOrIndex(*e.masterDev));
  std::string state = e.state ? fdbStateName(*e.state) : "";
  f.json("state", state);
  if (!state.empty()) f.text(" {}", state);
}

int showFdb(Context& ctx, Args& args) {
  FdbFilter filter;
  while (!args.done()) {
    if (args.accept("br")) filter.bridge = parseIfname(args.value("br"), "br");
    else if (args.acceptAny({"brport", "dev"})) filter.dev = parseIfname(args.value("dev"), "dev");
    else if (args.accept("vlan")) filter.vlan = parseVlan(args.value("vlan"));
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("fdb show takes: br, brport, dev, vlan");
  }
  Netlink& nl = ctx.netlink();
  DeviceNames names = loadDeviceNames(nl);
  bool withDev = !filter.dev;  // like bridge(8): the device is left out when it was asked for
  std::optional<JsonArrayWriter> json;
  if (ctx.options().json) json.emplace(stdout, ctx.options().pretty);
  nl.fdb().forEach(filter, [&](const FdbInfo& e) {
    auto write = [&](FieldOut& f) { writeEntry(f, e, names, withDev); };
    // -j's keys in the order of an unordered JSON object's (sorted): the text's order differs.
    if (json) json->add(nlohmann::json(writeFields<nlohmann::ordered_json>(write)));
    else printLine(writeFields<std::string>(write));
  });
  if (json) json->finish();
  return kExitOk;
}

int runFdb(Context& ctx, Args& args) {
  return runObject(ctx, args, kUsage, {{{"show", "list", "ls", "lst"}, showFdb}}, prepareFdb);
}

const Registrar kFdb{ObjectCommand{.name = "fdb", .aliases = {}, .usage = kUsage, .run = runFdb, .prepare = prepareFdb}};

}  // namespace
}  // namespace fastlink::cli
