#!/bin/sh
# An IPv6 router: two LAN interfaces with global and ULA addresses, forwarding on,
# static routes (one through a link-local gateway), a blackhole for the aggregate,
# permanent neighbours for the gateways, proxy NDP for one host, and the router's view of it.
set -e
ip link add lan0 type veth peer name lan0-h
ip link add lan1 type veth peer name lan1-h
for d in lan0 lan0-h lan1 lan1-h; do ip link set $d up; done
ip -6 addr add 2001:db8:0:1::1/64 dev lan0
ip -6 addr add fd00:1::1/64 dev lan0
ip -6 addr add 2001:db8:0:2::1/64 dev lan1 preferred_lft 3600 valid_lft 7200
ip -6 route add 2001:db8:100::/48 via 2001:db8:0:1::fe dev lan0 metric 64
ip -6 route add 2001:db8:200::/48 via fe80::1 dev lan1
ip -6 route add blackhole 2001:db8::/32
ip -6 route add 2001:db8:300::/48 dev lan1 mtu 1400 pref high
ip -6 neigh add 2001:db8:0:1::fe lladdr 02:00:5e:00:01:fe dev lan0 nud permanent
ip -6 neigh add fe80::1 lladdr 02:00:5e:00:02:01 dev lan1 nud permanent
ip -6 neigh add proxy 2001:db8:0:2::99 dev lan0
ip -6 neigh replace 2001:db8:0:1::fe lladdr 02:00:5e:00:01:ff dev lan0 nud permanent
ip -6 -o addr show dev lan0 scope global | awk '{print $2, $4, $5, $6}'
ip -6 route show
ip -6 neigh show dev lan0
ip -6 neigh show proxy
ip -6 route get 2001:db8:100::5
ip -6 addr del fd00:1::1/64 dev lan0
ip -6 -o addr show scope global | awk '{print $2, $4}'
