#!/usr/bin/env python3
"""Seeds for fuzz_decode_conntrack: the bodies (nfgenmsg + attributes) of the entries a real
kernel dumps. Run as root inside scripts/sandbox (it creates entries with `conntrack -I` in the
sandbox's own namespace):  scripts/sandbox tests/fuzz/capture_conntrack_seeds.py"""
import os, socket, struct, subprocess

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "decode_conntrack")
for args in ["-p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 -t 100 -u SEEN_REPLY --mark 5",
             "-p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 1000 --dport 80 -t 100 --state ESTABLISHED -u ASSURED,SEEN_REPLY --zone 3",
             "-p icmp -s 10.0.0.3 -d 10.0.0.2 --icmp-type 8 --icmp-code 0 --icmp-id 77 -t 100",
             "-p udp -s fd00::1 -d fd00::2 --sport 1 --dport 2 -t 100"]:
    subprocess.run(["conntrack", "-I"] + args.split(), check=True, stderr=subprocess.DEVNULL)
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
# IPCTNL_MSG_CT_GET | CTNETLINK << 8, NLM_F_REQUEST | NLM_F_DUMP, nfgenmsg AF_UNSPEC
s.send(struct.pack("=IHHII", 20, 0x0101, 0x301, 1, 0) + bytes(4))
os.makedirs(OUT, exist_ok=True)
n, done = 0, False
while not done:
    data = s.recv(65536)
    off = 0
    while off < len(data):
        length, mtype = struct.unpack_from("=IH", data, off)
        if mtype in (2, 3):  # NLMSG_ERROR, NLMSG_DONE
            done = True
            break
        with open(os.path.join(OUT, "kernel_conntrack_%d" % n), "wb") as f:
            f.write(data[off + 16:off + length])
        n += 1
        off += (length + 3) & ~3
print("wrote", n, "seeds to", OUT)
