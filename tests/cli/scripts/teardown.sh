#!/bin/sh
# A cleanup script run on a half-configured host (it must not stop at what is missing):
# deletes its rules, routes, addresses and devices, each only if present, with ${IP}.
IP=${IP:-ip}
$IP link add tmp0 type veth peer name tmp0-peer
$IP link add tbr0 type bridge
$IP link set tmp0 master tbr0 up
$IP link set tbr0 up
$IP addr add 10.77.0.1/24 dev tbr0
$IP route add 10.78.0.0/16 via 10.77.0.2 table 77 onlink dev tbr0
$IP rule add from 10.77.0.0/24 lookup 77 pref 7700
$IP neigh add 10.77.0.2 lladdr 02:00:00:77:00:02 dev tbr0
echo "cleanup:"
$IP rule del pref 7700 && echo "rule removed"
$IP rule del pref 7700 2>/dev/null || echo "rule already gone ($?)"
$IP route flush table 77 && echo "table flushed"
$IP neigh del 10.77.0.2 dev tbr0 && echo "neighbour removed"
$IP neigh del 10.77.0.2 dev tbr0 2>/dev/null || echo "neighbour already gone ($?)"
$IP addr del 10.77.0.1/24 dev tbr0 && echo "address removed"
$IP addr del 10.77.0.1/24 dev tbr0 2>/dev/null || echo "address already gone ($?)"
$IP link del tmp0 && echo "veth removed"
$IP link del tmp0 2>/dev/null || echo "veth already gone ($?)"
$IP link set dev nosuch0 down 2>/dev/null || echo "nosuch0 missing ($?)"
$IP link del tbr0 && echo "bridge removed"
$IP -br link show
