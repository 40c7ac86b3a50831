#!/usr/bin/python3
# fastlink as `nmstatectl` (a symlink: argv[0] decides), driven with kubernetes-nmstate's handler's
# own command lines (pkg/nmstatectl/nmstatectl.go, pkg/client/client.go ApplyDesiredState,
# pkg/probe/probes.go, pkg/nmpolicy/generate.go) and its outputs parsed the way the handler
# parses them: YAML to JSON (sigs.k8s.io/yaml; PyYAML's safe_load here), then the gjson paths
# `routes.running` and `dns-resolver.running.server`. The oracle is `ip -j`.
#
#   tests/fleet/nmstatectl_handler_test.py FASTLINK_BINARY     (as root, inside scripts/sandbox)
#
# The "node" is a namespace with a veth to a "gateway" namespace; nmstatectl runs in the node
# through `ip netns exec`, as the handler runs it in the node's own namespace.
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

FASTLINK = None
NODE, GATEWAY = "fl-node-%d" % os.getpid(), "fl-gw-%d" % os.getpid()
# The handler's DesiredStateConfigurationTimeout: (120 s + 120 s) * 2.
HANDLER_TIMEOUT = "480"


def run(command, stdin=None, check=True):
    r = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (command, r.returncode, r.stderr))
    return r


def ip_json(*words):
    return json.loads(run(["ip", "-j", "-n", NODE] + list(words)).stdout or "[]")


def node_dump():
    """Links (name, mtu, state, master), addresses, routes of every table: what a rollback restores."""
    links = [(l["ifname"], l["mtu"], l["operstate"] != "DOWN" or "UP" in l["flags"], l.get("master")) for l in ip_json("link", "show")]
    addrs = sorted((a["ifname"], i["local"], i["prefixlen"]) for a in ip_json("addr", "show") for i in a["addr_info"] if i.get("scope") != "link")
    routes = sorted(json.dumps(r, sort_keys=True) for r in ip_json("route", "show", "table", "all") if r.get("type") != "local" and r.get("table") != "local")
    return links, addrs, routes


@contextlib.contextmanager
def eth1_configured_by_hand(address, *route):
    """eth1 up with ADDRESS and ROUTE (ip route add words), as the node had them before any
    nmstatectl; removed again at the end."""
    run(["ip", "-n", NODE, "addr", "add", address, "dev", "eth1"])
    run(["ip", "-n", NODE, "link", "set", "eth1", "up"])
    run(["ip", "-n", NODE, "route", "add"] + list(route))
    try:
        yield
    finally:
        run(["ip", "-n", NODE, "route", "flush", "table", "main"])
        run(["ip", "-n", NODE, "addr", "flush", "dev", "eth1"])
        run(["ip", "-n", NODE, "link", "set", "eth1", "down"])


def settled_dump():
    """node_dump once the kernel has stopped changing it (a device brought up gets its fe80::/64
    route a moment later)."""
    last, deadline = node_dump(), time.time() + 5
    while time.time() < deadline:
        time.sleep(0.2)
        now = node_dump()
        if now == last:
            return now
        last = now
    return last


