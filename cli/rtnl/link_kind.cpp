#include "rtnl/link_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace fastlink::cli {
namespace {

std::vector<std::unique_ptr<CliLinkKind>>& registry() {
  static std::vector<std::unique_ptr<CliLinkKind>> kinds;
  return kinds;
}

}  // namespace

LinkKindRegistrar::LinkKindRegistrar(CliLinkKind kind) { registry().push_back(std::make_unique<CliLinkKind>(std::move(kind))); }

const CliLinkKind* findCliLinkKind(std::string_view kind) {
  for (const auto& k : registry())
    if (std::find(k->kinds.begin(), k->kinds.end(), kind) != k->kinds.end()) return k.get();
  return nullptr;
}

std::vector<const CliLinkKind*> allCliLinkKinds() {
  std::vector<const CliLinkKind*> out;
  for (const auto& k : registry()) out.push_back(k.get());
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->kinds.front() < b->kinds.front(); });
  return out;
}

std::vector<std::string> ParsedLink::names() const {
  std::vector<std::string> out;
  for (const auto* n : {&master, &parent})
    if (*n) out.push_back(**n);
  for (const auto& d : kindDevices) out.push_back(d.name);
  return out;
}

LinkInfo ParsedLink::resolved(Resolver& resolver) const {
  LinkInfo out = info;
  if (master) out.master = Ifref(resolver.index(*master));
  if (parent) out.parent = Ifref(resolver.index(*parent));
  for (const auto& d : kindDevices) d.set(out, resolver.index(d.name));
  return out;
}

KindOption tunnelTtl(uint8_t ttl) {
  return {"ttl", ttl, ttl ? fmt::format("ttl {}", ttl) : std::string("ttl inherit")};
}

std::optional<KindOption> tunnelTos(uint8_t tos) {
  if (tos == 0) return std::nullopt;
  std::string hex = fmt::format("0x{:x}", tos);
  return KindOption{"tos", hex, tos == 1 ? std::string("tos inherit") : "tos " + hex};
}

uint8_t parseTunnelTtl(std::string_view text) {
  if (text == "inherit" || text == "auto") return 0;
  return static_cast<uint8_t>(parseInteger(text, "ttl", 0, 255));
}

uint8_t parseTunnelTos(std::string_view text) {
  if (text == "inherit") return 1;
  // iproute2 reads a tos as hex, with or without 0x (rtnl_dsfield_a2n).
  std::string_view hex = text.starts_with("0x") || text.starts_with("0X") ? text.substr(2) : text;
  if (hex.empty() || hex.size() > 2 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    throw UsageError(fmt::format("tos: \"{}\" is not a hex number (00-ff) or inherit", text));
  return static_cast<uint8_t>(std::stoul(std::string(hex), nullptr, 16));
}

IpAddress parseIpv4Endpoint(std::string_view text, std::string_view keyword, std::string_view rule) {
  IpAddress ip = text == "any" ? IpAddress::parse("0.0.0.0") : parseIp(text, keyword);
  if (!ip.isV4()) throw UsageError(fmt::format("{}: {}", keyword, rule));
  return ip;
}

std::string tunnelEndpoint(const std::optional<IpAddress>& ip) {
  if (!ip || ip->toString() == "0.0.0.0") return "any";
  return ip->toString();
}

}  // namespace fastlink::cli
