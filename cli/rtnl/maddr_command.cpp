// The `maddress` object (ip's `maddr`): the multicast addresses each device listens to, as
// `ip maddr show` prints them, text and -j:
//   fastlink [-4|-6|-0] maddress [ show | list ] [ [dev] DEV ]
#include <fmt/format.h>

#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/maddr.hpp"
#include "fastlink/types.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/fields.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink maddress [ show | list ] [ [ dev ] DEV ]
       (-4, -6, -0: IPv4, IPv6, link-layer addresses only; -j prints JSON; see docs/cli/maddress.md))";

std::string linkAddressText(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (std::size_t i = 0; i < bytes.size(); ++i) fmt::format_to(std::back_inserter(s), "{}{:02x}", i ? ":" : "", bytes[i]);
  return s;
}

bool wanted(const MulticastAddress& m, FamilyOption family) {
  switch (family) {
    case FamilyOption::Any: return true;
    case FamilyOption::Link: return m.family == MulticastAddress::Family::Link;
    case FamilyOption::Inet: return m.family == MulticastAddress::Family::Inet;
    case FamilyOption::Inet6: return m.family == MulticastAddress::Family::Inet6;
  }
  return true;
}

// ip's layout: "INDEX:\tNAME" when the device changes, then "\tlink  MAC" or "\tinet  ADDR" /
// "\tinet6 ADDR" (the family padded to 5), " users N" unless 1, " static" for a link address
// added by hand. -j: an object per device, its addresses' keys in its `maddr` list.
void print(const std::vector<MulticastAddress>& list, bool json, bool pretty) {
  std::optional<JsonArrayWriter> out;
  if (json) out.emplace(stdout, pretty);
  std::string text;
  nlohmann::ordered_json device;
  auto flush = [&] {
    if (!device.is_null()) out->add(device);
  };
  std::optional<uint32_t> index;
  for (const MulticastAddress& m : list) {
    if (index != m.ifindex) {
      index = m.ifindex;
      if (json) {
        flush();
        device = {{"ifindex", m.ifindex}, {"ifname", m.ifname}, {"maddr", nlohmann::ordered_json::array()}};
      } else {
        fmt::format_to(std::back_inserter(text), "{}:\t{}\n", m.ifindex, m.ifname);
      }
    }
    auto write = [&](FieldOut& f) {
      const char* family = m.family == MulticastAddress::Family::Inet ? "inet" : "inet6";
      if (m.family == MulticastAddress::Family::Link) f.any("link", "\tlink  {}", linkAddressText(m.address));
      else f.json("family", family).text("\t{:<5} ", family).any("address", "{}", IpAddress::fromBytes(m.address).toString());
      if (m.users != 1) f.any("users", " users {}", m.users);
      if (m.isStatic) f.json("features", "static").text(" static");
    };
    if (json) device["maddr"].push_back(writeFields<nlohmann::ordered_json>(write));
    else text += writeFields<std::string>(write) + '\n';
  }
  if (json) {
    flush();
    out->finish();
  } else {
    std::fputs(text.c_str(), stdout);
  }
}

int show(Context& ctx, Args& args) {
  std::optional<std::string> dev;
  while (!args.done()) {
    if (args.peek() == "help") throw UsageError(kUsage);
    args.accept("dev");
    // As ip: the device, with or without `dev`, given once.
    std::string name = args.value("dev");
    if (dev) throw UsageError(fmt::format("either \"dev\" is duplicate, or \"{}\" is a garbage", name));
    dev = name;
  }
  std::optional<Netns> ns;
  if (ctx.options().netns) ns = Netns::named(*ctx.options().netns);
  std::vector<MulticastAddress> list;
  // ip filters by the name in the files: a device that does not exist lists nothing (status 0).
  for (MulticastAddress& m : listMulticastAddresses(ns))
    // -M, -B: ip reads the inet and inet6 files for neither family: nothing to list.
    if ((!dev || m.ifname == *dev) && wanted(m, ctx.options().family) && !isOtherFamily()) list.push_back(std::move(m));
  print(list, ctx.options().json, ctx.options().pretty);
  return kExitOk;
}

// ip's add and del (joining a link-layer group by SIOCADDMULTI) are not supported.
int runMaddress(Context& ctx, Args& args) { return runShowOnly(ctx, args, kUsage, "maddress verbs: show, list", show); }

const Registrar kMaddress{
    ObjectCommand{.name = "maddress", .aliases = {"maddr"}, .usage = kUsage, .run = runMaddress, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
