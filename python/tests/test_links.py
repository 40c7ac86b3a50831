"""Links from Python, checked with `ip -j link`."""
import fastlink
from conftest import ip, ip_json


def test_add_veth_get_and_list_match_ip(nl, ns):
    nl.links.add(fastlink.LinkInfo(name="lv0", kind="veth", mtu=1400, veth=fastlink.VethInfo(peer_name="lv1")))
    try:
        shown = {l["ifname"]: l for l in ip_json(ns, "-d", "link", "show")}
        assert shown["lv0"]["mtu"] == 1400 and shown["lv0"]["linkinfo"]["info_kind"] == "veth"
        assert "lv1" in shown
        got = nl.links.get("lv0")
        assert (got.name, got.index, got.kind, got.mtu) == ("lv0", shown["lv0"]["ifindex"], "veth", 1400)
        assert got.address == shown["lv0"]["address"]
        assert nl.links.get(got.index).name == "lv0"  # by ifindex too
        assert nl.links.find("nosuch0") is None
        listed = sorted(l.name for l in nl.links.list(kind="veth"))
        assert listed == sorted(n for n, l in shown.items() if l.get("linkinfo", {}).get("info_kind") == "veth")
        assert [l.name for l in nl.links.list(name="lv*")] == sorted(["lv0", "lv1"], key=lambda n: shown[n]["ifindex"])
    finally:
        nl.links.delete("lv0")
    assert "lv0" not in {l["ifname"] for l in ip_json(ns, "link", "show")}


def test_set_mtu_admin_and_master(nl, ns, veth):
    nl.links.add(fastlink.LinkInfo(name="pbr0", kind="bridge"))
    try:
        nl.links.set(veth, fastlink.LinkInfo(mtu=1280, master="pbr0", admin=False))
        shown = ip_json(ns, "link", "show", "dev", veth)[0]
        assert shown["mtu"] == 1280 and shown["master"] == "pbr0" and "UP" not in shown["flags"]
        ports = nl.links.list(master="pbr0")
        assert [p.name for p in ports] == [veth]
        assert ports[0].master_name == "pbr0" and ports[0].slave_kind == "bridge"
        bridges = nl.links.list(kind="bridge")
        assert [b.name for b in bridges] == [l["ifname"] for l in ip_json(ns, "-d", "link", "show", "type", "bridge")]
    finally:
        nl.links.delete("pbr0")


def test_stats_are_read_when_asked(nl, veth):
    assert nl.links.get(veth).stats is None
    stats = nl.links.get(veth, stats=True).stats
    assert stats is not None and stats.rx_bytes >= 0


def test_batch_mtu_with_per_request_results(nl, ns, veth):
    batch = fastlink.Batch()
    batch.add(fastlink.LinkRequests.set("pv0", fastlink.LinkInfo(mtu=1300)))
    batch.add(fastlink.LinkRequests.set("nosuch0", fastlink.LinkInfo(mtu=1300)))
    batch.add(fastlink.LinkRequests.set("pv1", fastlink.LinkInfo(mtu=1300)))
    assert len(batch) == 3
    result = nl.run(batch, on_error="continue")
    assert [r.status for r in result.results] == ["applied", "failed", "applied"]
    assert (result.applied, result.failed, result.not_sent, result.ok) == (2, 1, 0, False)
    error = result.results[1].error
    assert isinstance(error, fastlink.Error) and error.errno == 19 and error.batch_index == 1  # ENODEV
    assert "nosuch0" in error.operation
    assert {l["ifname"]: l["mtu"] for l in ip_json(ns, "link", "show")}["pv1"] == 1300

    stopped = nl.run(batch)  # on_error="stop": nothing after the failure is sent
    assert [r.status for r in stopped.results] == ["applied", "failed", "not_sent"]
    try:
        stopped.raise_for_error()
        raise AssertionError("raise_for_error did not raise")
    except fastlink.Error as e:
        assert e.batch_index == 1


def test_group_set_is_one_request(nl, ns, veth):
    nl.links.set("pv0", fastlink.LinkInfo(group=7))
    nl.links.set("pv1", fastlink.LinkInfo(group=7))
    nl.links.set_group(7, fastlink.LinkInfo(mtu=1420))
    mtus = {l["ifname"]: l["mtu"] for l in ip_json(ns, "link", "show")}
    assert mtus["pv0"] == 1420 and mtus["pv1"] == 1420
