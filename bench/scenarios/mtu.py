"""Scenario "mtu": change the MTU of N veth interfaces (interface groups).

Devices administratively down at N = 128 .. 8192, and the devices-up variant at smaller N,
where every MTU change makes the kernel walk the IPv6 route table (cost grows as N^2).
Every measured run sets a new MTU and is checked with `ip -j link show` afterwards.
"""
from .common import PYTHON, BenchError, Outcome, Row, Target, fmt_ratio, fmt_time, ip_json, ratio, table

NAME = "mtu"
TITLE = "MTU of N interfaces (interface groups)"
GROUP = 7
PREFIX = "m"

# (peer, scope) pairs in table order; ratios are taken against fastlink batch of the same scope.
ORDER = [
    ("ip (one process per interface)", "process"),
    ("ip -batch", "process"),
    ("fastlink -batch (CLI)", "process"),
    ("fastlink -force -batch (CLI)", "process"),
    ("raw floor (libmnl, pipelined)", "process"),
    ("fastlink batch", "process"),
    ("fastlink group request", "process"),
    ("pyroute2", "in-process"),
    ("libnl3", "in-process"),
    ("fastlink stop-and-wait", "in-process"),
    ("raw floor (libmnl, pipelined)", "in-process"),
    ("fastlink batch", "in-process"),
    ("fastlink group request", "in-process"),
]


def sizes(ctx, up):
    if ctx.smoke:
        default = [16]
    elif up:
        default = [128, 512] if ctx.quick else [128, 512, 2048]
    else:
        default = [128, 512, 2048] if ctx.quick else [128, 512, 2048, 8192]
    return ctx.sizes_for("mtu.up" if up else "mtu.down", default)


def verify(n, mtu):
    wrong = [l["ifname"] for l in ip_json("link", "show")
             if l["ifname"].startswith(PREFIX) and l.get("mtu") != mtu]
    seen = sum(1 for l in ip_json("link", "show") if l.get("group") == str(GROUP))
    if wrong or seen != n:
        raise BenchError(f"mtu {mtu}: {len(wrong)} devices wrong (e.g. {wrong[:3]}), {seen}/{n} devices present")


