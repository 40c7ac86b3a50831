#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/).

Rerun after changing a seed: python3 tests/fuzz/make_seeds.py. Crash reproducers found by
libFuzzer are added to the same directories by hand (named crash-*), so the regression
ctests replay them forever.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
NESTED = 0x8000


def attr(t, payload=b""):
    data = struct.pack("<HH", 4 + len(payload), t) + payload
    return data + b"\0" * (-len(data) % 4)


def u8(t, v): return attr(t, struct.pack("<B", v))
def u16(t, v): return attr(t, struct.pack("<H", v))
def be16(t, v): return attr(t, struct.pack(">H", v))
def u32(t, v): return attr(t, struct.pack("<I", v))
def u64(t, v): return attr(t, struct.pack("<Q", v))
def s(t, text): return attr(t, text.encode() + b"\0")
def nest(t, *parts, flag=False): return attr(t | (NESTED if flag else 0), b"".join(parts))


def ifinfo(index=0, flags=0, type_=1, change=0):
    return struct.pack("<BBHiII", 0, 0, type_, index, flags, change)


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# IFLA_* numbers (include/uapi/linux/if_link.h)
ADDRESS, BROADCAST, IFNAME, MTU, LINK, QDISC, STATS, MASTER = 1, 2, 3, 4, 5, 6, 7, 10
TXQLEN, OPERSTATE, LINKMODE, LINKINFO, IFALIAS, STATS64, AF_SPEC, GROUP = 13, 16, 17, 18, 20, 23, 26, 27
NUM_TX, NUM_RX, CARRIER, LINK_NETNSID, PAD, MIN_MTU, MAX_MTU, PROP_LIST, ALT_IFNAME = 31, 32, 33, 37, 42, 50, 51, 52, 53
KIND, DATA, SLAVE_KIND, SLAVE_DATA = 1, 2, 4, 5

# ---- decode_link: the body of RTM_NEWLINK (ifinfomsg + attributes) ----
veth = ifinfo(7, 0x11043) + b"".join([
    s(IFNAME, "v0"), u32(TXQLEN, 1000), u8(OPERSTATE, 6), u8(LINKMODE, 0), u32(MTU, 1500),
    u32(MIN_MTU, 68), u32(MAX_MTU, 65535), u32(GROUP, 5), u32(NUM_TX, 2), u32(NUM_RX, 3),
    u8(CARRIER, 1), s(QDISC, "noqueue"), u32(LINK, 8), u32(MASTER, 3),
    attr(ADDRESS, bytes([2, 0, 0, 0, 0, 7])), attr(BROADCAST, b"\xff" * 6), s(IFALIAS, "uplink"),
    attr(PAD), attr(STATS64, b"".join(struct.pack("<Q", i * 1000) for i in range(25))),
    attr(STATS, b"\0" * 96),
    nest(LINKINFO, s(KIND, "veth"), s(SLAVE_KIND, "bridge"), nest(SLAVE_DATA, u8(1, 3), u16(2, 32), u32(3, 2))),
    nest(PROP_LIST, s(ALT_IFNAME, "veth-alt"), flag=True), nest(AF_SPEC, nest(2, u32(1, 1))),
])
write("decode_link", "veth_bridge_port", veth)
# Repeated attributes: the last of each type decides, for the decoder and LinkView alike (a
# hardware address too long for MacAddress unsets the earlier one; a second IFLA_LINKINFO
# without a kind unsets the kind).
write("decode_link", "view-repeated-attributes", ifinfo(7, 0x1043) + b"".join([
    s(IFNAME, "dup0"), u32(MTU, 1500), u32(MTU, 1400), attr(ADDRESS, bytes([2, 0, 0, 0, 0, 0x22])),
    attr(ADDRESS, bytes(40)), nest(LINKINFO, s(KIND, "veth")), nest(LINKINFO, attr(DATA, b"x")),
    u8(OPERSTATE, 6), s(IFNAME, "dup1")]))
write("decode_link", "bridge", ifinfo(3, 0x1003) + s(IFNAME, "br0") + nest(LINKINFO, s(KIND, "bridge"), nest(DATA,
      u32(1, 1500), u32(4, 30000), u32(5, 1), u8(7, 1), be16(8, 0x8100), u16(39, 1),
      attr(11, bytes(8)), attr(40), u64(16, 12345), attr(46, struct.pack("<II", 1, 7)))))
write("decode_link", "vxlan_v4", ifinfo(11) + nest(LINKINFO, s(KIND, "vxlan"), nest(DATA,
      u32(1, 42), attr(2, bytes([239, 1, 1, 1])), u32(3, 2), attr(4, bytes([10, 0, 0, 1])), u8(5, 64),
      u8(7, 1), be16(15, 4789))))
