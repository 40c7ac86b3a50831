// `type ipvlan [mode { l2 | l3 | l3s }] [bridge | private | vepa]` (parent: link DEV).
#include <fmt/format.h>

#include "rtnl/link_kind.hpp"
#include "fastlink/link_kinds/ipvlan.hpp"

namespace fastlink::cli {
namespace {

constexpr std::pair<const char*, IpvlanMode> kModes[] = {{"l2", IpvlanMode::L2}, {"l3", IpvlanMode::L3}, {"l3s", IpvlanMode::L3s}};
constexpr std::pair<const char*, IpvlanIsolation> kIsolation[] = {
    {"bridge", IpvlanIsolation::Bridge}, {"private", IpvlanIsolation::Private}, {"vepa", IpvlanIsolation::Vepa}};

void parseIpvlan(Args& args, ParsedLink& p) {
  IpvlanInfo o;
  while (!args.done()) {
    if (args.accept("mode")) {
      std::string mode = args.value("mode");
      auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const auto& e) { return mode == e.first; });
      if (it == std::end(kModes)) throw UsageError(fmt::format("mode: unknown ipvlan mode \"{}\" (known: l2, l3, l3s)", mode));
      o.mode = it->second;
      continue;
    }
    auto it = std::find_if(std::begin(kIsolation), std::end(kIsolation), [&](const auto& e) { return args.peek() == e.first; });
    if (it == std::end(kIsolation)) args.unknown("type ipvlan takes: mode { l2 | l3 | l3s }, bridge, private, vepa");
    if (o.isolation) throw UsageError("ipvlan: give only one of bridge, private, vepa");
    args.next();
    o.isolation = it->second;
  }
  p.info.setKindOptions(o);
}

template <class Table, class Value>
std::string nameIn(const Table& table, Value v) {
  for (const auto& [name, value] : table)
    if (value == v) return name;
  return "unknown";
}

// As iproute2: "mode l2 bridge" in text; {"mode": "l2", "bridge": true} in JSON.
std::vector<KindOption> printIpvlan(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  const auto* o = l.kindOptions<IpvlanInfo>();
  if (!o) return out;
  if (o->mode) out.push_back(stringOption("mode", nameIn(kModes, *o->mode)));
  if (o->isolation) {
    std::string flag = nameIn(kIsolation, *o->isolation);
    out.push_back({flag, true, flag});
  }
  return out;
}

const LinkKindRegistrar kIpvlan{{.kinds = {"ipvlan"},
                                 .usage = "ipvlan:  mode { l2 | l3 | l3s } | bridge | private | vepa   (parent: link DEV)",
                                 .parse = parseIpvlan,
                                 .print = printIpvlan}};

}  // namespace
}  // namespace fastlink::cli
