#!/bin/sh
# needs-qdisc: fq_codel
# tc-dev: wan0
# Egress shaping as a home-router script does it: htb at the uplink rate, classes for
# interactive, bulk and default traffic, fq_codel leaves, u32 filters by port and TOS.
set -e
DEV=wan0
ip link add $DEV type veth peer name wan0-peer
ip link set $DEV up
tc qdisc add dev $DEV root handle 1: htb default 30 r2q 100
tc class add dev $DEV parent 1: classid 1:1 htb rate 20mbit ceil 20mbit
tc class add dev $DEV parent 1:1 classid 1:10 htb rate 5mbit ceil 20mbit prio 0
tc class add dev $DEV parent 1:1 classid 1:20 htb rate 10mbit ceil 20mbit prio 1
tc class add dev $DEV parent 1:1 classid 1:30 htb rate 5mbit ceil 15mbit prio 2
for c in 10 20 30; do
	tc qdisc add dev $DEV parent 1:$c handle $c: fq_codel limit 1000 target 5ms interval 100ms
done
tc filter add dev $DEV parent 1: protocol ip prio 1 u32 match ip dport 22 0xffff flowid 1:10
tc filter add dev $DEV parent 1: protocol ip prio 2 u32 match ip tos 0x10 0xff flowid 1:10
tc filter add dev $DEV parent 1: protocol ip prio 3 u32 match ip dport 80 0xffff flowid 1:20
tc class change dev $DEV parent 1:1 classid 1:30 htb rate 4mbit ceil 10mbit prio 2
tc qdisc show dev $DEV
tc class show dev $DEV
