#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_decode_tfilter (tests/fuzz/corpus/decode_tfilter/): the bodies
(tcmsg + TCA_*) of RTM_NEWTFILTER messages the kernel sends for filters `tc` adds, and of one
RTM_NEWACTION (an action table). Run as root; it works in a network namespace of its own
(unshare) and adds whatever classifiers and actions the running kernel has:
    sudo python3 tests/fuzz/capture_tfilter_seeds.py"""
import os
import socket
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "decode_tfilter")
RTM_GETTFILTER, RTM_GETACTION = 46, 50
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300

FILTERS = [
    "dev v0 ingress protocol ip pref 10 u32 match ip dst 10.0.0.1/32 match ip sport 80 0xffff action mirred egress redirect dev v1",
    "dev v0 egress protocol all pref 20 chain 3 u32 match u32 0x800 0xffff at 12 classid 1:5",
    "dev v0 ingress pref 30 matchall skip_sw action gact drop",
    "dev v0 ingress protocol ip pref 40 flower ip_proto tcp dst_ip 10.1.0.0/16 dst_port 443 action skbedit mark 7 action vlan push id 100",
    "dev v0 ingress protocol ip pref 41 flower src_mac 02:00:00:00:00:01 action tunnel_key set src_ip 192.0.2.1 dst_ip 192.0.2.2 id 42",
    "dev v0 ingress pref 50 matchall action police rate 1mbit burst 10k conform-exceed drop/pass action csum ip4h tcp",
    "dev v0 ingress pref 60 basic classid 1:6 action goto chain 4",
    "dev v0 ingress pref 70 handle 5 fw classid 1:5",
]


# Filters whose classifier or actions a kernel may lack (the host's 6.18 has neither cls_flower
# nor act_mpls/act_pedit): their seeds are tc's own requests, read from strace, which tc sends
# whether the kernel takes them or not. A request is a dump's shape without the kernel's
# additions (stats, times, refcounts); the fuzzer adds those.
REQUESTS = [
    "dev v0 ingress protocol mpls_uc pref 80 flower mpls_label 1048575 mpls_tc 7 mpls_bos 1 mpls_ttl 255 action drop",
    "dev v0 ingress protocol mpls_uc pref 81 flower mpls lse depth 1 label 0 tc 0 bos 0 ttl 0 "
    "lse depth 2 label 1048575 tc 7 bos 1 ttl 255 action drop",
    "dev v0 ingress protocol ip pref 82 matchall action mpls push protocol mpls_uc label 20 tc 3 bos 1 ttl 64 "
    "action mpls pop protocol ip action mpls modify label 7 ttl 9 action mpls dec_ttl",
    "dev v0 ingress pref 83 u32 match u32 0 0 action pedit munge offset 12 u32 set 0x12345678 munge ip tos set 0x10 "
    "munge offset 13 u8 invert",
    "dev v0 ingress pref 84 u32 match u32 0 0 action pedit ex munge ip6 src set 2001:db8::1 "
    "munge eth dst set 02:00:00:00:00:01 munge tcp dport add 1 munge ip ttl decrement pipe",
]


def request_body(args):
    """The body (tcmsg + attributes) of the RTM_NEWTFILTER tc sends for `tc filter add ARGS`."""
    out = subprocess.run(["strace", "-xx", "-s", "65536", "-e", "trace=sendmsg", "-e", "write=all", "-o", "/dev/stdout",
                          "tc", "filter", "add"] + args.split(), capture_output=True, text=True).stdout
    buffers, current = [], None
    for line in out.splitlines():
        if line.startswith(" | ") and len(line) > 60:
            offset = int(line[3:8], 16)
            if offset == 0:
                current = bytearray()
                buffers.append(current)
            current += bytes.fromhex(line[10:58].replace(" ", ""))
    for b in buffers:
        if len(b) >= 16 and struct.unpack_from("<H", b, 4)[0] == 44:  # RTM_NEWTFILTER
            return bytes(b[16:struct.unpack_from("<I", b, 0)[0]])
    return None


def dump(msg_type, body):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    s.bind((0, 0))
    s.send(struct.pack("<IHHII", 16 + len(body), msg_type, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + body)
    out = []
    while True:
        data = s.recv(1 << 20)
        at = 0
        while at < len(data):
            length, typ = struct.unpack_from("<IH", data, at)
            if typ == 3 or typ == 2:  # NLMSG_DONE, NLMSG_ERROR
                return out
            out.append(data[at + 16:at + length])
            at += (length + 3) & ~3


def main():
    if os.environ.get("IN_NETNS") != "1":
        os.execvp("unshare", ["unshare", "-n", "env", "IN_NETNS=1", sys.executable] + sys.argv)
    sh = lambda c: subprocess.run(c, shell=True, capture_output=True, text=True)
    sh("ip link add v0 type veth peer name v1 && ip link set v0 up && ip link set v1 up && tc qdisc add dev v0 clsact")
    for f in FILTERS:
        r = sh("tc filter add " + f)
        if r.returncode:
            print("skipped (kernel lacks it):", f, r.stderr.strip())
    os.makedirs(OUT, exist_ok=True)
    ifindex = socket.if_nametoindex("v0")
    count = 0
    for parent in (0xFFFFFFF2, 0xFFFFFFF3):
        for body in dump(RTM_GETTFILTER, struct.pack("<BBHiIII", 0, 0, 0, ifindex, 0, parent, 0)):
            count += 1
            with open(os.path.join(OUT, "filter-%02d" % count), "wb") as f:
                f.write(body)
    sh("tc actions add action mirred egress mirror dev v1 index 9")
    kind = b"mirred\0"
    kattr = struct.pack("<HH", 4 + len(kind), 1) + kind + b"\0" * (-len(kind) % 4)
    one = struct.pack("<HH", 4 + len(kattr), 1) + kattr
    tab = struct.pack("<HH", 4 + len(one), 1) + one
    for body in dump(RTM_GETACTION, struct.pack("<BBH", 0, 0, 0) + tab):
        with open(os.path.join(OUT, "actions-mirred"), "wb") as f:
            f.write(body)
    requests = 0
    for args in REQUESTS:
        body = request_body(args)
        if body is None:
            print("no request captured (strace missing?):", args)
            continue
        requests += 1
        with open(os.path.join(OUT, "request-%02d" % requests), "wb") as f:
            f.write(body)
    print("wrote", count, "filter seeds,", requests, "request seeds and the action table to", OUT)


main()
