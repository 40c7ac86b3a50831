// `ip -d link show` of tun/tap devices (the `tun` link info). Read-only: tun/tap devices are
// created with `fastlink tuntap add`, the kernel refuses `link add ... type tun`.
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>

#include <vector>

#include "rtnl/link_kind.hpp"
#include "fastlink/tuntap.hpp"

namespace fastlink::cli {
namespace {

void parseTun(Args&, ParsedLink&) {
  throw UsageError("tun/tap devices are created with \"fastlink tuntap add dev NAME mode tun|tap\"");
}

// Like iproute2: the name when the id resolves, else the number.
KindOption idOption(const char* key, uint32_t id, bool user) {
  std::vector<char> buffer(16384);
  if (user) {
    passwd pw{};
    passwd* found = nullptr;
    getpwuid_r(id, &pw, buffer.data(), buffer.size(), &found);
    if (found) return stringOption(key, found->pw_name);
  } else {
    group gr{};
    group* found = nullptr;
    getgrgid_r(id, &gr, buffer.data(), buffer.size(), &found);
    if (found) return stringOption(key, found->gr_name);
  }
  return numberOption(key, id);
}

// Keys and order of iproute2's tun_print_opt.
std::vector<KindOption> printTun(const LinkInfo& l, const NameOf&) {
  std::vector<KindOption> out;
  const auto* t = l.kindOptions<TunTapInfo>();
  if (!t) return out;
  if (t->mode) out.push_back(stringOption("type", std::string(tunTapModeName(*t->mode))));
  if (t->pi) out.push_back(onOffOption("pi", *t->pi));
  if (t->vnetHdr) out.push_back(onOffOption("vnet_hdr", *t->vnetHdr));
  if (t->multiQueue.value_or(false)) {
    out.push_back({"multi_queue", true, "multi_queue"});
    if (t->numQueues) out.push_back(numberOption("numqueues", *t->numQueues));
    if (t->numDisabledQueues) out.push_back(numberOption("numdisabled", *t->numDisabledQueues));
  } else {
    out.push_back({"multi_queue", false, ""});  // JSON only, as iproute2
  }
  if (t->persist) out.push_back(onOffOption("persist", *t->persist));
  if (t->owner) out.push_back(idOption("user", *t->owner, true));
  if (t->group) out.push_back(idOption("group", *t->group, false));
  return out;
}

const LinkKindRegistrar kTun{{.kinds = {"tun"},
                              .usage = "tun:     (created with fastlink tuntap add)",
                              .parse = parseTun,
                              .print = printTun}};

}  // namespace
}  // namespace fastlink::cli