write("decode_link", "vxlan_v6", ifinfo(12) + nest(LINKINFO, s(KIND, "vxlan"), nest(DATA,
      u32(1, 7), attr(16, bytes([0xff, 5] + [0] * 13 + [0x99])), attr(17, bytes([0x20, 1, 0xd, 0xb8] + [0] * 11 + [1])),
      be16(15, 8472)), flag=True))
write("decode_link", "vlan", ifinfo(20) + s(IFNAME, "eth0.100") + u32(LINK, 2) + nest(LINKINFO, s(KIND, "vlan"),
      nest(DATA, be16(5, 0x88a8), u16(1, 100), attr(2, struct.pack("<II", 1, 0xffffffff)))))
write("decode_link", "bond", ifinfo(32) + nest(LINKINFO, s(KIND, "bond"), nest(DATA, u8(1, 4), u32(3, 100), u32(4, 0))))
write("decode_link", "macvtap", ifinfo(30) + nest(LINKINFO, s(KIND, "macvtap"), nest(DATA, u32(1, 2))))
write("decode_link", "vrf", ifinfo(31) + nest(LINKINFO, s(KIND, "vrf"), nest(DATA, u32(1, 1001))))
write("decode_link", "unknown_kind", ifinfo(40) + nest(LINKINFO, s(KIND, "geneve"), nest(DATA, u32(1, 5))))
write("decode_link", "netnsid", ifinfo(9, 1) + s(IFNAME, "v1") + u32(LINK_NETNSID, 0xffffffff))

# Routes as the mirror's canonical form reads them (events/canonical.cpp): over a nexthop object
# with the paths the kernel shows with it, and a multipath route (a dead, linkdown path) with a
# preferred source. rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
def rtmsg(family=2, dst_len=16): return struct.pack("<BBBBBBBBI", family, dst_len, 0, 0, 254, 3, 0, 1, 0)
def rtnexthop(flags, ifindex, *attrs):
    body = b"".join(attrs)
    return struct.pack("<HBBi", 8 + len(body), flags, 0, ifindex) + body
paths = rtnexthop(0, 3, attr(5, bytes([10, 9, 0, 2]))) + rtnexthop(0x11, 5, attr(5, bytes([10, 8, 0, 2])))
write("decode_route", "mirror_nhid_group", rtmsg() + attr(1, bytes([10, 50, 0, 0])) + u32(15, 254) + u32(30, 10) + attr(9, paths))
write("decode_route", "mirror_multipath_prefsrc", rtmsg() + attr(1, bytes([10, 70, 0, 0])) + u32(15, 254) +
      attr(7, bytes([10, 9, 0, 5])) + attr(9, paths))
# Repeated attributes: the last of each type decides, for the decoders and the views alike (two
# RTA_MULTIPATH, the second cacheinfo without expiry, a second IFA_LOCAL equal to IFA_ADDRESS, a
# hardware address too long for MacAddress after a good one).
def cacheinfo_rt(expires): return struct.pack("<IIiIIIII", 0, 0, expires, 0, 0, 0, 0, 0)
write("decode_route", "view-repeated-attributes", rtmsg() + b"".join([
    attr(1, bytes([10, 1, 0, 0])), attr(1, bytes([10, 2, 0, 0])), u32(4, 3), u32(4, 5), attr(5, bytes([10, 0, 0, 1])),
    attr(5, bytes([10, 0, 0, 2])), attr(12, cacheinfo_rt(500)), attr(12, cacheinfo_rt(0)), attr(9, paths),
    attr(9, rtnexthop(0, 7)), attr(8, u32(2, 1400)), attr(8, u32(8, 1360)), u32(15, 1000), u32(15, 254)]))
def ifaddrmsg(family=2, prefixlen=24, flags=0x80, scope=0, index=3): return struct.pack("<BBBBI", family, prefixlen, flags, scope, index)
write("decode_addr", "view-repeated-attributes", ifaddrmsg() + b"".join([
    attr(2, bytes([10, 0, 0, 1])), attr(1, bytes([10, 0, 0, 9])), attr(2, bytes([10, 0, 0, 9])), s(3, "v0:a"), s(3, "v0:b"),
    attr(6, struct.pack("<IIII", 100, 200, 0, 0)), attr(6, struct.pack("<IIII", 30, 60, 0, 0)), u32(8, 0x200), u32(8, 0x80)]))
def ndmsg(family=2, ifindex=4, state=0x02, flags=0x80): return struct.pack("<BBHiHBB", family, 0, 0, ifindex, state, flags, 1)
write("decode_neigh", "view-repeated-attributes", ndmsg() + b"".join([
    attr(1, bytes([10, 0, 0, 7])), attr(1, bytes([10, 0, 0, 8])), attr(2, bytes([2, 0, 0, 0, 0, 1])), attr(2, bytes(40)),
    attr(3, struct.pack("<IIII", 1, 2, 3, 4)), attr(3, struct.pack("<IIII", 5, 6, 7, 8)), u32(4, 1), u32(4, 2)]))