class NmstatectlHandler(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fastlink-nmstatectl-")
        # The handler runs "nmstatectl" from PATH: the symlink FASTLINK_INSTALL_NMSTATECTL installs.
        os.symlink(FASTLINK, os.path.join(cls.tmp, "nmstatectl"))
        os.environ["PATH"] = cls.tmp + ":" + os.environ["PATH"]
        os.environ["FASTLINK_RUN_DIR"] = os.path.join(cls.tmp, "run")  # journals here, not in /run/fastlink
        for ns in (NODE, GATEWAY):
            run(["ip", "netns", "add", ns])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        run(["ip", "-n", NODE, "link", "add", "eth1", "type", "veth", "peer", "name", "gw0", "netns", GATEWAY])
        run(["ip", "-n", GATEWAY, "addr", "add", "192.0.2.254/24", "dev", "gw0"])
        run(["ip", "-n", GATEWAY, "addr", "add", "198.51.100.254/24", "dev", "gw0"])
        run(["ip", "-n", GATEWAY, "link", "set", "gw0", "up"])
        # resolv.conf as the node has it: `ip netns exec` bind-mounts /etc/netns/NODE/resolv.conf;
        # /etc is not ours to write, so the test mounts its own file over /etc/resolv.conf in a
        # private mount namespace (nmstatectl() below).
        cls.resolv = os.path.join(cls.tmp, "resolv.conf")
        with open(cls.resolv, "w") as f:
            f.write("# the node's\nnameserver 192.0.2.53\nnameserver 2001:db8::53\nsearch cluster.local example.org\n")

    @classmethod
    def tearDownClass(cls):
        for ns in (NODE, GATEWAY):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tearDown(self):
        self.nmstatectl("rollback")  # a test that failed half-way leaves no journal to the next

    def nmstatectl(self, *arguments, stdin=None):
        """exec.Command("nmstatectl", arguments...) in the node, stdin as the handler writes it."""
        script = 'mount --bind "$0" /etc/resolv.conf && exec ip netns exec "$1" "${@:2}"'
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script, self.resolv, NODE, "nmstatectl"] + list(arguments),
                              input=stdin, capture_output=True, text=True)

    def show(self):
        """probes.go currentStateAsGJson: nmstatectl show, YAML to JSON."""
        r = self.nmstatectl("show")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(json.dumps(yaml.safe_load(r.stdout)))

    def default_gw(self, state):
        """probes.go defaultGw: the first 0.0.0.0/0 or ::/0 of routes.running in table 254."""
        for route in state.get("routes", {}).get("running", []):
            if route.get("destination") in ("0.0.0.0/0", "::/0") and route.get("table-id") == 254:
                return route.get("next-hop-address"), route.get("next-hop-interface")
        return None, None

    def ping_probe(self):
        """probes.go runPing: ping -I IFACE -c 1 GW, the gateway read from nmstatectl show."""
        gw, iface = self.default_gw(self.show())
        if gw is None:
            return False
        return subprocess.run(["ip", "netns", "exec", NODE, "ping", "-I", iface, "-c", "1", "-W", "1", gw], capture_output=True).returncode == 0

    def policy(self, desired):
        """generate.go GenerateState: nmstatectl policy --current F --json --output-captured F POLICY."""
        files = {}
        for name, content in (("policy", json.dumps({"desiredState": desired})), ("currentState", yaml.safe_dump(self.show())), ("capturedState", "")):
            files[name] = os.path.join(self.tmp, name)
            with open(files[name], "w") as f:
                f.write(content)
        r = self.nmstatectl("policy", "--current", files["currentState"], "--json", "--output-captured", files["capturedState"], files["policy"])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(files["capturedState"]) as f:
            self.assertEqual(json.load(f), {})  # json.Unmarshal(capturedStateRaw, &capturedState)
        return r.stdout

    def apply_no_commit(self, desired_text):
        """nmstatectl.go Set: apply --no-commit --timeout N, the state on stdin."""
        return self.nmstatectl("apply", "--no-commit", "--timeout", HANDLER_TIMEOUT, stdin=desired_text)

    def desired(self, gateway):
        return {
            "interfaces": [{"name": "eth1", "type": "veth", "state": "up",
                            "ipv4": {"enabled": True, "dhcp": False, "address": [{"ip": "192.0.2.1", "prefix-length": 24}]}}],
            "routes": {"config": [{"destination": "0.0.0.0/0", "next-hop-address": gateway, "next-hop-interface": "eth1"}]},
        }

    def test_version_and_health_check(self):
        r = self.nmstatectl("--version")  # node_controller.go getDependencyVersions
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("fastlink", r.stdout)
        r = self.nmstatectl("show", "-vvv")  # main.go checkNmstateIsWorking
        self.assertEqual(r.returncode, 0, r.stderr)
        # show IFNAME (a glob, as nmstate's): only those interfaces.
        shown = yaml.safe_load(self.nmstatectl("show", "eth*").stdout)
        self.assertEqual([i["name"] for i in shown["interfaces"]], ["eth1"])

    def test_show_gives_dns_from_resolv_conf_and_the_default_route(self):
        state = self.show()
        servers = state["dns-resolver"]["running"]["server"]  # gjson dns-resolver.running.server
        self.assertEqual(servers, ["192.0.2.53", "2001:db8::53"])
        self.assertEqual(state["dns-resolver"]["running"]["search"], ["cluster.local", "example.org"])
        with eth1_configured_by_hand("192.0.2.1/24", "default", "via", "192.0.2.254", "dev", "eth1", "proto", "dhcp", "metric", "100"):
            gw, iface = self.default_gw(self.show())
            self.assertEqual((gw, iface), ("192.0.2.254", "eth1"))
            self.assertTrue(self.ping_probe())

    def test_apply_probe_commit(self):
        """client.go ApplyDesiredState with probes that pass: rollback, policy, apply, probe, commit."""
        before = node_dump()
        self.nmstatectl("rollback")  # "Rollback before Apply to remove pending checkpoints": fails, ignored
        desired = self.policy(self.desired("192.0.2.254"))
        r = self.apply_no_commit(desired)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.ping_probe())
        r = self.nmstatectl("commit")
        self.assertEqual(r.returncode, 0, r.stderr)
        route = ip_json("route", "show", "default")
        self.assertEqual([(x["gateway"], x["dev"]) for x in route], [("192.0.2.254", "eth1")])
        # The handler enacts the same policy again (a restart): nothing to change, and the
        # commit that follows succeeds as nmstate's would.
        r = self.apply_no_commit(desired)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        r = self.nmstatectl("commit")
        self.assertEqual(r.returncode, 0, r.stderr)
        # Committed: no journal is left to roll back.
        self.assertEqual(self.nmstatectl("rollback").returncode, 1)
        self.assertEqual(ip_json("addr", "show", "dev", "eth1")[0]["addr_info"][0]["local"], "192.0.2.1")
        # Back to the start for the other tests (a plain apply: no --no-commit, committed at once).
        r = self.nmstatectl("apply", stdin=yaml.safe_dump({
            "interfaces": [{"name": "eth1", "type": "veth", "state": "down", "ipv4": {"enabled": False}}],
            "routes": {"config": [{"destination": "0.0.0.0/0", "state": "absent"}]}}))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(node_dump(), before)

    def test_apply_whose_probe_fails_is_rolled_back(self):
        """client.go rollback(): the ping probe fails (no gateway at .99), nmstatectl rollback restores."""
        before = node_dump()
        r = self.apply_no_commit(self.policy(self.desired("192.0.2.99")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotEqual(node_dump(), before)
        self.assertFalse(self.ping_probe())
        r = self.nmstatectl("rollback")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(node_dump(), before)

    def test_apply_without_commit_rolls_back_at_the_timeout(self):
        """The checkpoint's timeout: the handler died between apply and commit."""
        before = node_dump()
        r = self.nmstatectl("apply", "--no-commit", "--timeout", "1", stdin=json.dumps(self.desired("192.0.2.254")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotEqual(node_dump(), before)
        deadline = time.time() + 15
        while node_dump() != before and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(node_dump(), before)

    def test_show_piped_to_set_changes_nothing(self):
        with eth1_configured_by_hand("198.51.100.1/24", "203.0.113.0/24", "via", "198.51.100.254", "proto", "static"):
            before = settled_dump()
            shown = self.nmstatectl("show")
            self.assertEqual(shown.returncode, 0, shown.stderr)
            r = self.nmstatectl("set", stdin=shown.stdout)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "", "set printed a plan: it changed something")
            self.assertEqual(node_dump(), before)

    def test_refusals_and_exit_statuses(self):
        before = node_dump()
        # An unknown key is an error naming its path, nothing changed: exit 1 as nmstate's.
        r = self.apply_no_commit("interfaces:\n  - name: eth1\n    type: veth\n    mtu-typo: 9000\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("interfaces[0].mtu-typo: unknown key", r.stderr)
        # A key nmstate configures with and fastlink does not act on: refused by name, never ignored.
        # (Bridge port VLANs, which the handler adds to every port of an up bridge, are applied:
        # tests/cli/apply_cli_test.cpp in the VM, as this host's bridges cannot filter VLANs.)
        r = self.apply_no_commit("interfaces:\n  - name: eth1\n    type: veth\n    ethtool: {feature: {tso: false}}\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("interfaces[0].ethtool: not applied by fastlink", r.stderr)
        r = self.nmstatectl("apply", "--no-commit", "--timeout", "ten", stdin="{}")
        self.assertEqual(r.returncode, 65)  # EX_DATAERR, as apply.rs
        self.assertEqual(self.nmstatectl("frobnicate").returncode, 2)  # clap's usage error
        r = self.nmstatectl("st", "-", stdin="{}")  # statistic: the handler logs the failure and goes on
        self.assertEqual(r.returncode, 1)
        self.assertIn("not supported", r.stderr)
        self.assertEqual(self.nmstatectl("commit").returncode, 1)  # no checkpoint
        self.assertEqual(node_dump(), before)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: nmstatectl_handler_test.py FASTLINK_BINARY [unittest args]")
    if os.geteuid() != 0:
        print("nmstatectl_handler_test: needs root (network namespaces); skipped", file=sys.stderr)
        sys.exit(77)
    FASTLINK = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
