// The `genl` object: `fastlink genl show` lists the generic netlink families like iproute2's
// `genl ctrl list` (same text), `-j` as JSON; `genl ctrl get name NAME` shows one.
#include <fmt/format.h>

#include <cstdio>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "fastlink/genl.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink genl [ show | list ] [ name NAME ]
       fastlink genl ctrl { list | show | get name NAME }
       (-j prints JSON; see docs/cli/genl.md))";

// The capability words in genl's order and spelling.
std::vector<std::string> capabilityWords(uint32_t flags) {
  std::vector<std::string> out;
  if (flags & kGenlOpAdminPerm) out.emplace_back("requires admin permission");
  if (flags & kGenlOpCanDo) out.emplace_back("can doit");
  if (flags & kGenlOpCanDump) out.emplace_back("can dumpit");
  if (flags & kGenlOpHasPolicy) out.emplace_back("has policy");
  return out;
}

nlohmann::ordered_json toJson(const GenlFamilyInfo& f) {
  nlohmann::ordered_json j;
  j["name"] = f.name;
  j["id"] = f.id;
  j["version"] = f.version;
  j["header_size"] = f.headerSize;
  j["max_attr"] = f.maxAttr;
  j["commands"] = nlohmann::ordered_json::array();
  for (const auto& op : f.ops) {
    nlohmann::ordered_json o;
    o["id"] = op.id;
    o["flags"] = op.flags;
    nlohmann::ordered_json caps = nlohmann::ordered_json::array();
    if (op.adminPerm()) caps.push_back("admin");
    if (op.unsAdminPerm()) caps.push_back("uns_admin");
    if (op.canDo()) caps.push_back("do");
    if (op.canDump()) caps.push_back("dump");
    if (op.hasPolicy()) caps.push_back("policy");
    o["capabilities"] = caps;
    j["commands"].push_back(o);
  }
  j["multicast_groups"] = nlohmann::ordered_json::array();
  for (const auto& g : f.groups) j["multicast_groups"].push_back({{"name", g.name}, {"id", g.id}});
  return j;
}

// genl's text layout, trailing spaces and blank lines included, so scripts written against
// `genl ctrl list` read ours unchanged.
// genl prints a command's capabilities only for families of version 2 or later (it meant the
// controller's version, but reads the listed family's): kept, so the text is genl's; -d prints
// them for every family, and -j always has them.
std::string toText(const GenlFamilyInfo& f, bool details) {
  std::string s = fmt::format("\nName: {}\n\tID: 0x{:x}  Version: 0x{:x}  header size: {}  max attribs: {} \n", f.name,
                              f.id, f.version, f.headerSize, f.maxAttr);
  if (!f.ops.empty()) {
    s += "\tcommands supported: \n";
    for (std::size_t i = 0; i < f.ops.size(); ++i) {
      const GenlOperation& op = f.ops[i];
      s += fmt::format("\t\t#{}:  ID-0x{:x} ", i + 1, op.id);
      // The kernel omits the flags of a command that has none, and genl then prints no line.
      if (op.flags && (details || f.version >= 2)) {
        s += fmt::format("\n\t\tCapabilities (0x{:x}):\n \t\t ", op.flags);
        auto words = capabilityWords(op.flags);
        for (std::size_t w = 0; w < words.size(); ++w)
          s += " " + words[w] + (words[w] == "has policy" ? "" : ";");
        s += "\n";
      }
      s += "\n";
    }
    s += "\n";
  }
  if (!f.groups.empty()) {
    s += "\tmulticast groups:\n";
    for (std::size_t i = 0; i < f.groups.size(); ++i)
      s += fmt::format("\t\t#{}:  ID-0x{:x}  name: {} \n", i + 1, f.groups[i].id, f.groups[i].name);
    s += "\n";
  }
  return s;
}

int show(Context& ctx, const std::optional<std::string>& name) {
  GenlApi& families = ctx.netlink().families();
  std::vector<GenlFamilyInfo> list;
  if (name) list.push_back(families.get(*name));
  else list = families.list();
  if (ctx.options().json) {
    JsonArrayWriter out(stdout, ctx.options().pretty);
    for (const auto& f : list) out.add(toJson(f));
    out.finish();
    return kExitOk;
  }
  for (const auto& f : list) std::fputs(toText(f, ctx.options().details).c_str(), stdout);
  return kExitOk;
}

std::optional<std::string> parseName(Args& args, std::string_view context) {
  std::optional<std::string> name;
  while (!args.done()) {
    if (args.accept("name")) {
      name = args.value("name");
      // The kernel's limit (GENL_NAMSIZ - 1): a longer name is bad input, refused before sending.
      if (name->empty() || name->size() > 15)
        throw UsageError(fmt::format("name: \"{}\" is not a generic netlink family name (1 to 15 characters)", *name));
    } else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown(context);
  }
  return name;
}

int runGenl(Context& ctx, Args& args) {
  if (args.peek() == "help") {
    printLine(kUsage);
    return kExitOk;
  }
  if (args.accept("ctrl")) {
    if (args.acceptAny({"list", "show", "ls", "lst"})) {
      if (!args.done()) args.unknown("genl ctrl list takes nothing");
      return show(ctx, std::nullopt);
    }
    if (args.accept("get")) {
      auto name = parseName(args, "genl ctrl get takes: name NAME");
      if (!name) throw UsageError("genl ctrl get: \"name NAME\" is required");
      return show(ctx, name);
    }
    args.unknown("genl ctrl verbs: list, get");
  }
  if (!args.done() && !args.acceptAny({"show", "list", "ls", "lst"})) args.unknown("genl verbs: show, ctrl");
  return show(ctx, parseName(args, "genl show takes: name NAME"));
}

const Registrar kGenl{ObjectCommand{.name = "genl", .aliases = {}, .usage = kUsage, .run = runGenl, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
