"""Nexthops and groups, fdb, bridge VLANs, tc qdiscs and classes, ethtool: checked with `ip -j`,
`bridge -j`, `tc -j` and `ethtool` in the suite's namespace."""
import errno
import json
import subprocess

import pytest

import fastlink
from conftest import ip, ip_json


def run_json(ns, *argv):
    out = subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, check=True).stdout
    return json.loads(out) if out.strip() else []


def run_text(ns, *argv):
    return subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, check=True).stdout


def test_nexthops_and_groups(nl, ns, veth):
    ip(ns, "addr", "add", "10.3.0.1/24", "dev", veth)
    dev = nl.links.index(veth)
    try:
        nl.nexthops.add(fastlink.NexthopInfo(id=10, gateway="10.3.0.2", dev=dev))
        nl.nexthops.add(fastlink.NexthopInfo(id=11, gateway="10.3.0.3", dev=dev))
        nl.nexthops.add(fastlink.NexthopInfo(id=20, group=[fastlink.NexthopGroupMember(id=10, weight=3),
                                                           fastlink.NexthopGroupMember(id=11)]))
        nl.nexthops.add(fastlink.NexthopInfo(id=30, blackhole=True))
        shown = {n["id"]: n for n in ip_json(ns, "nexthop", "show")}
        assert shown[10]["gateway"] == "10.3.0.2" and shown[10]["dev"] == veth
        assert [(g["id"], g.get("weight", 1)) for g in shown[20]["group"]] == [(10, 3), (11, 1)]
        assert "blackhole" in shown[30]
        got = nl.nexthops.get(10)
        assert (got.id, got.gateway, got.dev) == (10, "10.3.0.2", dev)
        group = nl.nexthops.get(20)
        assert [(m.id, m.weight) for m in group.group] == [(10, 3), (11, 1)]
        assert sorted(n.id for n in nl.nexthops.list()) == sorted(shown)
        assert [n.id for n in nl.nexthops.list(groups=True)] == [20]
    finally:
        for nhid in (20, 30, 10, 11):
            ip(ns, "nexthop", "del", "id", str(nhid), check=False)
        ip(ns, "addr", "flush", "dev", veth)
    assert ip_json(ns, "nexthop", "show") == []
    with pytest.raises(fastlink.Error) as missing:
        nl.nexthops.get(10)
    assert missing.value.errno == errno.ENOENT
    with pytest.raises(fastlink.Error):
        fastlink.NexthopInfo(gateway="10.3.0.300")
    with pytest.raises(TypeError):
        fastlink.NexthopGroupMember(weight="heavy")
    with pytest.raises(TypeError):
        fastlink.ChannelsInfo(rx=-1)


def test_fdb_entries(nl, ns, veth):
    ip(ns, "link", "add", "fbr0", "type", "bridge")
    ip(ns, "link", "set", veth, "master", "fbr0")
    try:
        entry = fastlink.FdbInfo(mac="02:00:00:00:00:aa", dev=nl.links.index(veth), master=True, state="static")
        nl.fdb.add(entry)
        shown = [e for e in run_json(ns, "bridge", "-j", "fdb", "show", "dev", veth) if e["mac"] == "02:00:00:00:00:aa"]
        assert len(shown) == 1 and "static" in shown[0].get("state", "static")
        listed = [e for e in nl.fdb.list(dev=veth) if e.mac == "02:00:00:00:00:aa"]
        assert len(listed) == 1 and listed[0].state == "static" and listed[0].dev == nl.links.index(veth)
        nl.fdb.delete(entry)
        assert not [e for e in run_json(ns, "bridge", "-j", "fdb", "show", "dev", veth) if e["mac"] == "02:00:00:00:00:aa"]
    finally:
        ip(ns, "link", "del", "fbr0")


def test_bridge_vlans_list_matches_bridge_and_bad_input(nl, ns):
    # This host's bridge has no VLAN filtering (docs: FACTS): the listing must match `bridge -j vlan`.
    assert len(nl.bridge_vlans.list()) == len(run_json(ns, "bridge", "-j", "vlan", "show"))
    with pytest.raises(TypeError):
        fastlink.BridgeVlanInfo(vid="ten")
    with pytest.raises(fastlink.Error):
        fastlink.FdbInfo(mac="02:00:00:00:00")  # a bad MAC raises when assigned


def test_tc_qdisc_and_class(nl, ns, veth):
    dev = nl.links.index(veth)
    root = fastlink.QdiscInfo(dev=dev, parent="root", handle="1:", kind="htb",
                              options=fastlink.HtbOptions(default_class=0x10))
    nl.tc.add_qdisc(root)
    try:
        shown = [q for q in run_json(ns, "tc", "-j", "qdisc", "show", "dev", veth) if q["kind"] == "htb"]
        assert len(shown) == 1 and shown[0]["handle"] == "1:" and shown[0]["root"]
        nl.tc.add_class(fastlink.ClassInfo(dev=dev, parent="1:", classid="1:10", kind="htb",
                                           options=fastlink.HtbClassOptions(rate=125000)))
        assert "class htb 1:10" in run_text(ns, "tc", "class", "show", "dev", veth)
        qdiscs = nl.tc.qdiscs(dev=veth, parent="root")
        assert [(q.kind, q.handle, q.parent) for q in qdiscs] == [("htb", "1:", "root")]
        assert qdiscs[0].options.default_class == 0x10
        classes = nl.tc.classes(veth)
        assert [(c.classid, c.options.rate) for c in classes] == [("1:10", 125000)]
        nl.tc.delete_qdisc(fastlink.QdiscInfo(dev=dev, parent="root"))
        assert [q["kind"] for q in run_json(ns, "tc", "-j", "qdisc", "show", "dev", veth) if q.get("root")] != ["htb"]
        nl.tc.replace_qdisc(fastlink.QdiscInfo(dev=dev, parent="root", handle="2:", kind="tbf",
                                               options=fastlink.TbfOptions(rate=125000, burst=32768, latency=50000)))
        assert [q["kind"] for q in run_json(ns, "tc", "-j", "qdisc", "show", "dev", veth) if q.get("root")] == ["tbf"]
    finally:
        subprocess.run(["tc", "-n", ns, "qdisc", "del", "dev", veth, "root"], check=False)
    with pytest.raises(fastlink.Error):
        fastlink.QdiscInfo(handle="1:2:3")
    with pytest.raises(TypeError):
        fastlink.QdiscInfo(options=42)


