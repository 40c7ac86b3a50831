"""The installed wheel: where it is imported from, its stubs, its import time, the Info objects."""
import os
import subprocess
import sys

import fastlink


def test_imported_from_the_installed_wheel():
    # python/tests/run installs the built wheel into a fresh venv: the module must come from
    # there, not from the source tree.
    assert "site-packages" in fastlink.__file__, fastlink.__file__


def test_typed_stubs_are_shipped():
    package = os.path.dirname(fastlink.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    with open(os.path.join(package, "_fastlink.pyi")) as stub:
        text = stub.read()
    for needle in ("class LinkInfo", "class Netlink", "def list(self, kind: str | None = None", "class EventStream",
                   "class Mirror", "def apply(", "class NexthopInfo", "class QdiscInfo", "class ChannelsInfo"):
        assert needle in text, needle
    with open(os.path.join(package, "__init__.pyi")) as stub:
        text = stub.read()
    assert "class Error(OSError):" in text and "class EventOverflow(Error):" in text


def test_import_takes_at_most_50ms():
    # CPU time (the import's own work), not wall time: CI runs the suite beside the sanitizer
    # build's compilation, where a process also waits for a core it does not get.
    code = "import time; t = time.process_time(); import fastlink; print(time.process_time() - t)"
    best = min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
               for _ in range(3))
    assert best <= 0.050, f"import fastlink took {best * 1000:.1f} ms"


def test_info_objects_are_plain_values():
    a = fastlink.LinkInfo(name="v0", mtu=1400)
    assert repr(a) == "LinkInfo(name='v0', mtu=1400)"
    assert a == fastlink.LinkInfo(name="v0", mtu=1400) and a != fastlink.LinkInfo(name="v0")
    a.mtu = None
    assert a.mtu is None
    r = fastlink.RouteInfo(dst="10.0.0.0/8", paths=[fastlink.RoutePath(gateway="10.1.1.1", weight=3)])
    assert r.paths[0].gateway == "10.1.1.1" and r.paths[0].weight == 3
    assert fastlink.AddrInfo(address="2001:db8::1/64", scope="link").scope == "link"


GIL_PROBE = r"""
import os, sys, threading, fastlink
fifo = sys.argv[1]
failure = []
def blocked():
    # Opening a FIFO as the namespace blocks in open(2) until a writer comes: a call that waits.
    # (The socket is opened on first use: links.get, where setns refuses the FIFO with EINVAL.)
    try:
        fastlink.Netlink(netns=fifo).links.get("lo")
    except fastlink.Error as e:
        failure.append(e.errno)
t = threading.Thread(target=blocked)
t.start()
# This thread can only get here and open the writer end while the other one waits inside
# fastlink if that wait released the GIL; otherwise the process hangs (and the test times out).
while True:
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError:
        pass
t.join()
os.close(fd)
print(failure)
"""


def test_gil_is_released_while_waiting(tmp_path):
    fifo = tmp_path / "netns-fifo"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-c", GIL_PROBE, str(fifo)], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[22]"  # a FIFO is no namespace: EINVAL from setns, after the wait
