"""Scenario "listing": find the 3 bridges among ~10,000 netdevs, and full dumps.

Also decides fastlink's default extension mask: the kind-filtered dump is measured with no
IFLA_EXT_MASK, with RTEXT_FILTER_SKIP_STATS and with RTEXT_FILTER_VF (what iproute2 sends).
Every variant's answer is compared with `ip -j link show type bridge` / the device count.
"""
import subprocess
import time

from .common import PYTHON, BenchError, Outcome, Row, Target, fmt_ratio, fmt_time, ip_json, ratio, table

NAME = "listing"
TITLE = "Listing 3 bridges among ~10,000 netdevs"
BRIDGES = ["flbr0", "flbr1", "flbr2"]

# (case, peer, scope, how): how = ("fl", mode) | ("raw", kind, mask) | ("py", mode) | ("ip", argv)
VARIANTS = [
    ("bridges", "ip -d link show type bridge", "process", ("ip", ["ip", "-d", "link", "show", "type", "bridge"])),
    ("bridges", "fastlink list, kind filter (default, no ext mask)", "in-process", ("fl", "kind")),
    ("bridges", "fastlink list, kind filter (default, no ext mask)", "process", ("flp", "kind")),
    ("bridges", "fastlink list, kind filter + kernelSkipStats", "in-process", ("fl", "kind-skipstats")),
    ("bridges", "fastlink list all, filtered in user space", "in-process", ("fl", "userfilter")),
    ("bridges", "raw, kind filter, no ext mask", "in-process", ("raw", "bridge", "none")),
    ("bridges", "raw, kind filter + RTEXT_FILTER_SKIP_STATS", "in-process", ("raw", "bridge", "skipstats")),
    ("bridges", "raw, kind filter + RTEXT_FILTER_VF", "in-process", ("raw", "bridge", "vf")),
    ("bridges", "pyroute2 get_links(), filtered in Python", "in-process", ("py", "userfilter")),
    ("bridges", "pyroute2 link('dump', kind='bridge')", "in-process", ("py", "kind")),
    ("full dump", "ip link show", "process", ("ip", ["ip", "link", "show"])),
    ("full dump", "ip -d link show", "process", ("ip", ["ip", "-d", "link", "show"])),
    ("full dump", "fastlink list all", "in-process", ("fl", "all")),
    ("full dump", "fastlink list all, stats decoded", "in-process", ("fl", "all-stats")),
    ("full dump", "raw, no ext mask", "in-process", ("raw", "-", "none")),
    ("full dump", "raw, RTEXT_FILTER_SKIP_STATS", "in-process", ("raw", "-", "skipstats")),
    ("full dump", "raw, RTEXT_FILTER_VF", "in-process", ("raw", "-", "vf")),
]


BRIDGE_HOWS = [v[3] for v in VARIANTS if v[0] == "bridges"]


def pairs(ctx):
    return ctx.sizes_for(NAME, [50 if ctx.smoke else 5000])[0]


def run(ctx):
    p = pairs(ctx)
    ctx.fastlink("setup-veth", "l", str(p), "0", "down")
    ctx.fastlink("setup-bridges", "flbr", str(len(BRIDGES)))
    total = len(ip_json("link", "show"))
    expect = sorted(l["ifname"] for l in ip_json("link", "show", "type", "bridge"))
    if expect != BRIDGES:
        raise BenchError(f"setup: bridges are {expect}")
    ctx.log(f"{total} netdevs, bridges {expect}")
    fl, raw = ctx.tool("fastlink_bench"), ctx.tool("raw_floor")
    rows = {}
    def reps_of(how):
        if how[0] == "py":  # tens of seconds per run at 10k devices: one run each
            return 1
        return ctx.reps(11) if how in BRIDGE_HOWS else ctx.reps(5)

    # Round-robin over the variants, so that a load change on the machine hits all of them alike.
    for rep in range(max(reps_of(v[3]) for v in VARIANTS)):
        for case, peer, scope, how in VARIANTS:
            if rep >= reps_of(how):
                continue
            found, nbytes = None, 0
            if how[0] == "ip":
                t0 = time.perf_counter()
                text = subprocess.run(how[1], check=True, capture_output=True, text=True).stdout
                seconds = time.perf_counter() - t0
                heads = [line.split(":")[1].strip().split("@")[0] for line in text.splitlines()
                         if line and line[0].isdigit()]
                found = sorted(heads) if case == "bridges" else [str(len(heads))]
            else:
                argv = {"fl": lambda: [fl, "list", how[1]], "flp": lambda: [fl, "list", how[1]],
                        "raw": lambda: [raw, "list", how[1], how[2]],
                        "py": lambda: [PYTHON, ctx.pyroute2_peer, "list", how[1]]}[how[0]]()
                wall, res = ctx.run_tool(argv)
                seconds = wall if how[0] == "flp" else res["seconds"]
                found, nbytes = res["found"], res.get("bytes", 0)
                found = sorted(found) if case == "bridges" else found[:1]
            want = BRIDGES if case == "bridges" else [str(total)]
            if found != want:
                raise BenchError(f"{peer}: found {found[:5]}, expected {want}")
            if how == ("fl", "all-stats") and res["found"][1] != str(total):
                raise BenchError("fastlink list all-stats: statistics were not decoded")
            row = rows.setdefault((case, peer, scope), Row(NAME, case, total, peer, scope, [], nbytes))
            row.samples.append(seconds)
    for (case, peer, scope), r in rows.items():
        ctx.log(f"{case:9s} {peer:52s} {scope:10s} {fmt_time(r.median):>9s}  {r.bytes:>9d} B  ({len(r.samples)} runs)")
    ctx.cleanup()
    return summarize(ctx, list(rows.values()))


