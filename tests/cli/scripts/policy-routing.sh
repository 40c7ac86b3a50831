#!/bin/sh
# Source-based policy routing: two uplinks, one table each, rules by source, fwmark and
# destination, a prohibit for a management net, then the lookup for a few flows.
set -e
ip link add up0 type veth peer name up0-peer
ip link add up1 type veth peer name up1-peer
for d in up0 up0-peer up1 up1-peer; do ip link set $d up; done
ip addr add 192.0.2.10/24 dev up0
ip addr add 198.51.100.10/24 dev up1
ip route add default via 192.0.2.1 dev up0 table 100
ip route add 192.0.2.0/24 dev up0 src 192.0.2.10 table 100
ip route add default via 198.51.100.1 dev up1 table 101
ip route add prohibit 203.0.113.0/24 table 101
ip rule add from 192.0.2.10 lookup 100 pref 1000
ip rule add from 198.51.100.10 lookup 101 pref 1001
ip rule add fwmark 0x2/0xff lookup 101 pref 1100
ip rule add to 203.0.113.0/24 lookup 101 pref 1200
ip rule add iif up1 lookup 101 pref 1300
ip rule show
ip route show table 100
ip route show table 101
ip route get 8.8.8.8 from 198.51.100.10
ip route get 8.8.8.8 mark 2
ip rule del pref 1300
ip -j rule show pref 1200
