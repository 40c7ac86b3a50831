"""Fixtures of the Python binding's suite (docs/testing.md, "Python binding").

Every test works in a network namespace this suite creates and removes (`ip netns add`), checked
with `ip -j` as the independent oracle. Run it as root inside scripts/sandbox (python/tests/run
does), so a namespace left behind by a crash dies with the sandbox.
"""
import json
import os
import subprocess

import pytest


def ip(ns, *args, check=True):
    """Runs `ip -n NS ARGS` and returns its stdout."""
    done = subprocess.run(["ip", "-n", ns, *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"ip -n {ns} {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def ip_json(ns, *args):
    """`ip -n NS -j ARGS` parsed (an empty list when ip prints nothing)."""
    out = ip(ns, "-j", *args)
    return json.loads(out) if out.strip() else []


@pytest.fixture(scope="session", autouse=True)
def need_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces): run python/tests/run, which uses scripts/sandbox")


@pytest.fixture(scope="module")
def ns():
    """One namespace per test module (cheaper than one per test); tests clean up what they add."""
    name = f"fastlink-py-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)
    yield name
    subprocess.run(["ip", "netns", "del", name], check=True)


@pytest.fixture
def nl(ns):
    import fastlink

    with fastlink.Netlink(netns=ns) as netlink:
        yield netlink


@pytest.fixture
def veth(ns):
    """A veth pair pv0/pv1 (up), removed after the test."""
    ip(ns, "link", "add", "pv0", "type", "veth", "peer", "name", "pv1")
    ip(ns, "link", "set", "pv0", "up")
    ip(ns, "link", "set", "pv1", "up")
    yield "pv0"
    ip(ns, "link", "del", "pv0", check=False)