# A proxy entry (NTF_PROXY, no NUD state): every state filter keeps it, in list() and in the views
# (fuzz_view_dump.hpp's filters); an IPv6 one with a router flag.
write("decode_neigh", "proxy_entry", ndmsg(state=0, flags=0x08) + attr(1, bytes([10, 0, 0, 5])))
write("decode_neigh", "proxy_entry_v6_router", ndmsg(family=10, state=0, flags=0x88) + attr(1, bytes([0x20, 1, 0xd, 0xb8]) + bytes(11) + b"\1"))
# A 70-byte name (no kernel sends one): LinkView's name-pattern filter must match it as list()
# does (it refused names of 64 bytes or more; found by fuzz_view_dump.hpp's "*" filter).
write("decode_link", "view-name-beyond-ifnamsiz", ifinfo(9) + s(IFNAME, "x" * 70))
write("decode_link", "truncated", (ifinfo(2) + s(IFNAME, "eth0") + u32(MTU, 1500) + s(QDISC, "fq_codel"))[:-4])
write("decode_link", "short_header", ifinfo(2)[:8])

# ---- error_from_ack: whole NLMSG_ERROR / NLMSG_DONE messages ----
NLMSG_ERROR, NLMSG_DONE = 2, 3
CAPPED, ACK_TLVS, MULTI = 0x100, 0x200, 0x2


def nlmsg(type_, flags, body):
    body = body + b"\0" * (-len(body) % 4)
    return struct.pack("<IHHII", 16 + len(body), type_, flags, 1234, 77) + body


request = nlmsg(16, 5, ifinfo() + s(IFNAME, "v0") + u32(MTU, 9000))
write("error_from_ack", "ack", nlmsg(NLMSG_ERROR, CAPPED, struct.pack("<i", 0) + request[:16]))
write("error_from_ack", "capped_extack", nlmsg(NLMSG_ERROR, CAPPED | ACK_TLVS,
      struct.pack("<i", -22) + request[:16] + s(1, "MTU too small") + u32(2, 36)))
write("error_from_ack", "uncapped_extack", nlmsg(NLMSG_ERROR, ACK_TLVS,
      struct.pack("<i", -95) + request + s(1, "not supported") + u32(2, 40)))
write("error_from_ack", "missing_type", nlmsg(NLMSG_ERROR, CAPPED | ACK_TLVS,
      struct.pack("<i", -22) + request[:16] + u32(5, 3) + u32(6, 32)))
write("error_from_ack", "done_error", nlmsg(NLMSG_DONE | 0, MULTI | ACK_TLVS, struct.pack("<i", -90) + s(1, "dump too big")))
write("error_from_ack", "short_error", nlmsg(NLMSG_ERROR, 0, struct.pack("<i", -22)))

# ---- parse_address: text ----
for i, text in enumerate(["aa:bb:cc:dd:ee:ff", "AA-BB-CC-DD-EE-FF", "0:1:2:3:4:5", "aa:bb:cc:dd:ee",
                          "aa:bb:cc:dd:ee:ff:", "10.0.0.1", "2001:db8::1", "::ffff:1.2.3.4", "fe80::1%eth0",
                          "eth0", "1234567890123456", "a/b", "..", "1.2.3.4\0junk"]):
    write("parse_address", "seed%02d" % i, text.encode())

# ---- decode_wireguard: [u16 length][genlmsghdr + WGDEVICE_* attributes] ... ----
def genl_body(cmd, attrs): return struct.pack("<BBH", cmd, 1, 0) + attrs
def framed(*bodies): return b"".join(struct.pack("<H", len(b)) + b for b in bodies)
KEY = bytes(range(32))
sa4 = struct.pack("<H", 2) + struct.pack(">H", 51820) + bytes([192, 0, 2, 1]) + b"\0" * 8
sa6 = struct.pack("<H", 10) + struct.pack(">H", 443) + b"\0" * 4 + b"\0" * 15 + b"\1" + b"\0" * 4
def aip(family, addr, cidr): return nest(0, u16(1, family), attr(2, addr), u8(3, cidr))
peer_a = nest(0, attr(1, KEY), attr(2, bytes(32)), attr(4, sa4), u16(5, 25), attr(6, struct.pack("<qq", 1700000000, 5)),
              u64(7, 100), u64(8, 200), u32(10, 1), nest(9, aip(2, bytes([10, 0, 0, 0]), 24)))
