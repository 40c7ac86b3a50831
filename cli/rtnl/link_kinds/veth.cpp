// `type veth peer [name] PEER [address LLADDR] [netns NETNSNAME|PID|PATH]`. The kernel reports no veth
// options (the peer is IFLA_LINK), so nothing is printed.
#include "kit/ip_compat.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVeth(Args& args, ParsedLink& p) {
  if (args.done()) return;  // the kernel names the peer (vethN), like `ip link add v0 type veth`
  VethInfo v;
  if (!args.accept("peer")) args.unknown("type veth takes: peer [name] PEER [address LLADDR] [netns NETNSNAME]");
  while (!args.done()) {
    if (args.accept("name")) v.peerName = parseIfname(args.value("name"), "peer name");
    else if (args.accept("address")) v.peerAddress = parseMac(args.value("address"), "peer address");
    else if (args.accept("netns")) v.peerNetns = parseNetnsTarget(args.value("netns"));
    else if (!v.peerName) v.peerName = parseIfname(args.next(), "peer name");
    else args.unknown("after \"peer\": name, address, netns");
  }
  if (!v.peerName) throw UsageError("veth: \"peer\" needs a name (peer name PEER)");
  p.info.veth = v;
}

const LinkKindRegistrar kVeth{{.kinds = {"veth"},
                               .usage = "veth:    peer [name] PEER [address LLADDR] [netns NETNSNAME]",
                               .parse = parseVeth}};

}  // namespace
}  // namespace fastlink::cli
