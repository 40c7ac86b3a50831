#!/usr/bin/env python3
"""Captures real kernel replies as seeds of the decoder and reply-reader harnesses.

Run inside a throwaway namespace (it creates devices, addresses, routes, neighbours, FDB
entries, rules, nexthops and bridge VLANs with `ip`/`bridge`, then dumps them over a raw
netlink socket):

    scripts/sandbox python3 tests/fuzz/capture_seeds.py

Each message body (after the 16-byte netlink header) becomes tests/fuzz/corpus/decode_<object>/
kernel_<object>_<n>; whole dump datagrams become reply_reader seeds (in that harness's chunk
format). make_seeds.py writes the hand-made seeds next to these.
"""
import os
import socket
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NETLINK_ROUTE = 0
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE, RTM_GETNEIGH, RTM_GETRULE, RTM_GETNEXTHOP = 18, 22, 26, 30, 34, 106
AF_UNSPEC, AF_INET, AF_INET6, AF_BRIDGE = 0, 2, 10, 7
IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN = 29, 2
MAX_PER_OBJECT = 12


def sh(cmd, optional=False):
    """Runs an ip/bridge command; `optional` ones may fail on a kernel without the feature (the
    host has no bridge VLAN filtering: tests/vm has)."""
    subprocess.run(cmd, shell=True, check=not optional, stderr=subprocess.DEVNULL if optional else None)


def setup():
    sh("ip link add br0 type bridge vlan_filtering 1", optional=True)
    sh("ip link show br0 >/dev/null 2>&1 || ip link add br0 type bridge")
    sh("ip link add v0 type veth peer name v1")
    sh("ip link set v0 master br0")
    sh("ip link set br0 up; ip link set v0 up; ip link set v1 up")
    sh("bridge vlan add dev v0 vid 10 pvid untagged", optional=True)
    sh("bridge vlan add dev v0 vid 20-25", optional=True)
    sh("ip addr add 10.1.0.1/24 dev v1 label v1:a")
    sh("ip addr add 10.2.0.1/16 broadcast + dev v1")
    sh("ip addr add 2001:db8::1/64 dev v1 nodad")
    sh("ip addr add 10.3.0.1/32 dev v1 valid_lft 100 preferred_lft 50")
    sh("ip route add 10.9.0.0/16 via 10.1.0.2 dev v1 metric 5 mtu 1400")
    sh("ip route add 10.10.0.0/16 nexthop via 10.1.0.2 weight 2 nexthop via 10.1.0.3 weight 3")
    sh("ip route add blackhole 10.11.0.0/16 table 100")
    sh("ip route add 2001:db8:1::/48 via 2001:db8::2 dev v1")
    sh("ip route add 2001:db8:2::/48 nexthop via 2001:db8::2 dev v1 nexthop via 2001:db8::3 dev v1")
    sh("ip neigh add 10.1.0.2 lladdr 02:00:00:00:00:02 dev v1 nud permanent")
    sh("ip neigh add 2001:db8::2 lladdr 02:00:00:00:00:03 dev v1 nud reachable")
    sh("ip neigh add 10.1.0.9 dev v1 nud failed")
    sh("bridge fdb add 02:00:00:00:01:01 dev v0 master static vlan 10", optional=True)
    sh("bridge fdb add 02:00:00:00:01:02 dev v0 master")
    sh("ip rule add from 10.1.0.0/24 table 100 priority 1000")
    sh("ip rule add to 10.9.0.0/16 fwmark 0x10/0xff lookup main priority 1001")
    sh("ip -6 rule add from 2001:db8::/64 iif v1 table 100 priority 1002")
    sh("ip nexthop add id 1 via 10.1.0.2 dev v1")
    sh("ip nexthop add id 2 via 10.1.0.3 dev v1")
    sh("ip nexthop add id 3 group 1,2/2")
    sh("ip nexthop add id 4 blackhole")