dev1 = genl_body(0, u32(1, 7) + s(2, "wg0") + attr(3, KEY) + attr(4, KEY) + u16(6, 51820) + u32(7, 0) + nest(8, peer_a))
dev2 = genl_body(0, s(2, "wg0") + nest(8, nest(0, attr(1, KEY), nest(9, aip(10, b"\xfd" + b"\0" * 15, 64))),
                                     nest(0, attr(1, bytes(31) + b"\1"), attr(4, sa6))))
write("decode_wireguard", "one_message", framed(dev1))
write("decode_wireguard", "split_peer", framed(dev1, dev2))
write("decode_wireguard", "short_key", framed(genl_body(0, attr(3, b"\1\2\3"))))
write("decode_wireguard", "bad_cidr", framed(genl_body(0, nest(8, nest(0, attr(1, KEY), nest(9, aip(2, b"\1\2\3\4", 40)))))))
write("decode_wireguard", "bad_endpoint", framed(genl_body(0, nest(8, nest(0, attr(1, KEY), attr(4, b"\2\0"))))))

# ---- decode_napi: genlmsghdr + NETDEV_A_NAPI_* attributes (one NAPI_GET reply message) ----
# NETDEV_A_NAPI_IFINDEX 1, ID 2, IRQ 3, PID 4, DEFER_HARD_IRQS 5, GRO_FLUSH_TIMEOUT 6,
# IRQ_SUSPEND_TIMEOUT 7, THREADED 8 (include/uapi/linux/netdev.h). The kernel's own replies are
# captured by tests/fuzz/capture_napi_seeds.py.
NAPI_GET = 11
write("decode_napi", "nic_queue_irq", genl_body(NAPI_GET, u32(1, 2) + u32(2, 8193) + u32(3, 57) + u32(5, 2) +
                                                  u32(6, 20000) + u64(7, 0) + u32(8, 0)))
write("decode_napi", "threaded_pid", genl_body(NAPI_GET, u32(2, 8194) + u32(1, 3) + u32(4, 4242) + u32(8, 1)))
write("decode_napi", "before_6_17", genl_body(NAPI_GET, u32(1, 5) + u32(2, 8195)))
write("decode_napi", "short_id", genl_body(NAPI_GET, attr(2, b"\1\2") + u32(1, 5)))
write("decode_napi", "attr_beyond_max", genl_body(NAPI_GET, u32(1, 5) + u32(2, 9) + u32(9, 1) + u32(200, 7)))
write("decode_napi", "header_only", genl_body(NAPI_GET, b""))

# ---- decode_mptcp: genlmsghdr + MPTCP_PM_ATTR_* (a GET_ADDR or GET_LIMITS reply message) ----
# MPTCP_PM_ATTR_ADDR 1 (nest: FAMILY 1 u16, ID 2 u8, ADDR4 3, ADDR6 4, PORT 5 u16, FLAGS 6, IF_IDX 7),
# RCV_ADD_ADDRS 2, SUBFLOWS 3 (include/uapi/linux/mptcp.h), laid out as mptcp_nl_fill_addr does.
GET_ADDR, GET_LIMITS = 3, 6
write("decode_mptcp", "endpoint_v4_dev", genl_body(GET_ADDR, nest(1, u16(1, 2), u8(2, 1), attr(3, b"\x0a\0\0\1"),
                                                                 u32(6, 2), u32(7, 2), flag=True)))
write("decode_mptcp", "endpoint_v6_port", genl_body(GET_ADDR, nest(1, u16(1, 10), u8(2, 20), attr(4, b"\x20\x01\x0d\xb8" + bytes(11) + b"\1"),
                                                                  u16(5, 1234), u32(6, 13), flag=True)))
write("decode_mptcp", "short_address", genl_body(GET_ADDR, nest(1, u16(1, 10), attr(4, b"\x20\x01"), flag=True)))
write("decode_mptcp", "no_nest", genl_body(GET_ADDR, u32(2, 1)))
write("decode_mptcp", "limits", genl_body(GET_LIMITS, u32(2, 4) + u32(3, 3)))
write("decode_mptcp", "header_only", genl_body(GET_LIMITS, b""))

# ---- decode_addrlabel: ifaddrlblmsg + IFAL_* (an RTM_NEWADDRLABEL dump part) ----
# ifaddrlblmsg = family u8, res u8, prefixlen u8, flags u8, index u32, seq u32; IFAL_ADDRESS 1
# (in6_addr), IFAL_LABEL 2 (u32) (include/uapi/linux/if_addrlabel.h), laid out as ip6addrlbl_fill.
def ifal(prefixlen, index=0, seq=0, family=10): return struct.pack("<BBBBII", family, 0, prefixlen, 0, index, seq)
DB8 = b"\x20\x01\x0d\xb8" + bytes(12)
write("decode_addrlabel", "default_loopback", ifal(128, seq=3) + attr(1, bytes(15) + b"\1") + u32(2, 0))
write("decode_addrlabel", "device_entry", ifal(32, index=4, seq=9) + attr(1, DB8) + u32(2, 100))
write("decode_addrlabel", "v4_address", ifal(8, family=2) + attr(1, b"\x0a\0\0\0") + u32(2, 3))
write("decode_addrlabel", "prefix_too_long", ifal(129) + attr(1, DB8) + u32(2, 1))
write("decode_addrlabel", "short_label", ifal(32) + attr(1, DB8) + attr(2, b"\1\0"))
write("decode_addrlabel", "header_only", ifal(0))

