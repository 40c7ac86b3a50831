"""WireGuard from Python, checked with `wg show DEV dump`. This host has no wireguard module
(FACTS), so the device is wireguard-go's (the userspace backend, the same WireGuardApi that
picks the kernel backend for kernel devices; those are tested by the library's VM suite)."""
import os
import shutil
import socket
import subprocess
import time

import pytest

import fastlink

pytestmark = pytest.mark.skipif(not hasattr(fastlink, "WgDevice"), reason="wheel built without libsodium")


def accepts(path):
    """Whether a UNIX socket listens at path."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
            return True
        except OSError:
            return False


@pytest.fixture
def wg_device(ns):
    if not shutil.which("wireguard-go"):
        pytest.skip("wireguard-go is not installed (scripts/setup installs it)")
    # /var/run/wireguard is shared by every namespace (FACTS): a name of our own.
    name = f"wgpy{os.getpid() % 100000}"
    env = dict(os.environ, WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD="1")
    process = subprocess.Popen(["ip", "netns", "exec", ns, "wireguard-go", "-f", name], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = f"/var/run/wireguard/{name}.sock"
    # Ready when the socket accepts a connection: wireguard-go makes the file (bind) before it
    # listens, and a test that came in between would find its UAPI refusing (as in
    # tests/support/wireguard_go.hpp). 20 s: a Go daemon starting on a loaded CI machine.
    deadline = time.monotonic() + 20
    while not accepts(path) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    try:
        assert accepts(path), "wireguard-go did not start"
        yield name
    finally:
        process.terminate()
        process.wait(10)


def wg_dump(ns, name):
    out = subprocess.run(["ip", "netns", "exec", ns, "wg", "show", name, "dump"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t") for line in out.strip().splitlines()]


def test_configure_a_device_and_read_it_back(nl, ns, wg_device):
    private = fastlink.generate_private_key()
    peer_public = fastlink.public_key(fastlink.generate_private_key())
    device = fastlink.WgDevice(name=wg_device, private_key=private, listen_port=51900, peers=[
        fastlink.WgPeer(public_key=peer_public, endpoint="192.0.2.1:51820", allowed_ips=["10.0.0.2/32"],
                        persistent_keepalive=25)])
    assert private not in repr(device) and "'<hidden>'" in repr(device)
    nl.wireguard.set(device)
    dump = wg_dump(ns, wg_device)
    assert dump[0][:3] == [private, fastlink.public_key(private), "51900"]
    assert dump[1][0] == peer_public and dump[1][2] == "192.0.2.1:51820" and dump[1][3] == "10.0.0.2/32"
    got = nl.wireguard.get(wg_device)
    assert (got.public_key, got.listen_port) == (fastlink.public_key(private), 51900)
    assert [(p.public_key, p.endpoint, p.allowed_ips, p.persistent_keepalive) for p in got.peers] == \
        [(peer_public, "192.0.2.1:51820", ["10.0.0.2/32"], 25)]
    assert got.peers[0].last_handshake is None
    assert nl.wireguard.backend(wg_device) == "userspace" and wg_device in nl.wireguard.list()
    nl.wireguard.set(fastlink.WgDevice(name=wg_device, peers=[fastlink.WgPeer(public_key=peer_public, remove=True)]))
    assert len(wg_dump(ns, wg_device)) == 1


def test_keys_never_reach_error_text():
    secret = "A" * 42 + "!="  # 44 characters, not base64
    with pytest.raises(fastlink.Error) as caught:
        fastlink.WgDevice(private_key=secret)
    assert secret not in str(caught.value) and "base64" in str(caught.value)
    with pytest.raises(fastlink.Error) as short:
        fastlink.WgPeer(preshared_key=secret[:-1])
    assert secret[:-1] not in str(short.value)
    with pytest.raises(fastlink.Error):
        fastlink.WgPeer(allowed_ips=["10.0.0.300/32"])
    with pytest.raises(TypeError):
        fastlink.WgDevice(private_key=b"\0" * 32)