def dump(msg_type, header, attrs=b""):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    s.bind((0, 0))
    body = header + attrs
    s.send(struct.pack("<IHHII", 16 + len(body), msg_type, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + body)
    datagrams, messages = [], []
    done = False
    while not done:
        data = s.recv(1 << 20)
        datagrams.append(data)
        at = 0
        while at + 16 <= len(data):
            length, t, _, _, _ = struct.unpack_from("<IHHII", data, at)
            if t in (NLMSG_DONE, NLMSG_ERROR):
                done = True
            else:
                messages.append(data[at + 16:at + length])
            at += (length + 3) & ~3
    s.close()
    return datagrams, messages


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def save(harness, obj, messages):
    for i, m in enumerate(messages[:MAX_PER_OBJECT]):
        write(harness, f"kernel_{obj}_{i}", m)


def reply_seed(op, datagrams):
    """A reply_reader input answering with these datagrams, sequence numbers fixed to the
    request's (control 0x01) and our port id (0x08); 0x80 starts each datagram."""
    out = bytes([op])
    for d in datagrams:
        at, first = 0, True
        while at + 16 <= len(d):
            length = struct.unpack_from("<I", d, at)[0]
            m = d[at:at + length]
            if len(m) <= 255:
                out += bytes([0x09 | (0x80 if first else 0), len(m)]) + m
                first = False
            at += (length + 3) & ~3
    return out


def main():
    if os.geteuid() != 0:
        sys.exit("capture_seeds.py: run as root inside scripts/sandbox")
    setup()
    ifinfo = struct.pack("<BBHiII", AF_UNSPEC, 0, 0, 0, 0, 0)
    ifaddr = struct.pack("<BBBBI", AF_UNSPEC, 0, 0, 0, 0)
    rtmsg = struct.pack("<BBBBBBBBI", AF_UNSPEC, 0, 0, 0, 0, 0, 0, 0, 0)
    ndmsg = struct.pack("<BBHiHBB", AF_UNSPEC, 0, 0, 0, 0, 0, 0)
    fdbmsg = struct.pack("<BBHiHBB", AF_BRIDGE, 0, 0, 0, 0, 0, 0)
    fib_rule = struct.pack("<BBBBBBBBI", AF_UNSPEC, 0, 0, 0, 0, 0, 0, 0, 0)
    nhmsg = struct.pack("<BBBBI", AF_UNSPEC, 0, 0, 0, 0)
    brvlan = struct.pack("<BBHiII", AF_BRIDGE, 0, 0, 0, 0, 0) + struct.pack("<HHI", 8, IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN)

    link_dgrams, links = dump(RTM_GETLINK, ifinfo)
    save("decode_link", "link", links)
    addr_dgrams, addrs = dump(RTM_GETADDR, ifaddr)
    save("decode_addr", "addr", addrs)
    route_dgrams, routes = dump(RTM_GETROUTE, rtmsg)
    save("decode_route", "route", [r for r in routes if r[0] in (AF_INET, AF_INET6)])
    neigh_dgrams, neighs = dump(RTM_GETNEIGH, ndmsg)
    save("decode_neigh", "neigh", [n for n in neighs if n[0] in (AF_INET, AF_INET6)])
    _, fdbs = dump(RTM_GETNEIGH, fdbmsg)
    save("decode_fdb", "fdb", fdbs)
    rule_dgrams, rules = dump(RTM_GETRULE, fib_rule)
    save("decode_rule", "rule", rules)
    nh_dgrams, nexthops = dump(RTM_GETNEXTHOP, nhmsg)
    save("decode_nexthop", "nexthop", nexthops)
    _, vlans = dump(RTM_GETLINK, brvlan)
    save("decode_bridge_vlan", "bridge_vlan", vlans)

    # reply_reader: operation 1 = dump, 2 = query (one answer), 0 = execute (an ACK expected).
    write("reply_reader", "kernel_link_dump", reply_seed(1, link_dgrams))
    write("reply_reader", "kernel_addr_dump", reply_seed(1, addr_dgrams))
    write("reply_reader", "kernel_route_dump", reply_seed(1, route_dgrams))
    write("reply_reader", "kernel_rule_dump", reply_seed(1, rule_dgrams))
    write("reply_reader", "kernel_nexthop_dump", reply_seed(1, nh_dgrams))
    write("reply_reader", "kernel_link_query", reply_seed(2, link_dgrams[:1]))
    print(f"links {len(links)} addrs {len(addrs)} routes {len(routes)} neighs {len(neighs)} fdb {len(fdbs)} "
          f"rules {len(rules)} nexthops {len(nexthops)} bridge-vlan {len(vlans)}")
    sh("ip link del br0")  # bridges go before the namespace (FACTS.md)


if __name__ == "__main__":
    main()
