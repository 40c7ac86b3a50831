"""Scenario "creation": create N veth pairs.

Every measured run starts from an empty namespace, is checked with `ip -j -d link show type
veth` afterwards, and the devices are then deleted with one `del group` request.
"""
from .common import PYTHON, BenchError, Outcome, Row, Target, fmt_ratio, fmt_time, ip_json, ratio, table

NAME = "creation"
TITLE = "Creating N veth pairs"
PREFIX = "c"
ORDER = [
    ("ip (one process per pair)", "process"),
    ("ip -batch", "process"),
    ("raw floor (libmnl, pipelined)", "process"),
    ("fastlink batch", "process"),
    ("pyroute2", "in-process"),
    ("libnl3", "in-process"),
    ("raw floor (libmnl, pipelined)", "in-process"),
    ("fastlink batch", "in-process"),
]


def sizes(ctx):
    return ctx.sizes_for(NAME, [8] if ctx.smoke else [1000] if ctx.quick else [1000, 5000])


def verify(pairs):
    links = ip_json("-d", "link", "show", "type", "veth")
    names = {l["ifname"] for l in links if l.get("linkinfo", {}).get("info_kind") == "veth"}
    want = {f"{PREFIX}{i}" for i in range(2 * pairs)}
    if names != want:
        raise BenchError(f"creation of {pairs} pairs: {len(want - names)} missing, {len(names - want)} extra")
    peers = {l["ifname"]: l.get("link") for l in links}
    if any(peers.get(f"{PREFIX}{2 * i}") != f"{PREFIX}{2 * i + 1}" for i in range(pairs)):
        raise BenchError("creation: a veth has the wrong peer")


def get_cpu(rows, peer, n):
    for r in rows:
        if r.peer == peer and r.scope == "process" and r.n == n and r.cpu:
            return fmt_time(r.cpu_median)
    return "—"


def run(ctx):
    fl, raw, libnl = ctx.tool("fastlink_bench"), ctx.tool("raw_floor"), ctx.tool("libnl_peer")
    rows = {}
    for pairs in sizes(ctx):
        def add(peer, scope, s, cpu=None):
            row = rows.setdefault((peer, scope, pairs), Row(NAME, "create veth", pairs, peer, scope, []))
            row.samples.append(s)
            if cpu is not None:
                row.cpu.append(cpu)

        def per_process():
            cpu0 = ctx.cpu
            wall = sum(ctx.run_wall(
                ["ip", "link", "add", f"{PREFIX}{2 * i}", "type", "veth", "peer", "name", f"{PREFIX}{2 * i + 1}"])
                for i in range(pairs))
            add("ip (one process per pair)", "process", wall, ctx.cpu - cpu0)

        def ip_batch():
            f = ctx.write("create.batch", "".join(f"link add {PREFIX}{2 * i} type veth peer name {PREFIX}{2 * i + 1}\n"
                                                  for i in range(pairs)))
            cpu0 = ctx.cpu
            add("ip -batch", "process", ctx.run_wall(["ip", "-batch", f]), ctx.cpu - cpu0)

        def library(peer, argv, both=False):
            def go():
                wall, res = ctx.run_tool(argv)
                add(peer, "in-process", res["seconds"])
                if both:
                    add(peer, "process", wall, res["cpu"])
            return go

        slow = pairs >= 5000
        peers = [(per_process, ctx.reps(2, slow=True) if not slow else 1), (ip_batch, ctx.reps(3)),
                 (library("raw floor (libmnl, pipelined)", [raw, "create-veth", PREFIX, str(pairs)], True), ctx.reps(3)),
                 (library("fastlink batch", [fl, "create-veth", PREFIX, str(pairs)], True), ctx.reps(3)),
                 (library("pyroute2", [PYTHON, ctx.pyroute2_peer, "create-veth", PREFIX, str(pairs)]),
                  1 if slow else ctx.reps(2, slow=True))]
        if libnl:
            peers.append((library("libnl3", [libnl, "create-veth", PREFIX, str(pairs)]),
                          1 if slow else ctx.reps(2, slow=True)))
        # Round-robin over the peers, so that a load change on the machine hits all of them alike.
        for rep in range(max(reps for _, reps in peers)):
            for fn, reps in peers:
                if rep < reps:
                    fn()
                    verify(pairs)
                    ctx.cleanup()
        for (peer, scope, n), r in rows.items():
            if n == pairs:
                ctx.log(f"create n={n:5d} {peer:32s} {scope:10s} {fmt_time(r.median):>9s}  ({len(r.samples)} runs)")
    return summarize(ctx, list(rows.values()))


def summarize(ctx, rows):
    """Targets, the Markdown section and the plot, from measured rows (also from a CSV)."""
    out = Outcome(rows=rows)
    ns = sorted({r.n for r in rows})
    get = {(r.peer, r.scope, r.n): r.median for r in out.rows}
    for n in ns:
        cpu = {r.peer: r.cpu_median for r in out.rows if r.n == n and r.cpu}
        out.targets.append(Target(f"Create {n} veth pairs: fastlink batch within 1.1x of ip -batch", ratio(
            get[("ip -batch", "process", n)], get[("fastlink batch", "process", n)]), 1 / 1.1,
            "whole processes (ratio = ip -batch / fastlink)", ratio(cpu["ip -batch"], cpu["fastlink batch"])))
    lines = []
    for peer, scope in ORDER:
        cells = []
        for n in ns:
            r, ref = get.get((peer, scope, n)), get.get(("fastlink batch", scope, n))
            cells.append("—" if r is None else fmt_time(r) + ("" if peer == "fastlink batch" or not ref
                                                              else f" ({fmt_ratio(ratio(r, ref))})"))
        if any(c != "—" for c in cells):
            lines.append([peer, scope, *cells])
    cpu_lines = []
    for peer, scope in ORDER:
        if scope == "process":
            cells = [get_cpu(out.rows, peer, n) for n in ns]
            cpu_lines.append([peer, *cells])
    out.markdown = ("Median; in parentheses: that time / fastlink batch's in the same scope. The slow peers ran "
                    "fewer times (1 run of per-process ip, pyroute2 and libnl3 at 5000 pairs, 2 at 1000).\n\n"
                    + table(["peer", "scope", *[f"{n} pairs" for n in ns]], lines)
                    + "\nCPU time (user + sys) of the whole process(es):\n\n"
                    + table(["peer", *[f"{n} pairs" for n in ns]], cpu_lines))

    def plot(ax):
        for peer, scope in ORDER:
            pts = sorted((r.n, r.median) for r in out.rows if r.peer == peer and r.scope == scope)
            if len(pts) >= 2:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], "-o", label=f"{peer} [{scope}]", markersize=3)
        ax.set_xlabel("veth pairs")
        ax.set_ylabel("seconds (median)")
        ax.set_title("Creating N veth pairs")
    out.plot = plot
    return out
