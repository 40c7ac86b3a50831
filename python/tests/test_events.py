"""Events and the mirror: changes made with `ip` (the oracle) seen from Python."""
import asyncio
import errno
import select
import time

import pytest

import fastlink
from conftest import ip, ip_json


def read_until(source, predicate, seconds=10.0):
    """Reads events until one matches (polled, no sleeps); returns the events read. The deadline is
    generous (the loop ends at the match): CI runs this beside the sanitizer build's compilation."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        events = source.read(timeout=0.2)
        seen += events
        if any(predicate(e) for e in events):
            return seen
    raise AssertionError(f"no matching event in {seen}")


def test_link_events_new_and_deleted(nl, ns):
    with nl.events("link") as stream:
        assert select.select([stream], [], [], 0)[0] == []  # fileno(): nothing queued yet
        ip(ns, "link", "add", "ev0", "type", "bridge")
        assert select.select([stream], [], [], 10)[0] == [stream]
        index = ip_json(ns, "link", "show", "dev", "ev0")[0]["ifindex"]
        events = read_until(stream, lambda e: e.object.name == "ev0")
        new = [e for e in events if e.object.name == "ev0"][0]
        assert (new.action, new.kind, new.object.index, new.object.kind) == ("new", "link", index, "bridge")
        ip(ns, "link", "del", "ev0")
        gone = read_until(stream, lambda e: e.action == "deleted" and e.object.index == index)
        assert all(e.kind == "link" for e in gone)


def test_only_the_kinds_asked_for(nl, ns, veth):
    with nl.events("address") as stream:
        ip(ns, "link", "set", veth, "mtu", "1300")
        ip(ns, "addr", "add", "10.9.0.1/24", "dev", veth)
        events = read_until(stream, lambda e: e.object.address == "10.9.0.1/24")
        assert {e.kind for e in events} == {"address"}
        ip(ns, "addr", "del", "10.9.0.1/24", "dev", veth)


def test_async_for(nl, ns):
    async def first_event():
        loop = asyncio.get_running_loop()
        with nl.events("link") as stream:
            # Nothing is queued when the loop starts waiting: the change comes while it waits.
            loop.call_later(0.05, ip, ns, "link", "add", "ev1", "type", "bridge")
            async for event in stream:
                if event.object.name == "ev1":
                    return event

    try:
        event = asyncio.run(asyncio.wait_for(first_event(), 10))
        assert (event.action, event.object.kind) == ("new", "bridge")
    finally:
        ip(ns, "link", "del", "ev1", check=False)


def test_overflow_is_its_own_exception_and_the_stream_goes_on(nl, ns, veth):
    # The smallest receive buffer the kernel allows holds a few messages: 200 addresses overflow it.
    with nl.events("address", receive_buffer=1) as stream:
        with open(f"/tmp/fastlink-py-{ns}.batch", "w") as f:
            f.writelines(f"addr add 10.8.{i >> 8}.{i & 255}/32 dev {veth}\n" for i in range(200))
        ip(ns, "-batch", f"/tmp/fastlink-py-{ns}.batch")
        with pytest.raises(fastlink.EventOverflow) as caught:
            for _ in range(300):
                stream.read()
        assert isinstance(caught.value, fastlink.Error) and caught.value.errno == errno.ENOBUFS
        assert stream.overflows >= 1
        while stream.read():  # what was queued after the overflow
            pass
        ip(ns, "addr", "add", "10.7.0.1/32", "dev", veth)  # usable after the overflow
        read_until(stream, lambda e: e.action == "new" and e.object.address == "10.7.0.1")  # a /32 prints bare
    ip(ns, "addr", "flush", "dev", veth)


def test_mirror_is_a_current_read_only_view(nl, ns):
    with nl.mirror(routes=False, neighbours=False) as mirror:
        assert sorted(l.name for l in mirror.links) == sorted(l["ifname"] for l in ip_json(ns, "link", "show"))
        assert mirror.count("link") == len(mirror.links)
        ip(ns, "link", "add", "mv0", "type", "bridge")
        ip(ns, "addr", "add", "10.6.0.1/24", "dev", "mv0")
        read_until(mirror, lambda e: e.kind == "address" and e.object.address == "10.6.0.1/24")
        index = ip_json(ns, "link", "show", "dev", "mv0")[0]["ifindex"]
        assert mirror.link("mv0").index == index and mirror.link(index).name == "mv0"
        assert [a.address for a in mirror.addresses(index)] == ["10.6.0.1/24"]
        mirror.links[0].mtu = 1  # a copy: the mirror does not change
        with pytest.raises(AttributeError):
            mirror.links = []
        ip(ns, "link", "del", "mv0")
        changes = read_until(mirror, lambda e: e.kind == "link" and e.action == "deleted")
        assert mirror.link("mv0") is None and mirror.stats.notifications >= len(changes)


def test_bad_input_and_closed_objects(nl):
    with pytest.raises(ValueError, match="unknown event kind 'links'"):
        nl.events("links")
    with pytest.raises(TypeError):
        nl.events(1)
    with pytest.raises(ValueError):
        nl.events("link", receive_buffer=0)
    stream = nl.events("link")
    with pytest.raises(ValueError):
        stream.read(timeout=-1)
    stream.close()
    with pytest.raises(ValueError, match="closed"):
        stream.read()


def test_mirror_of_a_closed_netlink_raises(ns):
    netlink = fastlink.Netlink(netns=ns)
    mirror = netlink.mirror(addresses=False, routes=False, neighbours=False)
    netlink.close()  # the mirror dumps through it: every call must refuse, not crash
    with pytest.raises(ValueError, match="closed"):
        mirror.read()
    with pytest.raises(ValueError, match="closed"):
        mirror.links
