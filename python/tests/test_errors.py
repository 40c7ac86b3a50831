"""fastlink.Error and bad input: a clear exception before anything is sent, never a crash."""
import errno

import pytest

import fastlink
from conftest import ip, ip_json


def link_names(ns):
    return [l["ifname"] for l in ip_json(ns, "link", "show")]


def test_kernel_refusal_is_an_oserror_with_the_details(nl, veth):
    with pytest.raises(fastlink.Error) as caught:
        nl.links.add(fastlink.LinkInfo(name=veth, kind="veth", veth=fastlink.VethInfo(peer_name="pvx")))
    e = caught.value
    assert isinstance(e, OSError) and e.errno == errno.EEXIST
    assert "link add" in e.operation and veth in e.operation
    assert e.batch_index is None and isinstance(e.extack, str)
    with pytest.raises(fastlink.Error) as missing:
        nl.links.get("nosuch0")
    assert missing.value.errno == errno.ENODEV


def test_extack_reaches_python(nl, veth):
    with pytest.raises(fastlink.Error) as caught:
        nl.links.set(veth, fastlink.LinkInfo(mtu=70000))  # beyond veth's max_mtu
    assert caught.value.errno == errno.EINVAL
    assert caught.value.extack  # the kernel says why ("MTU greater than device maximum")
    assert caught.value.extack in str(caught.value)


def test_bad_name_is_refused_before_sending(nl, ns):
    before = link_names(ns)
    with pytest.raises(fastlink.Error) as caught:
        nl.links.add(fastlink.LinkInfo(name="x" * 16, kind="bridge"))
    assert caught.value.errno == errno.EINVAL
    assert link_names(ns) == before


@pytest.mark.parametrize("field,value", [("address", "10.0.0.300/24"), ("address", "10.0.0.1/33"), ("peer", "nonsense")])
def test_bad_address_raises_when_assigned(field, value):
    with pytest.raises(fastlink.Error) as caught:
        fastlink.AddrInfo(**{field: value})
    assert caught.value.errno == errno.EINVAL


@pytest.mark.parametrize("kwargs", [{"mtu": "abc"}, {"mtu": -1}, {"mtu": 2**40}, {"admin": "yes"}, {"nosuch": 1}])
def test_wrong_types_are_type_errors(kwargs):
    with pytest.raises(TypeError):
        fastlink.LinkInfo(**kwargs)


def test_keywords_that_are_not_interned_are_found():
    # A field is found by the identity of its interned name first; a keyword Python cannot
    # intern (a str subclass in a **dict) must be found by its value.
    class Name(str):
        pass

    assert fastlink.RouteInfo(**{Name("table"): 7}).table == 7
    assert fastlink.RouteInfo(**{"".join(["ta", "ble"]): 8}).table == 8
    with pytest.raises(TypeError, match="no field 'tabel'"):
        fastlink.RouteInfo(**{Name("tabel"): 7})


def test_batch_builders_refuse_bad_input_before_queueing():
    # A request is encoded when it is built: a bad one raises there and never reaches the batch,
    # so nl.run() cannot send half of a batch and then meet it.
    batch = fastlink.Batch()
    batch.add(fastlink.LinkRequests.set("x" * 15, fastlink.LinkInfo(mtu=1400)))  # 15 bytes: the longest name
    with pytest.raises(fastlink.Error) as caught:
        batch.add(fastlink.LinkRequests.set("x" * 16, fastlink.LinkInfo(mtu=1400)))
    assert caught.value.errno == errno.EINVAL and "longer than 15 bytes" in str(caught.value)
    with pytest.raises(fastlink.Error):
        batch.add(fastlink.RouteRequests.add(fastlink.RouteInfo(dst="10.0.0.1/40", dev=1)))
    with pytest.raises(TypeError):
        batch.add(fastlink.LinkRequests.set(3.5, fastlink.LinkInfo(mtu=1400)))
    with pytest.raises(TypeError):
        batch.add("link set dev v0 mtu 1400")
    assert len(batch) == 1


def test_bad_mac_and_route_type():
    with pytest.raises(fastlink.Error):
        fastlink.LinkInfo(address="aa:bb:cc")
    with pytest.raises(fastlink.Error):
        fastlink.RouteInfo(type="sideways")
    with pytest.raises(TypeError):
        fastlink.LinkInfo().mtu = "x"


def test_wrong_argument_types(nl):
    with pytest.raises(TypeError):
        nl.links.get(3.5)
    with pytest.raises(TypeError):
        nl.links.set("lo", {"mtu": 1400})
    with pytest.raises(TypeError):
        nl.links.get(2**33)
    with pytest.raises(ValueError):
        nl.run(fastlink.Batch(), on_error="sometimes")
    with pytest.raises(ValueError):
        nl.addresses.list(family=5)


def test_missing_namespace_and_closed_netlink():
    with pytest.raises(fastlink.Error) as caught:
        fastlink.Netlink(netns="fastlink-py-nosuch")
    assert caught.value.errno == errno.ENOENT
    with pytest.raises(TypeError):
        fastlink.Netlink(netns=2.5)


def test_context_manager_closes(ns):
    with fastlink.Netlink(netns=ns) as nl:
        assert nl.links.get("lo").name == "lo"
        links = nl.links
    assert nl.closed
    with pytest.raises(ValueError):
        nl.links
    with pytest.raises(ValueError):
        links.get("lo")  # a view kept past the `with` block raises, it does not crash
