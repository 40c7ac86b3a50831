// The state document's reader and writer (src/state/state_document.cpp): every key of every
// section and options subtree is read from, and written back in the order of, its table. The
// goldens are what main wrote before the keys moved onto tables (issue 31): the YAML `show state`
// and the journal's undo.yaml are made of, and the errors with their paths.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "fastlink/error.hpp"
#include "fastlink/state.hpp"

namespace fastlink {
namespace {

// Every key the reader takes, in every section and subtree (the kinds this host may lack too:
// reading and writing need no kernel).
constexpr const char* kEveryKey = R"(fastlink-apply:
  mode: merged
  owned-interfaces: ["d*", "b*"]
  ignore: ["ignored*"]
  route-protocol: static
  route-tables: [254, 100]
interfaces:
  - name: d0
    type: dummy
    state: up
    mtu: 1400
    mac-address: "02:00:00:00:00:01"
    description: first dummy
    fastlink-group: 7
    fastlink-ifindex: 300
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 10.9.0.1
          prefix-length: 24
    ipv6:
      enabled: true
      autoconf: false
      address:
        - ip: "2001:db8::1"
          prefix-length: 64
  - name: br0
    type: linux-bridge
    state: up
    bridge:
      options:
        stp:
          enabled: false
        fastlink-vlan-filtering: true
        vlan-protocol: 802.1q
      port:
        - name: p0
          vlan:
            mode: trunk
            enable-native: true
            tag: 10
            trunk-tags:
              - id: 20
              - id-range: {min: 30, max: 40}
        - name: p1
          vlan:
            mode: access
            tag: 5
        - name: p2
          vlan:
            fastlink-vlans:
              - {id: 7, pvid: true, untagged: false}
              - {id-range: {min: 100, max: 110}, untagged: true}
  - {name: p0, type: dummy, state: up, controller: br0}
  - {name: p1, type: dummy, state: up}
  - {name: p2, type: dummy, state: down}
  - name: bond0
    type: bond
    state: up
    link-aggregation:
      mode: active-backup
      options: {miimon: 100}
      port: [p3]
  - {name: p3, type: dummy, state: down}
  - name: vl10
    type: vlan
    vlan: {base-iface: d0, id: 10, protocol: 802.1q}
  - name: vx0
    type: vxlan
    vxlan: {id: 42, base-iface: d0, remote: 10.9.0.2, local: 10.9.0.1, destination-port: 4789}
  - name: vrf1
    type: vrf
    vrf: {route-table-id: 100, port: [p4]}
  - {name: p4, type: dummy}
  - name: ve0
    type: veth
    veth: {peer: ve1}
  - name: mv0
    type: mac-vlan
    mac-vlan: {base-iface: d0, mode: bridge}
  - {name: gone0, state: absent}
routes:
  config:
    - {destination: 10.20.0.0/16, next-hop-address: 10.9.0.254, next-hop-interface: d0, metric: 50, table-id: 254}
    - {destination: 10.21.0.0/16, next-hop-interface: d0, fastlink-protocol: bgp, table-id: 100}
    - {destination: 10.22.0.0/16, state: absent}
    - {destination: "2001:db8:1::/48", next-hop-interface: d0}
  running: []
route-rules:
  config:
    - {ip-from: 10.9.0.0/24, priority: 1000, route-table: 100}
    - {ip-to: 10.30.0.0/16, family: ipv4, priority: 1001, route-table: 100, fwmark: 5, fwmask: 255}
    - {family: ipv6, priority: 1002, route-table: 100}
    - {priority: 1003, state: absent}
dns-resolver:
  running: {}
)";

constexpr const char* kWritten = R"(interfaces:
  - name: d0
    type: dummy
    state: up
    mtu: 1400
    mac-address: 02:00:00:00:00:01
    description: first dummy
    fastlink-group: 7
    fastlink-ifindex: 300
    ipv4:
      enabled: true
      address:
        - ip: 10.9.0.1
          prefix-length: 24
    ipv6:
      enabled: true
      address:
        - ip: 2001:db8::1
          prefix-length: 64
  - name: br0
    type: linux-bridge
    state: up
    bridge:
      options:
        stp:
          enabled: false
        fastlink-vlan-filtering: true
      port:
        - name: p0
          vlan:
            mode: trunk
            trunk-tags:
              - id: 20
              - id-range:
                  min: 30
                  max: 40
            enable-native: true
            tag: 10
        - name: p1
          vlan:
            mode: access
            tag: 5
        - name: p2
          vlan:
            fastlink-vlans:
              - id: 7
                pvid: true
                untagged: false
              - id-range:
                  min: 100
                  max: 110
                pvid: false
                untagged: true
  - name: p0
    type: dummy
    state: up
    controller: br0
  - name: p1
    type: dummy
    state: up
  - name: p2
    type: dummy
    state: down
  - name: bond0
    type: bond
    state: up
    link-aggregation:
      mode: active-backup
      options:
        miimon: 100
      port:
        - p3
  - name: p3
    type: dummy
    state: down
  - name: vl10
    type: vlan
    state: up
    vlan:
      base-iface: d0
      id: 10
  - name: vx0
    type: vxlan
    state: up
    vxlan:
      id: 42
      base-iface: d0
      remote: 10.9.0.2
      local: 10.9.0.1
      destination-port: 4789
  - name: vrf1
    type: vrf
    state: up
    vrf:
      route-table-id: 100
      port:
        - p4
  - name: p4
    type: dummy
    state: up
  - name: ve0
    type: veth
    state: up
    veth:
      peer: ve1
  - name: mv0
    type: mac-vlan
    state: up
    mac-vlan:
      base-iface: d0
      mode: bridge
  - name: gone0
    state: absent
routes:
  config:
    - destination: 10.20.0.0/16
      next-hop-address: 10.9.0.254
      next-hop-interface: d0
      metric: 50
      table-id: 254
    - destination: 10.21.0.0/16
      next-hop-interface: d0
      table-id: 100
      fastlink-protocol: bgp
    - destination: 10.22.0.0/16
      table-id: 254
      state: absent
    - destination: 2001:db8:1::/48
      next-hop-interface: d0
      table-id: 254
route-rules:
  config:
    - family: ipv4
      ip-from: 10.9.0.0/24
      priority: 1000
      route-table: 100
    - family: ipv4
      ip-to: 10.30.0.0/16
      priority: 1001
      route-table: 100
      fwmark: 5
      fwmask: 255
    - family: ipv6
      priority: 1002
      route-table: 100
    - family: ipv4
      priority: 1003
      state: absent
)";

