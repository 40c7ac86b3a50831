#include <fmt/format.h>

#include <algorithm>

#include "../link_kind.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kModes[] = {"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"};

void parseBond(Args& args, ParsedLink& p) {
  BondInfo b;
  while (!args.done()) {
    if (args.accept("mode")) {
      std::string mode = args.value("mode");
      auto it = std::find_if(std::begin(kModes), std::end(kModes), [&](const char* m) { return mode == m; });
      if (it == std::end(kModes))
        throw UsageError(fmt::format("mode: unknown bond mode \"{}\" (known: balance-rr, active-backup, balance-xor, "
                                     "broadcast, 802.3ad, balance-tlb, balance-alb)", mode));
      b.mode = static_cast<BondMode>(it - std::begin(kModes));
    } else if (args.accept("miimon")) b.miimon = parseU32(args.value("miimon"), "miimon");
    else args.unknown("type bond takes: mode, miimon");
  }
  p.info.bond = b;
}

std::vector<KindOption> printBond(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  if (!l.bond) return out;
  if (l.bond->mode) {
    auto i = static_cast<std::size_t>(*l.bond->mode);
    std::string mode = i < std::size(kModes) ? kModes[i] : "unknown";
    out.push_back(stringOption("mode", mode, "mode " + mode));
  }
  if (l.bond->miimon) out.push_back(numberOption("miimon", *l.bond->miimon));
  return out;
}

const LinkKindRegistrar kBond{{.kinds = {"bond"},
                               .usage = "bond:    mode { balance-rr | active-backup | balance-xor | broadcast | 802.3ad | balance-tlb |\n"
                                        "           balance-alb } | miimon MS",
                               .parse = parseBond,
                               .print = printBond}};

}  // namespace
}  // namespace fastlink::cli
