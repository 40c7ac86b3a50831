"""One measured job, done the way a user of each Python library does it (bench/python/run).

    peer.py fastlink mtu PREFIX COUNT MTU [stop|continue]   MTU of PREFIX0..PREFIX{COUNT-1}
    peer.py fastlink list                              the bridges among every netdev
    peer.py fastlink|pyroute2 get NAME CALLS           one device, CALLS times: seconds per call
    peer.py fastlink|pyroute2 routes DEV COUNT TABLE   COUNT /32 routes via DEV into TABLE
    peer.py fastlink routes DEV COUNT TABLE continue   the same, on_error="continue" (pipelined)
    peer.py fastlink routes DEV COUNT TABLE stop-wait  the same, on_error="stop", window=1: one request
                                                       per round trip (the default before it pipelined)
    peer.py fastlink routes-stream DEV COUNT TABLE     the same, streamed: nl.run(generator)
    peer.py pyroute2 mtu-batch PREFIX COUNT MTU        pyroute2's IPBatch: 500 requests per sendto
    peer.py pyroute2 routes-batch DEV COUNT TABLE      the same for the routes

fastlink: one Batch and Netlink.run for mtu and routes (stop at the first failure, like
`fastlink -batch`), links.list(kind="bridge"), links.get(NAME). pyroute2: its fastest public way
(IPRoute route/link calls with indexes resolved before the clock); its mtu and list jobs are
bench/peers/pyroute2_peer.py's (`mtu`, `list kind`), shared with bench/run. Prints one JSON line: seconds (socket opening
included, imports not), cpu_seconds (user + system CPU of the job; per call for `get`), ops, found
(a listing's names), growth_kib (peak RSS at the end minus
the peak once the library was imported: what the job itself cost); `get` adds cpu_seconds, the
process's CPU time per call (wall time on a loaded machine is mostly waiting for a core);
fastlink `routes` adds queued_bytes_per_request (resident memory the filled Batch added, per route).
"""
import json
import os
import resource
import socket
import struct
import sys
import time


def rss_bytes():
    """The resident set now (/proc/self/statm), for what a queued Batch holds."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def fastlink_job(cmd, args):
    import fastlink

    if cmd == "mtu":
        prefix, count, mtu = args[0], int(args[1]), int(args[2])
        on_error = args[3] if len(args) > 3 else "stop"
        t0 = time.perf_counter()
        with fastlink.Netlink() as nl:
            batch = fastlink.Batch()
            changes = fastlink.LinkInfo(mtu=mtu)
            for i in range(count):
                batch.add(fastlink.LinkRequests.set(f"{prefix}{i}", changes))
            nl.run(batch, on_error=on_error).raise_for_error()
        return time.perf_counter() - t0, count, []
    if cmd == "list":
        t0 = time.perf_counter()
        with fastlink.Netlink() as nl:
            found = [l.name for l in nl.links.list(kind="bridge")]
        return time.perf_counter() - t0, len(found), found
    if cmd == "get":
        name, calls = args[0], int(args[1])
        with fastlink.Netlink() as nl:
            links = nl.links
            links.get(name)
            t0, cpu0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                links.get(name)
            return (time.perf_counter() - t0) / calls, calls, [], (time.process_time() - cpu0) / calls
    if cmd == "routes":
        dev, count, table = args[0], int(args[1]), int(args[2])
        mode = args[3] if len(args) > 3 else "stop"
        options = {"on_error": "stop", "window": 1} if mode == "stop-wait" else {"on_error": mode}
        index = socket.if_nametoindex(dev)
        t0 = time.perf_counter()
        with fastlink.Netlink() as nl:
            batch = fastlink.Batch()
            before = rss_bytes()
            for i in range(count):
                route = fastlink.RouteInfo(dst=f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}/32", dev=index, table=table)
                batch.add(fastlink.RouteRequests.add(route))
            queued = rss_bytes() - before
            nl.run(batch, **options).raise_for_error()
        return time.perf_counter() - t0, count, [], None, queued
    if cmd == "routes-stream":
        dev, count, table = args[0], int(args[1]), int(args[2])
        index = socket.if_nametoindex(dev)
        t0 = time.perf_counter()
        with fastlink.Netlink() as nl:
            requests = (fastlink.RouteRequests.add(fastlink.RouteInfo(
                dst=f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}/32", dev=index, table=table)) for i in range(count))
            nl.run(requests).raise_for_error()
        return time.perf_counter() - t0, count, []
    raise SystemExit(__doc__)


def pyroute2_batched(count, build, chunk=500):
    """pyroute2's fastest way for many changes: IPBatch compiles CHUNK requests into one buffer,
    IPRoute's socket sends it in one sendto, and the ACKs (every request asks for one) are read
    back before the next chunk; a refusal raises like IPRoute's own calls. Returns seconds."""
    from pyroute2 import IPBatch, IPRoute

    t0 = time.perf_counter()
    with IPRoute() as ipr:
        for start in range(0, count, chunk):
            batch = IPBatch()
            for i in range(start, min(count, start + chunk)):
                build(batch, i)
            ipr.sendto(bytes(batch.batch), (0, 0))
            waiting = min(count, start + chunk) - start
            while waiting:
                data = ipr.recv(1 << 20)
                offset = 0
                while offset < len(data):
                    length, kind = struct.unpack_from("=IH", data, offset)
                    if kind == 2:  # NLMSG_ERROR: an ACK (error 0) or a refusal
                        error = struct.unpack_from("=i", data, offset + 16)[0]
                        if error:
                            raise OSError(-error, os.strerror(-error))
                        waiting -= 1
                    offset += (length + 3) & ~3
    return time.perf_counter() - t0