def measure_size(ctx, n, up):
    rows = {}
    case = "mtu up" if up else "mtu down"
    ctx.fastlink("setup-veth", PREFIX, str(n // 2), str(GROUP), "up" if up else "down")
    if up:
        routes = ctx.settle()
        ctx.log(f"devices up, {routes} IPv6 routes")
    fl, raw, libnl = ctx.tool("fastlink_bench"), ctx.tool("raw_floor"), ctx.tool("libnl_peer")
    names = [f"{PREFIX}{i}" for i in range(n)]

    def add(peer, scope, seconds, bytes_=0, cpu=None):
        row = rows.setdefault((peer, scope), Row(NAME, case, n, peer, scope, [], bytes_))
        row.samples.append(seconds)
        if cpu is not None:
            row.cpu.append(cpu)

    def per_process(mtu):
        total, cpu0 = 0.0, ctx.cpu
        for name in names:
            total += ctx.run_wall(["ip", "link", "set", "dev", name, "mtu", str(mtu)])
        add("ip (one process per interface)", "process", total, cpu=ctx.cpu - cpu0)

    def ip_batch(mtu):
        f = ctx.write("mtu.batch", "".join(f"link set dev {name} mtu {mtu}\n" for name in names))
        cpu0 = ctx.cpu
        add("ip -batch", "process", ctx.run_wall(["ip", "-batch", f]), cpu=ctx.cpu - cpu0)

    def cli_batch(force):
        # Without -force the CLI stops at the first error like ip, so it sends one request at a
        # time; -force lets it pipeline (OnError::Continue).
        def go(mtu):
            f = ctx.write("mtu.batch", "".join(f"link set dev {name} mtu {mtu}\n" for name in names))
            cpu0 = ctx.cpu
            argv = [ctx.cli, "-force", "-batch", f] if force else [ctx.cli, "-batch", f]
            add(f"fastlink {'-force ' if force else ''}-batch (CLI)", "process", ctx.run_wall(argv), cpu=ctx.cpu - cpu0)
        return go

    def library(peer, argv, both=False):
        def go(mtu):
            wall, res = ctx.run_tool([*argv(mtu)])
            add(peer, "in-process", res["seconds"], res.get("bytes", 0))
            if both:
                add(peer, "process", wall, res.get("bytes", 0), cpu=res["cpu"])
        return go

    peers = []
    slow = n >= 2048
    if not up or n <= 512:
        peers.append((per_process, ctx.reps(1 if slow else 3, slow=True)))
    peers.append((ip_batch, ctx.reps(3 if up else 5)))
    if ctx.cli and not up:
        peers.append((cli_batch(False), ctx.reps(5)))
        peers.append((cli_batch(True), ctx.reps(5)))
    peers.append((library("raw floor (libmnl, pipelined)", lambda m: [raw, "mtu", PREFIX, str(n), str(m)], True),
                  ctx.reps(7)))
    peers.append((library("fastlink batch", lambda m: [fl, "mtu", "batch", PREFIX, str(n), str(m), str(GROUP)], True),
                  ctx.reps(7)))
    peers.append((library("fastlink group request",
                          lambda m: [fl, "mtu", "group", PREFIX, str(n), str(m), str(GROUP)], True), ctx.reps(7)))
    peers.append((library("pyroute2", lambda m: [PYTHON, ctx.pyroute2_peer, "mtu", PREFIX, str(n), str(m)]),
                  ctx.reps(1 if up and slow else 3, slow=slow)))
    if not up:
        if libnl:
            peers.append((library("libnl3", lambda m: [libnl, "mtu", PREFIX, str(n), str(m)]), ctx.reps(5)))
        peers.append((library("fastlink stop-and-wait",
                              lambda m: [fl, "mtu", "stopwait", PREFIX, str(n), str(m), str(GROUP)]), ctx.reps(5)))
    # Round-robin over the peers, so that a load change on the machine hits all of them alike.
    for rep in range(max(reps for _, reps in peers)):
        for fn, reps in peers:
            if rep < reps:
                mtu = ctx.next_mtu()
                fn(mtu)
                verify(n, mtu)
    ctx.cleanup()
    for (peer, scope), row in rows.items():
        ctx.log(f"{case} n={n:5d} {peer:32s} {scope:10s} {fmt_time(row.median):>9s}  ({len(row.samples)} runs)")
    return list(rows.values())


def section(rows, case, ns, title):
    get = {(r.peer, r.scope, r.n): r for r in rows if r.case == case}
    lines = []
    for peer, scope in ORDER:
        if not any((peer, scope, n) in get for n in ns):
            continue
        cells = []
        for n in ns:
            r, ref = get.get((peer, scope, n)), get.get(("fastlink batch", scope, n))
            if not r:
                cells.append("—")
                continue
            cell = fmt_time(r.median)
            if ref and peer != "fastlink batch":
                cell += f" ({fmt_ratio(ratio(r.median, ref.median))})"
            cells.append(cell + ("" if len(r.samples) > 1 else " ¹"))
        lines.append([peer, scope, *cells])
    return (f"**{title}** — median; in parentheses: that time divided by fastlink batch's in the same "
            f"scope (>1 = fastlink faster). ¹ one run only.\n\n"
            + table(["peer", "scope", *[f"N={n}" for n in ns]], lines))


def cpu_section(rows, case, ns):
    get = {(r.peer, r.n): r for r in rows if r.case == case and r.scope == "process" and r.cpu}
    lines = []
    for peer, scope in ORDER:
        if scope != "process" or not any((peer, n) in get for n in ns):
            continue
        cells = []
        for n in ns:
            r, ref = get.get((peer, n)), get.get(("fastlink batch", n))
            cells.append("—" if not r else fmt_time(r.cpu_median) + (
                f" ({fmt_ratio(ratio(r.cpu_median, ref.cpu_median))})" if ref and peer != "fastlink batch" else ""))
        lines.append([peer, *cells])
    if not lines:
        return ""
    return ("**CPU time (user + sys) of the whole process(es)**, devices down — the wall clock above includes "
            "waiting for a CPU on a shared machine, this does not.\n\n"
            + table(["peer", *[f"N={n}" for n in ns]], lines))


def run(ctx):
    rows = []
    for up in (False, True):
        for n in sizes(ctx, up):
            rows += measure_size(ctx, n, up)
    return summarize(ctx, rows)


def summarize(ctx, rows):
    """Targets, the Markdown section and the plot, from measured rows (also from a CSV)."""
    out = Outcome(rows=rows)
    down_ns = sorted({r.n for r in out.rows if r.case == "mtu down"})
    up_ns = sorted({r.n for r in out.rows if r.case == "mtu up"})
    get = {(r.case, r.peer, r.scope, r.n): r.median for r in out.rows}
    for n in down_ns:
        if n < 2048 and n != max(down_ns):
            continue
        m = lambda peer, scope: get.get(("mtu down", peer, scope, n))
        cpu = {r.peer: r.cpu_median for r in out.rows if r.case == "mtu down" and r.n == n and r.cpu}
        IP, RAW, FB, GR, CLI = ("ip (one process per interface)", "raw floor (libmnl, pipelined)", "fastlink batch",
                                "fastlink group request", "fastlink -force -batch (CLI)")

        def vs(text, slow, fast, want, how):
            """A target on the wall clock; the same ratio in CPU time is shown next to it."""
            c = ratio(cpu[slow], cpu[fast]) if slow in cpu and fast in cpu else None
            out.targets.append(Target(text, ratio(m(slow, "process"), m(fast, "process")), want, how, c))

        if m(IP, "process"):
            vs(f"MTU x{n}: fastlink batch ≥ 150x faster than per-process ip", IP, FB, 150, "whole processes")
        vs(f"MTU x{n}: fastlink batch ≥ 2.5x faster than ip -batch", "ip -batch", FB, 2.5, "whole processes")
        out.targets.append(Target(f"MTU x{n}: fastlink batch ≥ 25x faster than pyroute2",
                                  ratio(m("pyroute2", "in-process"), m(FB, "in-process")), 25,
                                  "in-process, socket open included"))
        if m(CLI, "process"):
            vs(f"MTU x{n}: fastlink -force -batch CLI within 1.2x of the raw floor", RAW, CLI, 1 / 1.2,
               "whole processes (ratio = raw / fastlink)")
        vs(f"MTU x{n}: fastlink batch within 1.2x of the raw floor", RAW, FB, 1 / 1.2,
           "whole processes, fastlink_bench vs raw_floor (ratio = raw / fastlink)"
           + ("" if m(CLI, "process") else "; the fastlink CLI was not built"))
        if m(IP, "process") and (n >= 2048 or ctx.smoke):
            vs(f"MTU x{n}: fastlink group request ≥ 200x faster than per-process ip", IP, GR, 200, "whole processes")
    md = section(out.rows, "mtu down", down_ns, "Devices administratively down")
    md += "\n" + cpu_section(out.rows, "mtu down", down_ns)
    if up_ns:
        md += "\n" + section(out.rows, "mtu up", up_ns, "Devices up (IPv6 route walk per MTU change)")
    if not ctx.cli:
        md += "\nThe fastlink CLI (`build/cli/fastlink`) was not built when this ran: its rows are missing.\n"
    out.markdown = md

    def plot(ax):
        # One colour per peer; solid = devices down, dashed = devices up.
        peers = list(dict.fromkeys(p for p, _ in ORDER))
        colour = {p: f"C{i % 10}" for i, p in enumerate(peers)}
        for case, style in (("mtu down", "-o"), ("mtu up", "--s")):
            for peer, scope in ORDER:
                pts = sorted((r.n, r.median) for r in out.rows if r.case == case and r.peer == peer and r.scope == scope)
                if len(pts) < 2 or (scope == "process" and peer not in ("ip (one process per interface)", "ip -batch",
                                                                         "fastlink -force -batch (CLI)")):
                    continue
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], style, label=f"{peer} [{case.split()[1]}]",
                          markersize=3, color=colour[peer])
        ax.set_xlabel("interfaces")
        ax.set_ylabel("seconds (median)")
        ax.set_title("MTU of N veth interfaces")
    out.plot = plot
    return out
