// `type veth peer [name] PEER [address LLADDR] [broadcast LLADDR] [netns NETNSNAME|PID|PATH]
// [mtu N] [txqlen N] [numtxqueues N] [numrxqueues N] [gso_max_size N] [gso_max_segs N]
// [gro_max_size N] [group G]`: the peer's own options, as ip parses them after `peer` (its
// iplink_parse; the name is optional there too). The kernel reports no veth options (the peer is
// IFLA_LINK), so nothing is printed.
#include <fmt/format.h>

#include <algorithm>

#include "kit/ip_compat.hpp"
#include "rtnl/link_kind.hpp"

namespace fastlink::cli {
namespace {

/// Words ip's iplink_parse takes after `peer` that a new veth peer does not get: veth_newlink
/// creates it from rtnl_create_link's attributes and the ifinfomsg's flags only, so ip sends
/// these and the peer ends without them (or, addrgenmode, the request fails). Refused by name.
constexpr std::string_view kIgnoredForPeer[] = {"alias",      "master",       "nomaster",  "vrf",    "carrier",
                                                "protodown",  "protodown_reason", "addrgenmode", "link-netns",
                                                "link-netnsid", "parentdev",  "xdp",       "xdpgeneric", "xdpdrv",
                                                "xdpoffload", "vf",           "link"};
/// Words the kernel applies to a new peer (ifinfomsg flags, ifindex, link mode, operstate) that
/// fastlink does not send for one (`up` fails there besides: the peer cannot open before its
/// other end is registered). Refused by name.
constexpr std::string_view kNotSentForPeer[] = {"up",        "down",  "index", "mode",     "state",   "promisc",
                                                "allmulticast", "multicast", "arp", "trailers", "dynamic"};

template <class T>
void once(const std::optional<T>& field, std::string_view word, Args& args) {
  if (field) throw UsageError(fmt::format("duplicate \"{}\": \"{}\" is the second value.", word, args.peek()));
}

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
    else if (args.acceptAny({"broadcast", "brd"})) v.peerBroadcast = parseLinkLayerAddress(args.value("broadcast"));
    else if (args.accept("gso_max_size")) v.peerGsoMaxSize = parseIpUnsigned(args.value("gso_max_size"), "gso_max_size");
    else if (args.accept("gso_max_segs")) v.peerGsoMaxSegs = parseIpUnsigned(args.value("gso_max_segs"), "gso_max_segs", kGsoMaxSegs);
    else if (args.accept("gro_max_size")) v.peerGroMaxSize = parseIpUnsigned(args.value("gro_max_size"), "gro_max_size");
    else if (args.accept("group")) {
      once(v.peerGroup, "group", args);
      v.peerGroup = parseGroup(args.value("group"));
    } else if (std::ranges::find(kIgnoredForPeer, args.peek()) != std::end(kIgnoredForPeer))
      throw UsageError(fmt::format("veth peer: the kernel does not apply \"{0}\" to a new peer (ip sends it for nothing); "
                                   "set it after creating the pair: fastlink link set PEER {0} ...", args.peek()));
    else if (std::ranges::find(kNotSentForPeer, args.peek()) != std::end(kNotSentForPeer))
      throw UsageError(fmt::format("veth peer: \"{0}\" is not supported for the peer; set it after creating the pair: "
                                   "fastlink link set PEER {0} ...", args.peek()));
    else if (!v.peerName) v.peerName = parseIfname(args.next(), "peer name");
    else
      args.unknown("after \"peer\": name, address, broadcast, netns, mtu, txqlen, numtxqueues, numrxqueues, "
                   "gso_max_size, gso_max_segs, gro_max_size, group");
  }
  // No name (`peer` alone, or `peer mtu 1400`): the kernel names the peer vethN, as with ip.
  p.info.veth = v;
}

const LinkKindRegistrar kVeth{
    {.kinds = {"veth"},
     .usage = "veth:    peer [name] PEER [address LLADDR] [broadcast LLADDR] [netns NETNSNAME] [mtu MTU] [txqlen PACKETS]\n"
              "         [numtxqueues QUEUES] [numrxqueues QUEUES] [gso_max_size BYTES] [gso_max_segs SEGMENTS]\n"
              "         [gro_max_size BYTES] [group GROUP]",
     .parse = parseVeth}};

}  // namespace
}  // namespace fastlink::cli
