#include <fmt/format.h>

#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVxlan(Args& args, ParsedLink& p) {
  VxlanInfo v;
  while (!args.done()) {
    if (args.acceptAny({"id", "vni"})) v.vni = parseU32(args.value("id"), "vxlan id", 0, (1u << 24) - 1);
    else if (args.accept("local")) v.local = parseIp(args.value("local"), "local");
    else if (args.accept("remote")) {
      v.remote = parseIp(args.value("remote"), "remote");
      if (v.remote->isMulticast()) throw UsageError("remote: use \"group\" for a multicast address");
    } else if (args.accept("group")) {
      v.remote = parseIp(args.value("group"), "group");
      if (!v.remote->isMulticast()) throw UsageError("group: use \"remote\" for a unicast address");
    } else if (args.acceptAny({"dstport", "port"})) v.dstPort = static_cast<uint16_t>(parseInteger(args.value("dstport"), "dstport", 0, 65535));
    else if (args.accept("dev")) {
      p.kindDevices.push_back({parseIfname(args.value("dev"), "dev"), [](LinkInfo& l, uint32_t index) { l.vxlan->dev = Ifref(index); }});
    } else if (args.acceptSwitch("learning", v.learning)) {
    } else if (args.acceptAny({"ttl", "hoplimit"})) {
      std::string t = args.value("ttl");
      v.ttl = t == "auto" || t == "inherit" ? 0 : static_cast<uint8_t>(parseInteger(t, "ttl", 0, 255));
    } else if (args.acceptAny({"tos", "dsfield"})) v.tos = parseTunnelTos(args.value("tos"));
    else if (args.accept("srcport")) {
      // ip's `srcport MIN MAX`: two words, both ports.
      auto low = static_cast<uint16_t>(parseInteger(args.value("srcport"), "srcport", 0, 65535));
      auto high = static_cast<uint16_t>(parseInteger(args.value("srcport MAX"), "srcport MAX", 0, 65535));
      if (low > high) throw UsageError(fmt::format("srcport: the low end {} is above the high end {}", low, high));
      v.srcPortMin = low;
      v.srcPortMax = high;
    } else if (args.accept("ageing")) v.ageing = parseU32(args.value("ageing"), "ageing");
    else if (args.acceptSwitch("udpcsum", v.udpCsum) || args.acceptSwitch("udp6zerocsumtx", v.udp6ZeroCsumTx) ||
             args.acceptSwitch("udp6zerocsumrx", v.udp6ZeroCsumRx)) {
    } else if (args.accept("df")) {
      std::string df = args.value("df");
      if (df == "unset") v.df = VxlanDf::Unset;
      else if (df == "set") v.df = VxlanDf::Set;
      else if (df == "inherit") v.df = VxlanDf::Inherit;
      else throw UsageError("df: \"" + df + "\" is not unset, set or inherit");
    } else args.unknown("type vxlan takes: id, local, remote, group, dev, srcport, dstport, [no]learning, tos, ttl, df, "
                        "ageing, [no]udpcsum, [no]udp6zerocsumtx, [no]udp6zerocsumrx");
  }
  p.info.vxlan = v;
}

std::vector<KindOption> printVxlan(const LinkInfo& l, const NameOf& nameOf) {
  std::vector<KindOption> out;
  if (!l.vxlan) return out;
  const auto& v = *l.vxlan;
  if (v.vni) out.push_back(numberOption("id", *v.vni));
  if (v.remote) out.push_back(stringOption(v.remote->isMulticast() ? "group" : "remote", v.remote->toString()));
  if (v.local) out.push_back(stringOption("local", v.local->toString()));
  if (v.dev && v.dev->isIndex() && v.dev->index() != 0) {
    std::string dev = nameOf(v.dev->index());
    out.push_back(stringOption("link", dev, "dev " + dev));
  }
  if (v.srcPortMin && v.srcPortMax)
    out.push_back({"port_range", {{"low", *v.srcPortMin}, {"high", *v.srcPortMax}},
                   fmt::format("srcport {} {}", *v.srcPortMin, *v.srcPortMax)});
  if (v.dstPort) out.push_back({"port", *v.dstPort, fmt::format("dstport {}", *v.dstPort)});
  // Text names learning only when it is off; JSON always.
  if (v.learning) out.push_back({"learning", *v.learning, *v.learning ? "" : "nolearning"});
  if (v.tos)
    if (auto tos = tunnelTos(*v.tos)) out.push_back(*tos);
  if (v.ttl) out.push_back({"ttl", *v.ttl, *v.ttl ? fmt::format("ttl {}", *v.ttl) : std::string("ttl auto")});
  if (v.df) out.push_back(udpTunnelDf(static_cast<uint8_t>(*v.df)));
  if (v.ageing) out.push_back(numberOption("ageing", *v.ageing));
  printUdpChecksums(out, v);
  return out;
}

std::vector<uint32_t> vxlanDevices(const LinkInfo& l) {
  if (l.vxlan && l.vxlan->dev && l.vxlan->dev->isIndex()) return {l.vxlan->dev->index()};
  return {};
}

const LinkKindRegistrar kVxlan{{.kinds = {"vxlan"},
                                .usage = "vxlan:   id VNI | local IP | remote IP | group IP | dev DEV | srcport MIN MAX | dstport PORT |\n"
                                         "           [no]learning | tos TOS | ttl TTL | df { unset | set | inherit } | ageing SECONDS |\n"
                                         "           [no]udpcsum | [no]udp6zerocsumtx | [no]udp6zerocsumrx",
                                .parse = parseVxlan,
                                .print = printVxlan,
                                .devices = vxlanDevices}};

}  // namespace
}  // namespace fastlink::cli