def pyroute2_job(cmd, args):
    from pyroute2 import IPRoute

    if cmd == "mtu-batch":
        prefix, count, mtu = args[0], int(args[1]), int(args[2])
        indexes = [socket.if_nametoindex(f"{prefix}{i}") for i in range(count)]
        return pyroute2_batched(count, lambda b, i: b.link("set", index=indexes[i], mtu=mtu)), count, []
    if cmd == "routes-batch":
        dev, count, table = args[0], int(args[1]), int(args[2])
        index = socket.if_nametoindex(dev)
        return pyroute2_batched(count, lambda b, i: b.route(
            "add", dst=f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}/32", oif=index, table=table)), count, []

    if cmd == "get":
        name, calls = args[0], int(args[1])
        index = socket.if_nametoindex(name)
        with IPRoute() as ipr:
            ipr.link("get", index=index)
            t0, cpu0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                ipr.link("get", index=index)
            return (time.perf_counter() - t0) / calls, calls, [], (time.process_time() - cpu0) / calls
    if cmd == "routes":
        dev, count, table = args[0], int(args[1]), int(args[2])
        index = socket.if_nametoindex(dev)
        t0 = time.perf_counter()
        with IPRoute() as ipr:
            for i in range(count):
                ipr.route("add", dst=f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}/32", oif=index, table=table)
        return time.perf_counter() - t0, count, []
    raise SystemExit(__doc__)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    __import__(argv[1])
    imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    job = {"fastlink": fastlink_job, "pyroute2": pyroute2_job}[argv[1]]
    cpu0 = time.process_time()
    seconds, ops, found, *extra = job(argv[2], argv[3:])
    cpu = time.process_time() - cpu0
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - imported
    # cpu_seconds: the process's user + system CPU over the job (the kernel's work for each request
    # is done in the sending process); `get` gives it per call instead.
    line = {"seconds": seconds, "ops": ops, "found": found, "growth_kib": growth, "cpu_seconds": cpu}
    if extra and extra[0] is not None:
        line["cpu_seconds"] = extra[0]
    if len(extra) > 1:  # `routes`: bytes of RSS the queued Batch added, per route
        line["queued_bytes_per_request"] = round(extra[1] / ops, 1)
    print(json.dumps(line))


if __name__ == "__main__":
    main(sys.argv)