# ---- decode_tcp_metrics: genlmsghdr + TCP_METRICS_ATTR_* (a TCP_METRICS_CMD_GET reply) ----
# ADDR_IPV4 1, ADDR_IPV6 2, AGE 3 (u64), TW_TSVAL 4, TW_TS_STAMP 5, VALS 6 (nest: metric + 1),
# FOPEN_MSS 7 (u16), FOPEN_SYN_DROPS 8 (u16), FOPEN_SYN_DROP_TS 9 (u64), FOPEN_COOKIE 10,
# SADDR_IPV4 11, SADDR_IPV6 12 (include/uapi/linux/tcp_metrics.h), as tcp_metrics_fill_info.
TCPM_GET = 1
write("decode_tcp_metrics", "v4_with_source", genl_body(TCPM_GET, attr(1, b"\x0a\0\0\2") + attr(11, b"\x0a\0\0\1") + u64(3, 328)
      + nest(6, u32(6, 232), u32(7, 100), u32(1, 0), u32(2, 0), u32(4, 14))))
write("decode_tcp_metrics", "v6_fastopen", genl_body(TCPM_GET, attr(2, DB8) + attr(12, DB8) + u64(3, 5) + u32(4, 7) + u32(5, 3)
      + u16(7, 1400) + u16(8, 2) + u64(9, 5000) + attr(10, bytes(range(20)))))
write("decode_tcp_metrics", "no_destination", genl_body(TCPM_GET, u64(3, 1)))
write("decode_tcp_metrics", "short_metric", genl_body(TCPM_GET, attr(1, b"\x0a\0\0\2") + nest(6, attr(4, b"\1"))))
write("decode_tcp_metrics", "header_only", genl_body(TCPM_GET, b""))

# ---- decode_token: ifinfomsg (AF_INET6) + IFLA_* with IFLA_PROTINFO { IFLA_INET6_* } ----
# IFLA_IFNAME 3, IFLA_PROTINFO 12 (nest without the flag); IFLA_INET6_FLAGS 1, TOKEN 7 (in6_addr),
# ADDR_GEN_MODE 8, as inet6_fill_ifinfo sends them.
def ifinfo6(index, flags=0x1003): return struct.pack("<BBHiII", 10, 0, 1, index, flags, 0)
write("decode_token", "token_set", ifinfo6(4) + s(3, "v0") + attr(12, u32(1, 0x80000000) + attr(7, bytes(15) + b"\x1a") + u8(8, 0)))
write("decode_token", "no_protinfo", ifinfo6(5) + s(3, "v1"))
write("decode_token", "short_token", ifinfo6(4) + attr(12, attr(7, b"\0\1")))
write("decode_token", "loopback", ifinfo6(1, 0x49) + s(3, "lo") + attr(12, attr(7, bytes(16))))

# ---- decode_ntable: ndtmsg + NDTA_* (an RTM_NEWNEIGHTBL dump part) ----
# NDTA_NAME 1, THRESH1-3 2-4, CONFIG 5 (struct ndt_config, 32 bytes), PARMS 6 (nest: NDTPA_IFINDEX 1,
# REFCNT 2, REACHABLE_TIME 3 u64, ... LOCKTIME 15 u64), STATS 7 (struct ndt_stats, 11 u64), GC_INTERVAL 8
# (include/uapi/linux/neighbour.h), as neightbl_fill_info and neightbl_fill_param_info send them.
ndt = struct.pack("<BBH", 2, 0, 0)
ndt_config = struct.pack("<HHIIIIIII", 4, 336, 2, 1000, 2000, 77, 7, 0, 0)
ndt_stats = struct.pack("<11Q", *range(1, 12))
parms = nest(6, u32(2, 1), u64(3, 28080), u64(4, 30000), u64(5, 1000), u64(6, 60000), u64(7, 5000), u32(8, 101),
             u32(9, 0), u32(10, 3), u32(11, 3), u64(12, 1000), u64(13, 800), u32(14, 64), u64(15, 1000))
write("decode_ntable", "table", ndt + s(1, "arp_cache") + u64(8, 30000) + u32(2, 128) + u32(3, 512) + u32(4, 1024)
      + attr(5, ndt_config) + parms + attr(7, ndt_stats))
