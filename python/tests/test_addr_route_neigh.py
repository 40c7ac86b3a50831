"""Addresses, routes and neighbours from Python, checked with `ip -j`."""
import errno

import pytest

import fastlink
from conftest import ip, ip_json


def test_address_add_list_delete(nl, ns, veth):
    nl.addresses.add(fastlink.AddrInfo(address="10.31.0.1/24", dev=veth, label=veth + ":a"))
    nl.addresses.add(fastlink.AddrInfo(address="2001:db8:31::1/64", dev=veth, flags=0x02))  # nodad
    shown = ip_json(ns, "addr", "show", "dev", veth)[0]["addr_info"]
    assert {(a["local"], a["prefixlen"]) for a in shown} >= {("10.31.0.1", 24), ("2001:db8:31::1", 64)}
    v4 = nl.addresses.list(dev=veth, family=4)
    assert [(a.address, a.label, a.dev) for a in v4] == [("10.31.0.1/24", veth + ":a", nl.links.index(veth))]
    assert "2001:db8:31::1/64" in [a.address for a in nl.addresses.list(dev=veth, family=6)]
    nl.addresses.delete(fastlink.AddrInfo(address="10.31.0.1/24", dev=veth))
    assert "10.31.0.1" not in [a["local"] for a in ip_json(ns, "addr", "show", "dev", veth)[0]["addr_info"]]
    assert nl.addresses.flush(dev=veth, family=6) >= 1


def test_routes_add_get_list_delete(nl, ns, veth):
    nl.addresses.add(fastlink.AddrInfo(address="10.32.0.1/24", dev=veth))
    nl.routes.add(fastlink.RouteInfo(dst="10.33.0.0/16", gateway="10.32.0.2", metric=7))
    nl.routes.add(fastlink.RouteInfo(dst="10.34.0.0/16", type="blackhole", table=100))
    main = {r["dst"]: r for r in ip_json(ns, "route", "show")}
    assert main["10.33.0.0/16"]["gateway"] == "10.32.0.2" and main["10.33.0.0/16"]["metric"] == 7
    assert [r["dst"] for r in ip_json(ns, "route", "show", "table", "100")] == ["10.34.0.0/16"]
    listed = [r for r in nl.routes.list(table=254, family=4) if r.dst == "10.33.0.0/16"]
    assert len(listed) == 1 and listed[0].gateway == "10.32.0.2" and listed[0].dev == nl.links.index(veth)
    assert [(r.dst, r.type) for r in nl.routes.list(table=100)] == [("10.34.0.0/16", "blackhole")]
    got = nl.routes.get("10.33.1.1")
    assert got.gateway == "10.32.0.2" and got.dev == nl.links.index(veth)
    with pytest.raises(fastlink.Error) as caught:
        nl.routes.add(fastlink.RouteInfo(dst="10.33.0.0/16", gateway="10.32.0.2", metric=7))
    assert caught.value.errno == errno.EEXIST
    nl.routes.delete(fastlink.RouteInfo(dst="10.33.0.0/16", metric=7))
    assert "10.33.0.0/16" not in [r["dst"] for r in ip_json(ns, "route", "show")]
    assert nl.routes.flush(table=100) == 1
    assert ip_json(ns, "route", "show", "table", "100") == []


def test_route_batch(nl, ns, veth):
    index = nl.links.index(veth)
    batch = fastlink.Batch()
    for i in range(100):
        batch.add(fastlink.RouteRequests.add(fastlink.RouteInfo(dst=f"10.40.{i}.0/24", dev=index, table=101)))
    result = nl.run(batch)
    assert result.ok and result.applied == 100
    assert len(ip_json(ns, "route", "show", "table", "101")) == 100
    assert nl.routes.flush(table=101) == 100


def test_batch_keeps_its_own_copy_of_each_request(nl, ns, veth):
    # A request the caller dropped still runs; clear() empties the batch; nothing but a Request
    # is queued.
    index = nl.links.index(veth)
    batch = fastlink.Batch()
    batch.add(fastlink.RouteRequests.add(fastlink.RouteInfo(dst="10.41.9.0/24", dev=index, table=102)))
    batch.clear()
    request = fastlink.RouteRequests.add(fastlink.RouteInfo(dst="10.41.0.0/24", dev=index, table=102))
    batch.add(request)
    batch.add(fastlink.RouteRequests.add(fastlink.RouteInfo(dst="10.41.1.0/24", dev=index, table=102)))
    del request
    with pytest.raises(TypeError):
        batch.add(fastlink.RouteInfo(dst="10.41.2.0/24", dev=index, table=102))
    result = nl.run(batch)
    assert result.applied == 2
    assert sorted(r["dst"] for r in ip_json(ns, "route", "show", "table", "102")) == ["10.41.0.0/24", "10.41.1.0/24"]
    assert nl.routes.flush(table=102) == 2


def test_host_bits_in_route_refused_before_sending(nl, ns, veth):
    with pytest.raises(fastlink.Error) as caught:
        nl.routes.add(fastlink.RouteInfo(dst="10.50.0.1/16", dev=veth))
    assert caught.value.errno == errno.EINVAL
    assert "10.50.0.0/16" not in [r["dst"] for r in ip_json(ns, "route", "show")]


