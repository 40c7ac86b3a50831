// macvlan and macvtap share their options.
#include <fmt/format.h>

#include <algorithm>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

constexpr std::pair<const char*, MacvlanMode> kModes[] = {{"private", MacvlanMode::Private}, {"vepa", MacvlanMode::Vepa},
                                                          {"bridge", MacvlanMode::Bridge},   {"passthru", MacvlanMode::Passthru},
                                                          {"source", MacvlanMode::Source}};

void parseMacvlan(Args& args, ParsedLink& p) {
  MacvlanInfo m;
  while (!args.done()) {
    if (args.accept("bcqueuelen")) {
      m.bcQueueLen = parseU32(args.value("bcqueuelen"), "bcqueuelen");
      continue;
    }
    if (!args.accept("mode")) args.unknown(fmt::format("type {} takes: mode, bcqueuelen", *p.info.kind));
    std::string mode = args.value("mode");
    auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const auto& e) { return mode == e.first; });
    if (it == std::end(kModes))
      throw UsageError(fmt::format("mode: unknown {} mode \"{}\" (known: private, vepa, bridge, passthru, source)", *p.info.kind, mode));
    m.mode = it->second;
  }
  p.info.macvlan = m;
}

// iproute2's macvlan_print_opt order: mode, (flags, source addresses), bcqueuelen, usedbcqueuelen.
std::vector<KindOption> printMacvlan(const LinkInfo& l, const NameOf&) {
  if (!l.macvlan || !l.macvlan->mode) return {};
  auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const auto& e) { return e.second == *l.macvlan->mode; });
  std::vector<KindOption> out{stringOption("mode", it != std::end(kModes) ? it->first : "unknown")};
  if (l.macvlan->bcQueueLen) out.push_back(numberOption("bcqueuelen", *l.macvlan->bcQueueLen));
  if (l.macvlan->usedBcQueueLen) out.push_back(numberOption("usedbcqueuelen", *l.macvlan->usedBcQueueLen));
  return out;
}

const LinkKindRegistrar kMacvlan{{.kinds = {"macvlan", "macvtap"},
                                  .usage = "macvlan, macvtap: mode { private | vepa | bridge | passthru | source } | bcqueuelen LENGTH",
                                  .parse = parseMacvlan,
                                  .print = printMacvlan}};

}  // namespace
}  // namespace fastlink::cli