write("decode_ntable", "device_parms", struct.pack("<BBH", 10, 0, 0) + s(1, "ndisc_cache") + attr(6, u32(1, 4) + u32(2, 1) + u64(5, 1000)))
write("decode_ntable", "short_config", ndt + s(1, "arp_cache") + attr(5, b"\1\2\3"))
write("decode_ntable", "no_name", ndt + u32(2, 1))
write("decode_ntable", "unterminated_name", ndt + attr(1, b"arp"))

# ---- decode_mroute: rtmsg + RTA_* of a multicast family (an RTM_NEWROUTE of ipmr/ip6mr) ----
# RTA_DST 1, SRC 2, IIF 3, MULTIPATH 9 (rtnexthop: len u16, flags u8, hops u8 = TTL, ifindex s32),
# TABLE 15, MFC_STATS 17 (3 u64), EXPIRES 23 (u64), as mr_fill_mroute fills them.
def rtmsg_mr(family, table, flags=0, length=32): return struct.pack("<BBBBBBBBI", family, length, length, 0, table, 17, 0, 5, flags)
def rtnh(hops, ifindex): return struct.pack("<HBBi", 8, 0, hops, ifindex)
write("decode_mroute", "resolved_v4", rtmsg_mr(128, 253) + u32(15, 253) + attr(2, b"\x0a\0\0\1") + attr(1, b"\xef\1\1\1")
      + u32(3, 2) + attr(9, rtnh(1, 4) + rtnh(3, 6)) + attr(17, struct.pack("<3Q", 7, 700, 1)) + u64(23, 118))
write("decode_mroute", "unresolved_v6", rtmsg_mr(129, 254, 32, 128) + attr(2, bytes(16)) + attr(1, b"\xff\x0e" + bytes(13) + b"\1"))
write("decode_mroute", "nexthop_overrun", rtmsg_mr(128, 253) + attr(9, rtnh(1, 4) + struct.pack("<HBBi", 40, 0, 1, 5)))
write("decode_mroute", "short_stats", rtmsg_mr(128, 253) + attr(17, bytes(16)))

# ---- parse_wg_config: wg config files and UAPI replies (text) ----
K = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
for i, text in enumerate([
        "[Interface]\nPrivateKey = %s\nListenPort = 51820\nFwMark = 0x10\n\n[Peer]\nPublicKey = %s\n"
        "PresharedKey = %s\nAllowedIPs = 10.0.0.0/24, fd00::/64\nEndpoint = [2001:db8::1]:51820\n"
        "PersistentKeepalive = 25\n" % (K, K, K),
        "[Peer]\nAllowedIPs = 10.0.0.0/24\n", "[Interface]\nAddress = 10.0.0.1/24\n", "# only a comment\n",
        "[Peer]\nPublicKey = %s\nEndpoint = 1.2.3.4\n" % K, "[Interface]\nListenPort = 99999\n",
        "[Interface]\nPrivateKey = AAAA\n", "[peer]\npublickey=%s\nallowedips=,,\n" % K,
        "private_key=%s\nlisten_port=1\npublic_key=%s\nendpoint=[::1]:2\nallowed_ip=10.0.0.0/8\n"
        "last_handshake_time_sec=1\nrx_bytes=2\nerrno=0\n\n" % ("00" * 32, "11" * 32),
        "errno=-22\n\n", "public_key=zz\nerrno=0\n\n"]):
    write("parse_wg_config", "seed%02d" % i, text.encode())

# ---- crash reproducers (kept forever) ----
# libFuzzer + UBSan, 60 s: an error of INT_MIN made makeError() negate INT_MIN (undefined).
write("error_from_ack", "crash-errno-int-min", nlmsg(NLMSG_ERROR, CAPPED, struct.pack("<i", -2**31) + request[:16]))

# ---- cli_grammar: the command lines the CLI tests run (tests/cli/*.cpp), one per seed ----
# Each seed is named after its own text (line-<first 12 hex digits of its SHA-256>), so a run
# writes the same files whatever else the tests say: a line added to a test adds one seed, and
# no other seed is renamed or rewritten (numbered names shifted every seed after a new line).
# Generated seeds no longer produced are removed; crash reproducers (crash-*) are kept.
import glob
import hashlib
import re
OBJECTS = r"(?:link|l|address|addr|a|route|r|neigh|n|fdb|rule|ru|nexthop|nh|vlan|wg|ethtool|genl|steer)"
lines = set()
for path in sorted(glob.glob(os.path.join(HERE, "..", "cli", "*.cpp"))):
    with open(path, encoding="utf-8") as f:
        for m in re.finditer(r'"(' + OBJECTS + r' [^"\\]{2,200})"', f.read()):
            lines.add(m.group(1))
