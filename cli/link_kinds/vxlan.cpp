#include <fmt/format.h>

#include "../link_kind.hpp"

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
    } else if (args.accept("learning")) v.learning = true;
    else if (args.accept("nolearning")) v.learning = false;
    else if (args.acceptAny({"ttl", "hoplimit"})) {
      std::string t = args.value("ttl");
      v.ttl = t == "auto" || t == "inherit" ? 0 : static_cast<uint8_t>(parseInteger(t, "ttl", 0, 255));
    } else args.unknown("type vxlan takes: id, local, remote, group, dstport, dev, learning, nolearning, ttl");
  }
  p.info.vxlan = v;
}

std::vector<KindOption> printVxlan(const LinkInfo& l, const NameOf& nameOf) {
  std::vector<KindOption> out;
  if (!l.vxlan) return out;
  const auto& v = *l.vxlan;
  if (v.vni) out.push_back(numberOption("id", *v.vni));
  if (v.remote) {
    const char* key = v.remote->isMulticast() ? "group" : "remote";
    out.push_back(stringOption(key, v.remote->toString(), fmt::format("{} {}", key, v.remote->toString())));
  }
  if (v.local) out.push_back(stringOption("local", v.local->toString(), "local " + v.local->toString()));
  if (v.dev && v.dev->isIndex() && v.dev->index() != 0) {
    std::string dev = nameOf(v.dev->index());
    out.push_back(stringOption("link", dev, "dev " + dev));
  }
  if (v.dstPort) out.push_back({"port", *v.dstPort, fmt::format("dstport {}", *v.dstPort)});
  if (v.learning) out.push_back({"learning", *v.learning, *v.learning ? "learning" : "nolearning"});
  if (v.ttl) out.push_back(numberOption("ttl", *v.ttl));
  return out;
}

std::vector<uint32_t> vxlanDevices(const LinkInfo& l) {
  if (l.vxlan && l.vxlan->dev && l.vxlan->dev->isIndex()) return {l.vxlan->dev->index()};
  return {};
}

const LinkKindRegistrar kVxlan{{.kinds = {"vxlan"},
                                .usage = "vxlan:   id VNI | local IP | remote IP | group IP | dstport PORT | dev DEV | learning | nolearning | ttl TTL",
                                .parse = parseVxlan,
                                .print = printVxlan,
                                .devices = vxlanDevices}};

}  // namespace
}  // namespace fastlink::cli