def test_ethtool_channels_and_features(nl, ns):
    ip(ns, "link", "add", "et0", "numtxqueues", "4", "numrxqueues", "4", "type", "veth", "peer", "name", "et1")
    try:
        nl.ethtool.set_channels("et0", fastlink.ChannelsInfo(rx=2, tx=2))
        text = run_text(ns, "ethtool", "-l", "et0")
        current = text.split("Current hardware settings:")[1]
        assert "RX:\t\t2" in current.replace(" ", "") or "RX:\t2" in current
        channels = nl.ethtool.channels("et0")
        assert (channels.rx, channels.tx, channels.rx_max) == (2, 2, 4)
        features = nl.ethtool.features("et0")
        assert "rx-gro-list" in features and not features["rx-gro-list"].fixed
        assert nl.ethtool.set_features("et0", {"rx-gro-list": True}) == []
        assert "rx-gro-list: on" in run_text(ns, "ethtool", "-k", "et0")
        assert nl.ethtool.features("et0")["rx-gro-list"].active
        assert "peer_ifindex" in nl.ethtool.driver_stats("et0")
        with pytest.raises(fastlink.Error):
            nl.ethtool.channels("nosuch0")
        with pytest.raises(TypeError):
            nl.ethtool.set_features("et0", {"rx-gro-list": "yes"})
    finally:
        ip(ns, "link", "del", "et0")


def ethtool_status(ns, *argv):
    return subprocess.run(["ip", "netns", "exec", ns, "ethtool", *argv], capture_output=True, text=True)


def test_ethtool_fec_and_tunnel_info_refused_as_ethtool_refuses_them(nl, ns):
    # veth has neither FEC nor UDP tunnel offload (netdevsim, which has both, is VM only): each
    # call fails where ethtool fails, with the kernel's errno and extack, and nothing is sent for
    # a setting the binding refuses.
    ip(ns, "link", "add", "et0", "type", "veth", "peer", "name", "et1")
    try:
        assert ethtool_status(ns, "--show-fec", "et0").returncode != 0
        with pytest.raises(fastlink.Error) as fec:
            nl.ethtool.fec("et0", statistics=True)
        assert fec.value.errno == errno.EOPNOTSUPP and "et0" in fec.value.operation
        with pytest.raises(fastlink.Error) as set_fec:
            nl.ethtool.set_fec("et0", fastlink.FecSettings(modes=8, automatic=False))
        assert set_fec.value.errno == errno.EOPNOTSUPP
        shown = ethtool_status(ns, "--show-tunnels", "et0")
        assert "device does not report tunnel offload info" in shown.stderr
        with pytest.raises(fastlink.Error) as tunnels:
            nl.ethtool.tunnel_info("et0")
        assert tunnels.value.extack == "device does not report tunnel offload info"
        with pytest.raises(fastlink.Error) as missing:
            nl.ethtool.tunnel_info("nosuch0")
        assert missing.value.errno == errno.ENODEV
        settings = fastlink.FecSettings(modes=8 | 16, automatic=True)
        assert (settings.modes, settings.automatic, settings.active, settings.stats) == (24, True, None, None)
        assert repr(settings) == "FecSettings(modes=24, automatic=True)"
        with pytest.raises(TypeError, match="no field 'active'"):
            fastlink.FecSettings(active=8)  # reported only
        with pytest.raises(TypeError):
            nl.ethtool.set_fec("et0", {"modes": 8})
    finally:
        ip(ns, "link", "del", "et0")


def test_potential_routers_refused_off_a_sit_device(nl, ns):
    # The PRL ioctls exist only on a sit device (this host lacks sit; the VM tests them in C++):
    # anything else is refused with the driver's errno, a bad address before anything is sent.
    ip(ns, "link", "add", "et0", "type", "veth", "peer", "name", "et1")
    try:
        with pytest.raises(fastlink.Error) as listed:
            nl.potential_routers.list("et0")
        assert listed.value.errno == errno.EOPNOTSUPP
        with pytest.raises(fastlink.Error) as added:
            nl.potential_routers.add("et0", "192.0.2.1", is_default=True)
        assert added.value.errno == errno.EOPNOTSUPP and "prl-default 192.0.2.1 dev et0" in added.value.operation
        with pytest.raises(fastlink.Error) as gone:
            nl.potential_routers.remove("nosuch0", "192.0.2.1")
        assert gone.value.errno == errno.ENODEV
        with pytest.raises(fastlink.Error) as bad:
            nl.potential_routers.change("et0", "192.0.2.300", False)
        assert bad.value.errno == errno.EINVAL
        router = fastlink.PotentialRouter(address="192.0.2.1", is_default=True)
        assert repr(router) == "PotentialRouter(address='192.0.2.1', is_default=True)"
    finally:
        ip(ns, "link", "del", "et0")