def summarize(ctx, rows_list):
    """Targets and the Markdown section, from measured rows (also from a CSV)."""
    out = Outcome(rows=rows_list)
    rows = {(r.case, r.peer, r.scope): r for r in rows_list}
    total = rows_list[0].n
    p = (total - len(BRIDGES) - 1) // 2
    get = {(r.case, r.peer, r.scope): r.median for r in out.rows}
    fk = get[("bridges", "fastlink list, kind filter (default, no ext mask)", "in-process")]
    ipb = get[("bridges", "ip -d link show type bridge", "process")]
    py = min(get[("bridges", "pyroute2 get_links(), filtered in Python", "in-process")],
             get[("bridges", "pyroute2 link('dump', kind='bridge')", "in-process")])
    out.targets.append(Target(f"List 3 bridges among {total}: fastlink vs ip -d link show type bridge",
                              ratio(ipb, fk), 5, "fastlink in-process (parsed into LinkInfo) vs the ip process"))
    out.targets.append(Target(f"List 3 bridges among {total}: fastlink vs pyroute2", ratio(py, fk), 500,
                              "both in-process, the faster pyroute2 variant"))
    fkp = get[("bridges", "fastlink list, kind filter (default, no ext mask)", "process")]
    lines = []
    for case, peer, scope, _ in VARIANTS:
        r = rows[(case, peer, scope)]
        ref = fk if case == "bridges" else get[("full dump", "fastlink list all", "in-process")]
        lines.append([case, peer, scope, fmt_time(r.median), fmt_ratio(ratio(r.median, ref)),
                      f"{r.bytes:,}" if r.bytes else "—", len(r.samples)])
    skip = get[("bridges", "raw, kind filter + RTEXT_FILTER_SKIP_STATS", "in-process")]
    none = get[("bridges", "raw, kind filter, no ext mask", "in-process")]
    vf = get[("bridges", "raw, kind filter + RTEXT_FILTER_VF", "in-process")]
    flskip = get[("bridges", "fastlink list, kind filter + kernelSkipStats", "in-process")]
    verdict = "hurts" if skip > none * 1.1 else "helps" if skip < none / 1.1 else "makes no measurable difference"
    out.markdown = (
        f"{total} netdevs ({p} veth pairs, {len(BRIDGES)} bridges, lo). Ratio column: time / fastlink's "
        f"(kind filter, in-process) for the bridge rows, / fastlink list all for the full dumps. "
        f"Bytes: received from the kernel (fastlink's `Netlink::counters().bytesReceived`, raw's own count).\n\n"
        + table(["case", "peer", "scope", "median", "ratio", "bytes received", "runs"], lines)
        + f"\nExtension mask, kind-filtered dump: no mask {fmt_time(none)}, SKIP_STATS {fmt_time(skip)} "
          f"({skip / none:.1f}x), VF {fmt_time(vf)} ({vf / none:.1f}x); through fastlink: default "
          f"{fmt_time(fk)}, kernelSkipStats {fmt_time(flskip)} ({flskip / fk:.1f}x). "
          f"On this kernel SKIP_STATS **{verdict}** for a kind-filtered dump. "
          f"Whole fastlink process for the bridge listing: {fmt_time(fkp)} ({fmt_ratio(ratio(ipb, fkp))} faster "
          f"than the ip process).\n")
    out.extmask = {"none": none, "skipstats": skip, "vf": vf, "verdict": verdict}
    return out
