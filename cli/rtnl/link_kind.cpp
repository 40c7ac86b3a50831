#include "rtnl/link_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace fastlink::cli {
namespace {

// The registrars' list, constant-initialised: empty before any kind file's initialiser runs.
constinit const LinkKindRegistrar* first = nullptr;
constinit const LinkKindRegistrar** tail = &first;

}  // namespace

LinkKindRegistrar::LinkKindRegistrar(CliLinkKind kind) : kind(kind) {
  *tail = this;
  tail = &next;
}

const CliLinkKind* findCliLinkKind(std::string_view kind) {
  for (const LinkKindRegistrar* r = first; r; r = r->next)
    if (std::find(r->kind.kinds.begin(), r->kind.kinds.end(), kind) != r->kind.kinds.end()) return &r->kind;
  return nullptr;
}

std::vector<const CliLinkKind*> allCliLinkKinds() {
  std::vector<const CliLinkKind*> out;
  for (const LinkKindRegistrar* r = first; r; r = r->next) out.push_back(&r->kind);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return *a->kinds.begin() < *b->kinds.begin(); });
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

KindOption udpTunnelDf(uint8_t df) {
  static const char* const kWords[] = {"unset", "set", "inherit"};
  std::string word = df < std::size(kWords) ? kWords[df] : "unknown";
  return {"df", word, df == 0 ? std::string() : "df " + word};
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

IpAddress parseTunnelEndpoint(std::string_view text, std::string_view keyword, bool v6, std::string_view rule) {
  IpAddress ip = text == "any" ? IpAddress::parse(v6 ? "::" : "0.0.0.0") : parseIp(text, keyword);
  // ip's get_addr of the other family: exit status 1, as an address that does not parse.
  if (ip.isV4() == v6) throw BadValueError(fmt::format("{}: {}", keyword, rule));
  return ip;
}

bool isUnspecified(const IpAddress& ip) {
  for (uint8_t b : ip.bytes())
    if (b) return false;
  return true;
}

std::string tunnelEndpoint(const std::optional<IpAddress>& ip) { return !ip || isUnspecified(*ip) ? "any" : ip->toString(); }

std::optional<Prefix> sixrdPrefix(std::string_view text, bool v6) {
  std::optional<Prefix> prefix;
  try {
    prefix = Prefix::parse(text);
  } catch (const Error&) {
  }
  if (prefix && prefix->isV4() == v6) prefix.reset();
  return prefix;
}

uint32_t parseTunnelNumber(std::string_view text, std::string_view keyword, uint32_t max) {
  // strtoul's base 0, as ip's get_u32(.., 0): 0x hex, a leading 0 octal; no sign.
  std::string word(text);
  char* end = nullptr;
  errno = 0;
  unsigned long v = word.empty() || word[0] == '-' || word[0] == '+' ? 0 : std::strtoul(word.c_str(), &end, 0);
  if (word.empty() || word[0] == '-' || word[0] == '+' || *end || errno == ERANGE || v > max)
    throw UsageError(fmt::format("{}: \"{}\" is not a number from 0 to {}", keyword, text, max));
  return static_cast<uint32_t>(v);
}

KindOption tunnelEncap(uint16_t type, uint16_t flags, uint16_t sport, uint16_t dport) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  std::string text = "encap ";
  const char* name = type == 1 ? "fou" : type == 2 ? "gue" : nullptr;
  j["type"] = name ? nlohmann::ordered_json(name) : nlohmann::ordered_json(nullptr);
  text += name ? name : "unknown";
  j["sport"] = sport;
  j["dport"] = dport;
  j["csum"] = (flags & 1) != 0;
  j["csum6"] = (flags & 2) != 0;
  j["remcsum"] = (flags & 4) != 0;
  // tnl_encap_str: "encap-sport auto" for 0, then each flag with "no" when off.
  text += sport ? fmt::format(" encap-sport {}", sport) : std::string(" encap-sport auto");
  text += fmt::format(" encap-dport {}", dport);
  for (auto [bit, word] : {std::pair{1, "csum"}, {2, "csum6"}, {4, "remcsum"}})
    text += fmt::format(" {}encap-{}", flags & bit ? "" : "no", word);
  return {"encap", std::move(j), std::move(text)};
}

bool parseIp6TunnelOption(Args& args, std::optional<uint32_t>& flowinfo, std::optional<uint32_t>& flags,
                          std::optional<uint8_t>& encapLimit) {
  // The IP6_TNL_F_* bits (include/uapi/linux/ip6_tunnel.h) and the parts of flowinfo.
  constexpr uint32_t kIgnoreEncapLimit = 0x1, kUseOrigTclass = 0x2, kUseOrigFlowlabel = 0x4, kRcvDscpCopy = 0x10,
                     kAllowLocalRemote = 0x40, kTclass = 0x0ff00000, kFlowlabel = 0x000fffff;
  uint32_t f = flags.value_or(0), info = flowinfo.value_or(0);
  auto hex = [](const std::string& word, std::string_view what, uint32_t max) {
    char* end = nullptr;
    errno = 0;
    unsigned long v = word.empty() || word[0] == '-' ? ~0ul : std::strtoul(word.c_str(), &end, 16);
    if (v > max || (end && *end) || errno) throw UsageError(fmt::format("{}: \"{}\" is not a hex number from 0x0 to {:#x} or inherit", what, word, max));
    return static_cast<uint32_t>(v);
  };
  if (args.acceptAny({"tclass", "tos", "tc", "dsfield"})) {
    std::string word = args.value("tclass");
    info &= ~kTclass;
    if (word == "inherit") f |= kUseOrigTclass;
    else info |= hex(word, "tclass", 0xff) << 20, f &= ~kUseOrigTclass;
  } else if (args.acceptAny({"flowlabel", "fl"})) {
    std::string word = args.value("flowlabel");
    info &= ~kFlowlabel;
    if (word == "inherit") f |= kUseOrigFlowlabel;
    else info |= hex(word, "flowlabel", 0xfffff), f &= ~kUseOrigFlowlabel;
  } else if (args.accept("encaplimit")) {
    std::string word = args.value("encaplimit");
    if (word == "none") f |= kIgnoreEncapLimit;
    else encapLimit = static_cast<uint8_t>(parseTunnelNumber(word, "encaplimit", 255)), f &= ~kIgnoreEncapLimit;
  } else if (args.accept("dscp")) {
    if (args.value("dscp") != "inherit") throw UsageError("dscp: only \"dscp inherit\" is known");
    f |= kRcvDscpCopy;
  } else if (args.accept("allow-localremote")) {
    f |= kAllowLocalRemote;
  } else if (args.accept("noallow-localremote")) {
    f &= ~kAllowLocalRemote;
  } else {
    return false;
  }
  flags = f;
  flowinfo = info;
  return true;
}

