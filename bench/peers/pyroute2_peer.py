#!/usr/bin/python3
"""The pyroute2 peer: the same work done the way a pyroute2 user does it.

    pyroute2_peer.py mtu PREFIX COUNT MTU        IPRoute().link("set", index=..., mtu=...) loop
    pyroute2_peer.py create-veth PREFIX PAIRS    IPRoute().link("add", kind="veth", peer=...) loop
    pyroute2_peer.py list userfilter|kind        get_links() filtered in Python, or
                                                 link("dump", kind="bridge") (pyroute2's own filter)
Prints one JSON line like the C++ peers. The time includes opening the socket (IPRoute()),
not importing pyroute2. Indexes are resolved before the clock starts.
"""
import json
import socket
import sys
import time

from pyroute2 import IPRoute


def report(seconds, ops, failed=0, found=()):
    print(json.dumps({"seconds": seconds, "ops": ops, "failed": failed, "bytes": 0, "found": list(found)}))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "mtu" and len(argv) == 5:
        prefix, count, mtu = argv[2], int(argv[3]), int(argv[4])
        indexes = [socket.if_nametoindex(f"{prefix}{i}") for i in range(count)]
        t0 = time.perf_counter()
        with IPRoute() as ipr:
            for index in indexes:
                ipr.link("set", index=index, mtu=mtu)
        report(time.perf_counter() - t0, count)
        return 0
    if cmd == "create-veth" and len(argv) == 4:
        prefix, pairs = argv[2], int(argv[3])
        t0 = time.perf_counter()
        with IPRoute() as ipr:
            for i in range(pairs):
                ipr.link("add", ifname=f"{prefix}{2 * i}", kind="veth", peer=f"{prefix}{2 * i + 1}")
        report(time.perf_counter() - t0, pairs)
        return 0
    if cmd == "list" and len(argv) == 3:
        mode = argv[2]
        t0 = time.perf_counter()
        with IPRoute() as ipr:
            if mode == "userfilter":
                links = [l for l in ipr.get_links() if l.get_nested("IFLA_LINKINFO", "IFLA_INFO_KIND") == "bridge"]
            else:
                links = list(ipr.link("dump", kind="bridge"))
            found = [l.get_attr("IFLA_IFNAME") for l in links]
        report(time.perf_counter() - t0, len(found), 0, found)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