TEST(StateDocument, EveryKeyIsWrittenBackInItsTablesOrder) {
  State state = State::parse(kEveryKey, "test");
  EXPECT_EQ(state.toYaml(), kWritten);
  // What is written reads back as the same document.
  EXPECT_EQ(State::parse(state.toYaml(), "again").toYaml(), kWritten);
}

TEST(StateDocument, AnAbsentDeviceNeedsNoOptions) {
  // As a rollback's journal lists the devices its apply created.
  constexpr const char* kAbsent = R"(interfaces:
  - name: v0
    type: vlan
    state: absent
  - name: x0
    type: vxlan
    state: absent
  - name: r0
    type: vrf
    state: absent
  - name: m0
    type: mac-vlan
    state: absent
routes:
  config:
    []
route-rules:
  config:
    []
)";
  EXPECT_EQ(State::parse(kAbsent, "test").toYaml(), kAbsent);
}

TEST(StateDocument, ErrorsNameTheKeyTheTableDeclares) {
  const std::pair<const char*, const char*> kCases[] = {
    {"interfaces:\n  - {name: v0, type: vlan}\n",
     "interfaces[0].vlan: missing (a vlan needs base-iface and id) (in test)"},
    {"interfaces:\n  - {name: x0, type: vxlan, vxlan: {base-iface: d0}}\n",
     "interfaces[0].vxlan.id: missing (in test)"},
    {"interfaces:\n  - {name: d0, type: dummy, mtu: 70000}\n",
     "interfaces[0].mtu: 70000 is not in 68-65536 (in test)"},
    {"interfaces:\n  - {name: b0, type: bond, link-aggregation: {mode: fastest}}\n",
     "interfaces[0].link-aggregation.mode: unknown bond mode \"fastest\" (in test)"},
    {"interfaces:\n  - {name: d0, type: dummy, state: sideways}\n",
     "interfaces[0].state: expected up, down or absent, got \"sideways\" (in test)"},
    {"interfaces:\n  - {name: d0, type: dummy, controller: \"has space\"}\n",
     "interfaces[0].controller: invalid interface name \"has space\": contains whitespace (in test)"},
    {"interfaces:\n  - {name: d0, type: dummy, fastlink-ifindex: 0}\n",
     "interfaces[0].fastlink-ifindex: 0 is not in 1-2147483647 (in test)"},
    {"routes:\n  config:\n    - {destination: 10.0.0.0/8, next-hop-interface: d0, fastlink-protocol: nosuchproto}\n",
     "routes.config[0].fastlink-protocol: unknown route protocol \"nosuchproto\" (not a number 0-255, and not named in rt_protos) (in test)"},
    {"route-rules:\n  config:\n    - {priority: 5, route-table: 100, family: ipv5}\n",
     "route-rules.config[0].family: expected ipv4 or ipv6, got \"ipv5\" (in test)"},
    {"fastlink-apply: {route-tables: [254, 0]}\n",
     "fastlink-apply.route-tables[1]: 0 is not in 1-4294967295 (in test)"},
    {"interfaces:\n  - name: br0\n    type: linux-bridge\n    bridge: {port: [{name: p0, vlan: {mode: trunk, trunk-tags: [{id-range: {min: 9, max: 3}}]}}]}\n",
     "interfaces[0].bridge.port[0].vlan.trunk-tags[0].id-range: min 9 is above max 3 (in test)"},
    {"interfaces:\n  - {name: v0, type: vlan, vlan: {base-iface: d0, id: 5, protocol: 802.1ad}}\n",
     "interfaces[0].vlan.protocol: only 802.1q is supported (in test)"},
    {"interfaces:\n  - {name: m0, type: mac-vlan, mac-vlan: {base-iface: d0, mode: loud}}\n",
     "interfaces[0].mac-vlan.mode: unknown mac-vlan mode \"loud\" (in test)"},
    {"interfaces:\n  - {name: d0, type: dummy, vrf: {route-table-id: 5}}\n",
     "interfaces[0].vrf: not an option of type dummy (in test)"},
    {"fastlink-apply: {mode: sometimes}\n",
     "fastlink-apply.mode: expected merged, replaced or overridden, got \"sometimes\" (in test)"},
    {"interfaces:\n  - {name: br0, type: linux-bridge, bridge: {options: {stp: {enabled: maybe}}}}\n",
     "interfaces[0].bridge.options.stp.enabled: expected true or false, got \"maybe\" (in test)"},
  };
  for (const auto& [text, expected] : kCases) {
    try {
      State::parse(text, "test");
      ADD_FAILURE() << "parsed: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), expected) << text;
    }
  }
}

}  // namespace
}  // namespace fastlink
