"""Shared machinery of the scenarios: the scratch network namespace, running and timing the
peers, `ip -j` checks, rows for the CSV and the Markdown table, and targets (met / missed).

A scenario module (see bench/scenarios/README.md) defines NAME, TITLE and run(ctx) -> Outcome.
"""
import ctypes
import json
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
PYTHON = "/usr/bin/python3"  # Debian's, with python3-pyroute2 and python3-matplotlib


class BenchError(RuntimeError):
    """A wrong answer or a failed tool: the run fails, whatever its speed."""


def fresh_netns():
    """Moves this process (and every child it starts from now on) into a new, empty network
    namespace. The previous scratch namespace is freed by the kernel once nothing holds it, also
    when this process dies (Ctrl-C, crash): nothing is ever created in the host's namespace."""
    if _libc.unshare(CLONE_NEWNET) != 0:
        raise BenchError("unshare(CLONE_NEWNET): " + os.strerror(ctypes.get_errno()))
    links = ip_json("link", "show")
    if [l["ifname"] for l in links] != ["lo"]:
        raise BenchError("the new namespace is not empty: refusing to go on")


def ip_json(*args):
    out = subprocess.run(["ip", "-j", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


@dataclass
class Row:
    scenario: str
    case: str        # what was done, e.g. "mtu down" or "list bridges"
    n: int           # scale (interfaces, pairs, netdevs)
    peer: str        # who did it, e.g. "ip -batch", "fastlink batch"
    scope: str       # "process" (whole process, wall clock) or "in-process" (library call + socket open)
    samples: list    # seconds, one per repetition
    bytes: int = 0   # bytes received from the kernel (when the peer counts them)
    note: str = ""
    cpu: list = field(default_factory=list)  # CPU seconds (user+sys) of the whole process(es), scope "process"

    @property
    def cpu_median(self):
        return statistics.median(self.cpu) if self.cpu else None

    @property
    def median(self):
        return statistics.median(self.samples)


@dataclass
class Target:
    text: str        # e.g. "MTU x2048, fastlink batch vs per-process ip"
    ratio: float     # measured: how many times faster fastlink is (peer / fastlink)
    want: float      # required ratio (>= want is met)
    how: str = ""    # what was compared
    cpu_ratio: float = None  # the same comparison in CPU time (user+sys), when measured

    @property
    def met(self):
        return self.ratio >= self.want


@dataclass
class Outcome:
    rows: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    markdown: str = ""  # the scenario's section of the generated part of docs/BENCHMARKS.md
    plot: object = None  # optional callable(ax) drawing the scenario's scaling curve


class Context:
    def __init__(self, build_dir, quick=False, smoke=False, verbose=True, sizes=None):
        self.build_dir = build_dir
        self.sizes = sizes or {}  # --n SCENARIO[.VARIANT]=N,N,...: overrides a scenario's defaults
        self.quick = quick
        self.smoke = smoke
        self.verbose = verbose
        self.bench_dir = os.path.join(build_dir, "bench")
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.pyroute2_peer = os.path.join(here, "peers", "pyroute2_peer.py")
        cli = os.path.join(build_dir, "cli", "fastlink")
        self.cli = cli if os.access(cli, os.X_OK) else None
        self._mtu = 0
        self.cpu = 0.0  # CPU seconds of the processes run so far (see _spawn)
        self.tmp = tempfile.mkdtemp(prefix="fl-bench-")

    def sizes_for(self, key, default):
        """The N values of a scenario (or of one of its variants, e.g. "mtu.up"), unless --n overrides them."""
        return self.sizes.get(key, default)

    def tool(self, name):
        path = os.path.join(self.bench_dir, name)
        return path if os.access(path, os.X_OK) else None

    def reps(self, normal, slow=False):
        """Repetitions: 1 in smoke mode, fewer for slow peers and in quick mode."""
        if self.smoke:
            return 1
        if slow:
            return 1 if self.quick else max(1, normal)
        return max(3, normal // 2) if self.quick else normal

    def next_mtu(self):
        """A different MTU for every measured run, so each run really changes every device
        (the kernel skips an unchanged MTU). Stays >= 1280 so IPv6 stays enabled."""
        self._mtu += 1
        return 1300 + self._mtu % 190

    def log(self, *parts):
        if self.verbose:
            print("   ", *parts, flush=True)

    def _spawn(self, argv, capture):
        """Runs argv; returns (wall seconds, CPU seconds user+sys of the process, rc, stdout, stderr).
        The CPU time comes from wait4's rusage: unlike the wall clock it does not grow when the
        machine is busy with other work, so it is reported next to it."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, stdout=out if capture else subprocess.DEVNULL, stderr=err)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            self.cpu += ru.ru_utime + ru.ru_stime
            return wall, ru.ru_utime + ru.ru_stime, p.returncode, out.read().decode(), err.read().decode()

    def run_tool(self, argv, check=True):
        """Runs one measuring program; returns (wall seconds, its JSON result line)."""
        wall, cpu, rc, stdout, stderr = self._spawn(argv, True)
        if check and rc != 0:
            raise BenchError(f"{' '.join(argv)} failed ({rc}): {stderr.strip()[-500:]}")
        result = None
        for line in stdout.splitlines():
            if line.startswith("{"):
                result = json.loads(line)
        if result is not None:
            result["cpu"] = cpu
        return wall, result

    def run_wall(self, argv, stdin=None):
        """Runs a command; returns its wall time (whole process). Its CPU time is added to self.cpu."""
        wall, cpu, rc, _, stderr = self._spawn(argv, False)
        if rc != 0:
            raise BenchError(f"{' '.join(argv)} failed ({rc}): {stderr.strip()[-500:]}")
        return wall

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def fastlink(self, *args):
        wall, res = self.run_tool([self.tool("fastlink_bench"), *args])
        return res

    def cleanup(self):
        """Deletes every device but lo, in one `del group` request (synchronous)."""
        self.fastlink("cleanup")
        left = [l["ifname"] for l in ip_json("link", "show")]
        if left != ["lo"]:
            raise BenchError(f"cleanup left devices behind: {left[:5]}")

    def settle(self, timeout=20.0):
        """Waits until IPv6 autoconfiguration stops adding routes (devices just set up)."""
        last, stable, t0 = -1, 0, time.time()
        while time.time() - t0 < timeout:
            count = len(subprocess.run(["ip", "-6", "route", "show", "table", "all"], capture_output=True,
                                       text=True).stdout.splitlines())
            stable = stable + 1 if count == last else 0
            if stable >= 3:
                return count
            last = count
            time.sleep(0.5)
        return last


def ratio(slow, fast):
    if slow is None or fast is None:
        return None  # not measured (e.g. CPU time in a CSV reconstructed from a log)
    return slow / fast if fast > 0 else float("inf")


def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:.0f}x" if r >= 100 else f"{r:.1f}x" if r >= 10 else f"{r:.2f}x"


def table(headers, lines):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out) + "\n"
