"""fastlink.apply: a state document from Python, checked with `ip -j`."""
import errno

import pytest

import fastlink
from conftest import ip_json

BRIDGE = {
    "interfaces": [
        {
            "name": "ap0",
            "type": "linux-bridge",
            "state": "up",
            "mtu": 1400,
            "ipv4": {"enabled": True, "address": [{"ip": "10.5.0.1", "prefix-length": 24}]},
        }
    ]
}


def links(ns):
    return {l["ifname"]: l for l in ip_json(ns, "-d", "link", "show")}


def test_check_plans_and_apply_makes_it_so(ns):
    before = links(ns)
    checked = fastlink.apply(BRIDGE, check=True, netns=ns)
    assert checked.result is None and checked.verified is None and not checked.changed
    assert any(s.action == "create" and s.object == "interface ap0" for s in checked.plan.steps)
    assert "ap0" in str(checked.plan) and links(ns) == before  # check sends nothing

    done = fastlink.apply(BRIDGE, netns=ns)
    try:
        assert done.verified is True and done.changed and done.result.ok
        assert len(done.result.results) == len(done.plan)
        shown = links(ns)["ap0"]
        assert shown["mtu"] == 1400 and shown["linkinfo"]["info_kind"] == "bridge"
        addrs = [a["local"] for a in ip_json(ns, "addr", "show", "dev", "ap0")[0]["addr_info"] if a["family"] == "inet"]
        assert addrs == ["10.5.0.1"]
        with fastlink.Netlink(netns=ns) as nl:  # again, on an open Netlink: nothing to do
            again = fastlink.apply(BRIDGE, netlink=nl)
        assert again.plan.empty and again.result is None
        # YAML text, mode replaced: ap0 exactly as written, so no ipv4 key means no addresses.
        fastlink.apply("interfaces:\n- name: ap0\n  type: linux-bridge\n  mtu: 1500\n", mode="replaced",
                       netns=ns).raise_for_error()
        assert links(ns)["ap0"]["mtu"] == 1500
        assert [a for a in ip_json(ns, "addr", "show", "dev", "ap0")[0]["addr_info"] if a["family"] == "inet"] == []
        assert done.plan.undo and "ap0" in done.plan.undo
        fastlink.apply(done.plan.undo, netns=ns).raise_for_error()  # the undo document removes it
        assert "ap0" not in links(ns)
    finally:
        fastlink.apply({"interfaces": [{"name": "ap0", "type": "linux-bridge", "state": "absent"}]}, netns=ns)


def test_bad_documents_raise_before_sending(ns):
    before = links(ns)
    with pytest.raises(fastlink.Error) as caught:
        fastlink.apply({"interfaces": [{"name": "ap1", "type": "linux-bridge", "mtu": "big"}]}, netns=ns)
    assert caught.value.errno == errno.EINVAL and "interfaces[0].mtu" in str(caught.value)
    with pytest.raises(fastlink.Error):
        fastlink.apply("interfaces: [", netns=ns)
    with pytest.raises(ValueError, match="mode"):
        fastlink.apply(BRIDGE, mode="merge", netns=ns)
    with pytest.raises(TypeError):
        fastlink.apply(42, netns=ns)
    with pytest.raises(ValueError, match="not both"):
        with fastlink.Netlink(netns=ns) as nl:
            fastlink.apply(BRIDGE, netns=ns, netlink=nl)
    assert links(ns) == before
