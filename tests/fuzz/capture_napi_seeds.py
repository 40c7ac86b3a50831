#!/usr/bin/env python3
"""Captures the kernel's own NETDEV_CMD_NAPI_GET replies as seeds of fuzz_decode_napi.

Run inside a throwaway namespace (it creates a veth with two receive queues and GRO on, which
gives each queue a NAPI instance, reads them, then switches the device to threaded NAPI, which
adds each instance's kernel thread pid, and reads them again), over a raw generic netlink socket:

    scripts/sandbox bash -c 'mount -t sysfs fastlink-sysfs /sys && python3 tests/fuzz/capture_napi_seeds.py'

(the sandbox's own sysfs shows its namespace's devices: the script reads and writes /sys/class/net/e0).

Each message body (after the 16-byte netlink header) becomes tests/fuzz/corpus/decode_napi/
kernel_napi_<state>_<n>. make_seeds.py writes the hand-made seeds next to these.
"""
import os
import socket
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
NETLINK_GENERIC, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 16, 16, 3, 1, 2
NLM_F_REQUEST, NLM_F_DUMP, NLMSG_DONE, NLMSG_ERROR = 1, 0x300, 3, 2
NETDEV_CMD_NAPI_GET, NETDEV_A_NAPI_IFINDEX = 11, 1


def attr(t, payload):
    data = struct.pack("<HH", 4 + len(payload), t) + payload
    return data + b"\0" * (-len(data) % 4)


def attrs(data):
    out, at = {}, 0
    while at + 4 <= len(data):
        length, t = struct.unpack_from("<HH", data, at)
        out[t & 0x3FFF] = data[at + 4:at + length]
        at += (length + 3) & ~3
    return out


def request(sock, msg_type, flags, cmd, body):
    payload = struct.pack("<BBH", cmd, 1, 0) + body
    sock.send(struct.pack("<IHHII", 16 + len(payload), msg_type, NLM_F_REQUEST | flags, 1, 0) + payload)
    bodies = []
    while True:
        data = sock.recv(65536)
        at = 0
        while at + 16 <= len(data):
            length, t = struct.unpack_from("<IH", data, at)
            if t == NLMSG_ERROR:
                err = struct.unpack_from("<i", data, at + 16)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return bodies
            if t == NLMSG_DONE:
                return bodies
            bodies.append(data[at + 16:at + length])
            at += (length + 3) & ~3
        if not flags & NLM_F_DUMP:
            return bodies


def write(name, data):
    d = os.path.join(HERE, "corpus", "decode_napi")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    subprocess.run("ip link add e0 numrxqueues 2 numtxqueues 2 type veth peer name e1 numrxqueues 2 numtxqueues 2"
                   " && ip link set e0 up && ip link set e1 up && ethtool -K e0 gro on >/dev/null", shell=True, check=True)
    ifindex = int(open("/sys/class/net/e0/ifindex").read())
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    family = request(sock, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0"))
    family_id = struct.unpack("<H", attrs(family[0][4:])[CTRL_ATTR_FAMILY_ID][:2])[0]
    for state, threaded in (("plain", "0"), ("threaded", "1")):
        with open("/sys/class/net/e0/threaded", "w") as f:
            f.write(threaded)
        bodies = request(sock, family_id, NLM_F_DUMP, NETDEV_CMD_NAPI_GET, attr(NETDEV_A_NAPI_IFINDEX, struct.pack("<I", ifindex)))
        for i, body in enumerate(bodies):
            write(f"kernel_napi_{state}_{i}", body)
        print(f"{state}: {len(bodies)} NAPI instances")
    subprocess.run("ip link del e0", shell=True, check=True)


if __name__ == "__main__":
    main()