void printIp6TunnelOptions(std::vector<KindOption>& out, const std::optional<uint32_t>& flowinfo, uint32_t flags,
                           const std::optional<uint8_t>& encapLimit) {
  // ip6tunnel_print_opt / gre_print_opt of link_gre6.c: a value only when the kernel reported it.
  if (flags & 0x1) out.push_back({"ip6_tnl_f_ign_encap_limit", true, "encaplimit none"});
  else if (encapLimit) out.push_back({"encap_limit", *encapLimit, fmt::format("encaplimit {}", *encapLimit)});
  if (flags & 0x2) out.push_back({"ip6_tnl_f_use_orig_tclass", true, "tclass inherit"});
  else if (flowinfo) out.push_back(stringOption("tclass", fmt::format("0x{:02x}", (*flowinfo & 0x0ff00000) >> 20)));
  if (flags & 0x4) out.push_back({"ip6_tnl_f_use_orig_flowlabel", true, "flowlabel inherit"});
  else if (flowinfo) out.push_back(stringOption("flowlabel", fmt::format("0x{:05x}", *flowinfo & 0x000fffff)));
  if (flags & 0x10) out.push_back({"ip6_tnl_f_rcv_dscp_copy", true, "dscp inherit"});
}

// ---- Words of the link itself, which a veth peer takes too -----------------------------------

uint32_t parseGroup(std::string_view text) {
  if (text == "default") return 0;
  return parseU32(text, "group");
}

uint32_t parseIpUnsigned(const std::string& text, std::string_view keyword, uint32_t max) {
  errno = 0;
  char* end = nullptr;
  unsigned long v = text.empty() ? 0 : std::strtoul(text.c_str(), &end, 0);
  if (text.empty() || end == text.c_str() || *end || errno == ERANGE || v > max)
    throw UsageError(fmt::format("argument \"{}\" is wrong: Invalid \"{}\" value", text, keyword));
  return static_cast<uint32_t>(v);
}

/// A link-layer address as ip's ll_addr_a2n reads `broadcast LLADDR`: a word with a '.' is an
/// IPv4 address (4 bytes; up to four parts, each as strtoul reads it, missing ones 0: a tunnel's
/// endpoint); else octets separated by ':', each read as sscanf's %x reads it (a hex number and
/// whatever follows it ignored), 0-255, as many as given. The length is the kernel's to judge
/// (it refuses fewer bytes than the device's addresses have, and ignores more). A bad piece is
/// ip's `"PIECE" is invalid lladdr.` (status 1, as ip); more than MAX_ADDR_LEN (32) octets is
/// refused here (ip sends a 33rd byte from beyond its buffer, which the kernel refuses).
MacAddress parseLinkLayerAddress(const std::string& text) {
  auto invalid = [](const std::string& piece) { return BadValueError(fmt::format("\"{}\" is invalid lladdr.", piece)); };
  std::array<uint8_t, MacAddress::kMaxLength> bytes{};
  if (text.find('.') != std::string::npos) {
    if (text.find(':') != std::string::npos) throw invalid(text);  // read as IPv6, not AF_INET
    const char* at = text.c_str();
    for (std::size_t i = 0; i < 4; ++i) {
      char* end = nullptr;
      unsigned long part = std::strtoul(at, &end, 0);
      if (part > 255 || end == at) throw invalid(text);
      bytes[i] = static_cast<uint8_t>(part);
      if (*end == '\0') break;
      if (i == 3 || *end != '.') throw invalid(text);
      at = end + 1;
    }
    return MacAddress(std::span<const uint8_t>(bytes.data(), 4));
  }
  std::size_t n = 0;
  for (std::size_t from = 0;;) {
    std::size_t colon = text.find(':', from);
    std::string piece = text.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    int octet = 0;
    if (std::sscanf(piece.c_str(), "%x", &octet) != 1 || octet < 0 || octet > 255) throw invalid(piece);
    if (n == bytes.size())
      throw UsageError(fmt::format("broadcast: \"{}\" is longer than {} bytes (the kernel's MAX_ADDR_LEN)", text, bytes.size()));
    bytes[n++] = static_cast<uint8_t>(octet);
    if (colon == std::string::npos) break;
    from = colon + 1;
  }
  return MacAddress(std::span<const uint8_t>(bytes.data(), n));
}

}  // namespace fastlink::cli