grammar_seeds = {"line-" + hashlib.sha256(text.encode()).hexdigest()[:12]: text for text in lines}
grammar_dir = os.path.join(HERE, "corpus", "cli_grammar")
if os.path.isdir(grammar_dir):
    for name in os.listdir(grammar_dir):
        if re.fullmatch(r"test\d+|line-[0-9a-f]{12}", name) and name not in grammar_seeds:
            os.remove(os.path.join(grammar_dir, name))
for name in sorted(grammar_seeds):
    write("cli_grammar", name, grammar_seeds[name].encode())

# ---- batch_reader: whole batch files ----
write("batch_reader", "routes", b"# routes\nroute add 10.1.0.0/16 via 10.0.0.2 dev v0\n\nroute del 10.2.0.0/16\n")
write("batch_reader", "links", b"link add v0 type veth peer name v1\nlink set v0 up mtu 9000\naddr add 10.0.0.1/24 dev v0\n")
write("batch_reader", "crlf", b"link set v0 up\r\nroute add 10.1.0.0/16 dev v0\r\n")
write("batch_reader", "quotes", b"link set v0 alias \"an alias # not a comment\"\nlink set v0 alias 'x\\'y'\n")
write("batch_reader", "no_final_newline", b"neigh add 10.0.0.2 lladdr 02:00:00:00:00:01 dev v0")
write("batch_reader", "nul_bytes", b"link set v0\0 up\n\0\n")
write("batch_reader", "mixed", b"rule add from 10.0.0.0/8 table 100\nnexthop add id 1 via 10.0.0.2 dev v0\n"
      b"fdb add 02:00:00:00:00:01 dev v0 master\nvlan add dev v0 vid 10 pvid untagged\n")

# ---- parse_rt_tables: rt_tables, NUL, rt_protos ----
write("parse_rt_tables", "debian", b"#\n# reserved values\n#\n255\tlocal\n254\tmain\n253\tdefault\n0\tunspec\n#\n"
      b"# local\n#\n#1\tinr.ruhep\n100 mine\n0x10 hex # comment\n\0" + b"2\tkernel\n3 boot\n186 bgp\n0xff max\n")
write("parse_rt_tables", "odd", b"  7\t  spaced  \n4294967295 top\n4294967296 over\n-1 neg\n12\n abc def\n\0300 over\n")

# ---- decode_rule, multicast families: fib_rule_hdr + FRA_* of RTNL_FAMILY_IPMR (128) / IP6MR (129) ----
def frh(family, table=0, action=1, src_len=0): return struct.pack("<BBBBBBBBI", family, 0, src_len, 0, table, 0, 0, action, 0)
# ipmr's default rule as Linux 6.18 reports it: FRA_TABLE, FRA_SUPPRESS_PREFIXLEN ~0, FRA_PROTOCOL, FRA_PRIORITY
write("decode_rule", "ipmr_default", frh(128, 253) + u32(15, 253) + u32(14, 0xFFFFFFFF) + u8(21, 2) + u32(6, 32767))
write("decode_rule", "ip6mr_iif_oif_fwmark", frh(129, 200) + u32(15, 200) + s(3, "d0") + s(17, "d1") + u32(6, 100) +
      u32(10, 0x10) + u32(16, 0xff))
# an address in a multicast rule (the kernel never reports one): decoded as 4 bytes, with a prefix length
write("decode_rule", "ipmr_src_len", frh(128, 5, src_len=8) + attr(2, b"\x0a\0\0\0") + u32(6, 10))
write("decode_rule", "unknown_family", frh(12, 5) + u32(6, 10))

# ---- reply_reader: [op][control length message]... (fuzz_reply_reader.cpp) ----
def chunk(control, message): return bytes([control, len(message)]) + message
ack = nlmsg(NLMSG_ERROR, CAPPED, struct.pack("<i", 0) + request[:16])
einval = nlmsg(NLMSG_ERROR, CAPPED, struct.pack("<i", -22) + request[:16])
done = nlmsg(NLMSG_DONE, MULTI, struct.pack("<i", 0))
write("reply_reader", "execute_ack", bytes([0]) + chunk(0x89, ack))
write("reply_reader", "execute_error", bytes([0]) + chunk(0x89, einval))
write("reply_reader", "execute_foreign_then_ack", bytes([0]) + chunk(0xC9, einval) + chunk(0x89, ack))
write("reply_reader", "dump_done", bytes([1]) + chunk(0x89, done))
write("reply_reader", "batch_acks", bytes([0x33]) + b"".join(chunk(0x89 | (i << 1), ack) for i in range(4)))
write("reply_reader", "batch_error_continue", bytes([0x13]) + chunk(0x89, ack) + chunk(0x8B, einval) + chunk(0x8D, ack))
write("reply_reader", "truncated", bytes([0]) + chunk(0x99, ack[:20]))