def test_neighbour_add_list(nl, ns, veth):
    nl.neighbours.add(fastlink.NeighInfo(dst="10.60.0.9", dev=veth, lladdr="02:00:00:00:00:09"))
    shown = ip_json(ns, "neigh", "show", "dev", veth)
    assert [(n["dst"], n["lladdr"], n["state"]) for n in shown] == [("10.60.0.9", "02:00:00:00:00:09", ["PERMANENT"])]
    listed = [n for n in nl.neighbours.list(dev=veth, family=4)]
    assert [(n.dst, n.lladdr, n.state) for n in listed] == [("10.60.0.9", "02:00:00:00:00:09", "PERMANENT")]
    nl.neighbours.delete(fastlink.NeighInfo(dst="10.60.0.9", dev=veth))
    assert ip_json(ns, "neigh", "show", "dev", veth) == []


def test_rules_add_list_delete(nl, ns):
    nl.rules.add(fastlink.RuleInfo(priority=1000, src="10.70.0.0/16", table=100))
    nl.rules.add(fastlink.RuleInfo(priority=1001, fwmark=7, action="blackhole"))
    shown = {r["priority"]: r for r in ip_json(ns, "rule", "show")}
    assert (shown[1000]["src"], shown[1000]["srclen"], shown[1000]["table"]) == ("10.70.0.0", 16, "100")
    assert shown[1001]["action"] == "blackhole" and shown[1001]["fwmark"] == "0x7"
    listed = {r.priority: r for r in nl.rules.list(family=4)}
    assert (listed[1000].src, listed[1000].table, listed[1000].action) == ("10.70.0.0/16", 100, "lookup")
    assert (listed[1001].fwmark, listed[1001].action) == (7, "blackhole")
    assert [r.priority for r in nl.rules.list(table=100)] == [1000]
    with pytest.raises(fastlink.Error):
        fastlink.RuleInfo(action="sideways")
    nl.rules.delete(fastlink.RuleInfo(priority=1000))
    nl.rules.delete(fastlink.RuleInfo(priority=1001))
    assert not {1000, 1001} & {r["priority"] for r in ip_json(ns, "rule", "show")}


def test_streamed_run_from_a_generator(nl, ns, veth):
    index = nl.links.index(veth)

    def routes(count, table, fail_at=None):
        for i in range(count):
            if i == fail_at:
                raise ValueError("the source gave up")
            yield fastlink.RouteRequests.add(fastlink.RouteInfo(dst=f"10.41.{i}.0/24", dev=index, table=table))

    result = nl.run(routes(50, 102))
    assert (result.ok, result.applied, len(result.results)) == (True, 50, 0)
    assert len(ip_json(ns, "route", "show", "table", "102")) == 50
    again = nl.run(routes(52, 102), on_error="continue")  # the first 50 exist already
    assert (again.applied, again.failed) == (2, 50)
    assert [r.error.batch_index for r in again.results][:3] == [0, 1, 2]
    assert again.results[0].error.errno == errno.EEXIST
    with pytest.raises(ValueError, match="gave up"):
        nl.run(routes(10, 103, fail_at=5))
    assert len(ip_json(ns, "route", "show", "table", "103")) == 5
    with pytest.raises(TypeError):
        nl.run(iter([fastlink.LinkInfo()]))
    nl.routes.flush(table=102)
    nl.routes.flush(table=103)


def test_stop_pipelines_adds_and_keeps_nothing_behind_the_failure(nl, ns, veth):
    """on_error="stop" sends adds pipelined; what the kernel applied behind the failure is deleted
    again, so `ip route show` holds exactly the routes before it, as with one at a time."""
    index = nl.links.index(veth)

    def route(i, table):
        return fastlink.RouteRequests.add(fastlink.RouteInfo(dst=f"10.42.{i}.0/24", dev=index, table=table))

    ip(ns, "route", "add", "10.42.10.0/24", "dev", veth, "table", "104")  # request 10 will fail
    batch = fastlink.Batch()
    for i in range(200):
        batch.add(route(i, 104))
    result = nl.run(batch)
    assert (result.applied, result.failed, result.not_sent) == (10, 1, 189)
    assert [r.status for r in result.results[9:12]] == ["applied", "failed", "not_sent"]
    assert result.first_error.errno == errno.EEXIST and result.first_error.batch_index == 10
    shown = sorted(int(r["dst"].split(".")[2]) for r in ip_json(ns, "route", "show", "table", "104"))
    assert shown == list(range(11))

    # Streamed, with a request that cannot be undone (link set) between two runs of adds.
    def mixed():
        yield from (route(i, 105) for i in range(20))
        yield fastlink.LinkRequests.set(veth, fastlink.LinkInfo(mtu=1400))
        yield from (route(i, 105) for i in range(20, 200))

    ip(ns, "route", "add", "10.42.150.0/24", "dev", veth, "table", "105")
    streamed = nl.run(mixed())
    assert (streamed.applied, streamed.failed, streamed.not_sent) == (151, 1, 49)
    assert [r.error.batch_index for r in streamed.results] == [151]
    shown = sorted(int(r["dst"].split(".")[2]) for r in ip_json(ns, "route", "show", "table", "105"))
    assert shown == list(range(151))
    assert {l["ifname"]: l["mtu"] for l in ip_json(ns, "link", "show")}[veth] == 1400
    nl.routes.flush(table=104)
    nl.routes.flush(table=105)
