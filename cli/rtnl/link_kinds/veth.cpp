// `type veth peer [name] PEER [address LLADDR] [netns NETNSNAME|PID|PATH] [mtu N] [txqlen N]
// [numtxqueues N] [numrxqueues N]`: the peer's own options, as ip parses them after `peer` (the
// name is optional there too). The kernel reports no veth options (the peer is IFLA_LINK), so
// nothing is printed.
#include "kit/ip_compat.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

void parseVeth(Args& args, ParsedLink& p) {
  if (args.done()) return;  // the kernel names the peer (vethN), like `ip link add v0 type veth`
  VethInfo v;
  if (!args.accept("peer")) args.unknown("type veth takes: peer [name] PEER [OPTIONS]");
  while (!args.done()) {
    if (args.accept("name")) v.peerName = parseIfname(args.value("name"), "peer name");
    else if (args.accept("address")) v.peerAddress = parseMac(args.value("address"), "peer address");
    else if (args.accept("netns")) v.peerNetns = parseNetnsTarget(args.value("netns"));
    else if (args.accept("mtu")) v.peerMtu = parseU32(args.value("mtu"), "peer mtu");
    else if (args.acceptAny({"txqlen", "qlen", "txqueuelen"})) v.peerTxqlen = parseU32(args.value("txqlen"), "peer txqlen");
    else if (args.accept("numtxqueues")) v.peerNumTxQueues = parseU32(args.value("numtxqueues"), "peer numtxqueues", 1, 4096);
    else if (args.accept("numrxqueues")) v.peerNumRxQueues = parseU32(args.value("numrxqueues"), "peer numrxqueues", 1, 4096);
    else if (!v.peerName) v.peerName = parseIfname(args.next(), "peer name");
    else args.unknown("after \"peer\": name, address, netns, mtu, txqlen, numtxqueues, numrxqueues");
  }
  // No name (`peer` alone, or `peer mtu 1400`): the kernel names the peer vethN, as with ip.
  p.info.veth = v;
}

const LinkKindRegistrar kVeth{{.kinds = {"veth"},
                               .usage = "veth:    peer [name] PEER [address LLADDR] [netns NETNSNAME] [mtu MTU] [txqlen PACKETS] [numtxqueues QUEUES] [numrxqueues QUEUES]",
                               .parse = parseVeth}};

}  // namespace
}  // namespace fastlink::cli