# ---- decode_nsid: rtgenmsg + NETNSA_* (an RTM_NEWNSID / RTM_DELNSID message) ----
# NETNSA_NSID 1 (s32), NETNSA_CURRENT_NSID 5 (s32) (include/uapi/linux/net_namespace.h), laid out
# as rtnl_net_fill does; the rtgenmsg is one byte padded to 4.
RTGEN = b"\0\0\0\0"
write("decode_nsid", "nsid", RTGEN + u32(1, 99))
write("decode_nsid", "nsid_current_unassigned", RTGEN + u32(1, 0) + u32(5, 0xffffffff))
write("decode_nsid", "short_nsid", RTGEN + attr(1, b"\1\2"))
write("decode_nsid", "no_nsid", RTGEN + u32(5, 3))
write("decode_nsid", "header_only", b"\0")

# ---- decode_conntrack: nfgenmsg + CTA_* of stop 33's fields (labels, helper, timestamps) ----
# CTA_* numbers from include/uapi/linux/netfilter/nfnetlink_conntrack.h; values big-endian as
# ctnetlink_fill_info writes them (the kernel captures in this directory have none of these).
def be32(t, v): return attr(t, struct.pack(">I", v))
def be64(t, v): return attr(t, struct.pack(">Q", v))
NFGEN4 = struct.pack("<BBH", 2, 0, 0)
ct_tuple = nest(1, nest(1, attr(1, b"\x0a\0\0\1"), attr(2, b"\x0a\0\0\2"), flag=True),
                nest(2, u8(1, 6), be16(2, 40000), be16(3, 80), flag=True), flag=True)
write("decode_conntrack", "labels_helper_timestamp", NFGEN4 + ct_tuple + be32(3, 0x18e) + be32(7, 120) +
      nest(5, s(1, "ftp"), flag=True) + nest(20, be64(1, 1700000000123456789), be64(2, 1700000000987654321), flag=True) +
      attr(22, bytes([0x01, 0, 0, 0x80]) + bytes(12)) + be32(12, 7))
write("decode_conntrack", "short_timestamp", NFGEN4 + ct_tuple + nest(20, attr(1, b"\1\2\3\4"), flag=True))
write("decode_conntrack", "empty_labels_helper_without_name", NFGEN4 + ct_tuple + attr(22) + nest(5, u32(2, 1), flag=True))
write("decode_conntrack", "helper_name_unterminated", NFGEN4 + nest(5, attr(1, b"ftp"), flag=True) + be32(8, 1))

# ---- decode_stats: if_stats_msg + IFLA_STATS_* (an RTM_NEWSTATS message) ----
# IFLA_STATS_LINK_64 1, _LINK_XSTATS 2, _XSTATS_SLAVE 3, _OFFLOAD_XSTATS 4 { CPU_HIT 1, HW_S_INFO 2
# { L3_STATS 3 { REQUEST 1, USED 2 } }, L3_STATS 3 }, _AF_SPEC 5 { AF_MPLS 28 { MPLS_STATS_LINK 1 } };
# LINK_XSTATS_TYPE_BRIDGE 1 { MCAST 2, STP 4 }, _BOND 2 { BOND_XSTATS_3AD 1 { BOND_3AD_STAT_* 0.. } }
# (include/uapi/linux/if_link.h, if_bridge.h, mpls.h), laid out as rtnl_fill_statsinfo does.
def ifstats(index, mask): return struct.pack("<BBHII", 0, 0, 0, index, mask)
def q(*values): return b"".join(struct.pack("<Q", v) for v in values)
write("decode_stats", "link64", ifstats(1, 1) + attr(1, q(*range(25))))
write("decode_stats", "offload_l3_on", ifstats(3, 8) + nest(4, nest(2, nest(3, u8(1, 1) + u8(2, 0), flag=True), flag=True) + attr(3, q(*range(9))), flag=True))
write("decode_stats", "bridge_port", ifstats(4, 6) + nest(2, nest(1, attr(2, q(*range(36))), flag=True), flag=True) + nest(3, nest(1, attr(4, q(*range(6))) + attr(2, q(*range(36))), flag=True), flag=True))
write("decode_stats", "bond_3ad", ifstats(5, 2) + nest(2, nest(2, nest(1, u64(0, 4) + u64(1, 5) + u64(8, 1)))))
write("decode_stats", "mpls", ifstats(2, 16) + nest(5, nest(28, attr(1, q(*range(9))))))
write("decode_stats", "bad_flag", ifstats(3, 8) + nest(4, nest(2, nest(3, u8(1, 7)))))
write("decode_stats", "header_only", ifstats(1, 0)[:8])
