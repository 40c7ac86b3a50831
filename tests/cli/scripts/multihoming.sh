#!/bin/sh
# Multi-homing without bonding: two uplinks, an ECMP default route with weights, a backup
# default with a higher metric, per-uplink source routes, and failover by hand (the first
# uplink's nexthop replaced).
set -e
ip link add isp1 type veth peer name isp1-gw
ip link add isp2 type veth peer name isp2-gw
for d in isp1 isp1-gw isp2 isp2-gw; do ip link set $d up; done
ip addr add 100.64.1.2/30 dev isp1
ip addr add 100.64.2.2/30 dev isp2
ip route add default metric 10 nexthop via 100.64.1.1 dev isp1 weight 3 nexthop via 100.64.2.1 dev isp2 weight 1
ip route add default via 100.64.2.1 dev isp2 metric 100
ip route add 198.18.0.0/15 via 100.64.1.1 src 100.64.1.2 proto static
ip route append 198.18.0.0/15 via 100.64.2.1 src 100.64.2.2 metric 5
ip route show
ip -j route show default
ip route replace default metric 10 via 100.64.2.1 dev isp2
ip route change 198.18.0.0/15 via 100.64.2.1 metric 0
ip route show
ip route del default metric 100
ip -4 route show default
