#!/bin/sh
# needs: vrf
# A VRF lab: two tenants with overlapping addresses, each in its VRF with its own table,
# the l3mdev rule, routes in each VRF, and the lookups a lab exercise checks.
set -e
for t in red blue; do
	case $t in red) tab=10 ;; blue) tab=20 ;; esac
	ip link add vrf-$t type vrf table $tab
	ip link set vrf-$t up
	ip link add $t-in type veth peer name $t-out
	ip link set $t-in master vrf-$t
	ip link set $t-in up
	ip link set $t-out up
	ip addr add 172.16.0.1/24 dev $t-in
	ip route add 10.$tab.0.0/16 via 172.16.0.254 table $tab
done
ip route add unreachable default metric 4278198272 table 10
ip -o link show type vrf | awk '{print $2, $3}'
ip -d link show vrf-blue
ip route show table 10
ip route show table 20
ip route get 10.20.1.1 vrf vrf-blue
ip link set blue-in nomaster
ip -o addr show dev blue-in
ip rule show
