"""Scenario "latency": per-operation latency, exec vs library (Google Benchmark, µs/op).

bench/latency_bench does the work: create one bridge, set one veth up; peers std::system("ip"),
popen("ip"), libnl3, fastlink. Library calls throw and exec peers check the exit status on any
failure; afterwards `ip -j link show` must show the namespace empty again.
"""
import json
import os
import subprocess

from .common import BenchError, Outcome, Row, Target, fmt_ratio, ip_json, ratio, table

NAME = "latency"
TITLE = "Per-operation latency: exec vs library"
PEERS = ["system", "popen", "libnl", "fastlink"]
LABEL = {"system": 'std::system("ip ...")', "popen": 'popen("ip ...")', "libnl": "libnl3", "fastlink": "fastlink"}
OPS = {"Create": "create a bridge (ip link add NAME type bridge)", "SetUp": "set a veth up (ip link set dev NAME up)"}


def run(ctx):
    out = Outcome()
    exe = ctx.tool("latency_bench")
    if not exe:
        out.markdown = "latency_bench was not built (needs libbenchmark-dev and libnl-route-3-dev).\n"
        return out
    reps = ctx.reps(7)
    env = dict(os.environ, FL_BENCH_LAT_ITERS="8" if ctx.smoke else "400")
    # Random interleaving: repetitions of all benchmarks are shuffled, so that load changes on the
    # machine (and leftover kernel work of the previous benchmark) hit every peer alike.
    p = subprocess.run([exe, f"--benchmark_repetitions={reps}", "--benchmark_format=json",
                        "--benchmark_enable_random_interleaving=true"],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise BenchError(f"latency_bench failed: {p.stderr.strip()[-500:]}")
    left = [l["ifname"] for l in ip_json("link", "show")]
    if left != ["lo"]:
        raise BenchError(f"latency_bench left devices behind: {left[:5]}")
    samples, cpu = {}, {}
    for b in json.loads(p.stdout)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        op, peer = b["run_name"].split("/")[:2]
        scale = {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1.0}[b["time_unit"]]
        samples.setdefault((op, peer), []).append(b["real_time"] * scale)
        cpu.setdefault((op, peer), []).append(b["cpu_time"] * scale)
    rows = [Row(NAME, op, 1, LABEL[peer], "per op", s, cpu=cpu[(op, peer)]) for (op, peer), s in samples.items()]
    return summarize(ctx, rows)


def summarize(ctx, rows):
    """Targets and the Markdown section, from measured rows (also from a CSV)."""
    out = Outcome(rows=rows)
    reps = max(len(r.samples) for r in rows)
    med = {(r.case, r.peer): r.median for r in out.rows}
    cmed = {(r.case, r.peer): r.cpu_median for r in out.rows}
    lines = []
    for op, what in OPS.items():
        fl = med[(op, "fastlink")]
        out.targets.append(Target(f"{op}: fastlink vs std::system(\"ip\")", ratio(med[(op, LABEL['system'])], fl), 8,
                                  "µs per operation"))
        out.targets.append(Target(f"{op}: fastlink no more than 5% slower than libnl3",
                                  ratio(med[(op, 'libnl3')], fl), 1 / 1.05, "µs per operation (ratio = libnl3 / fastlink)",
                                  ratio(cmed[(op, 'libnl3')], cmed[(op, 'fastlink')])))
        for peer in PEERS:
            m = med[(op, LABEL[peer])]
            c = cmed[(op, LABEL[peer])]
            c = f"{c * 1e6:.1f}" if c is not None and peer in ("libnl", "fastlink") else "—"
            lines.append([what, LABEL[peer], f"{m * 1e6:.1f}", fmt_ratio(ratio(m, fl)), c, reps])
        ctx.log(f"{op}: " + ", ".join(f"{LABEL[p]} {med[(op, LABEL[p])] * 1e6:.1f} µs" for p in PEERS))
    out.markdown = ("Median over repetitions of the mean µs/op (Google Benchmark, real time). The library peers keep "
                    "their socket open across operations; the exec peers run fewer iterations. CPU µs/op: the "
                    "calling thread's CPU time, which for a library includes the kernel's work on the request "
                    "(rtnetlink runs it inside sendmsg); for the exec peers it would miss the child, so it is "
                    "not shown.\n\n"
                    + table(["operation", "peer", "µs/op", "vs fastlink", "CPU µs/op", "repetitions"], lines))
    return out
