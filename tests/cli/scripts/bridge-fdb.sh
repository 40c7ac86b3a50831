#!/bin/sh
# A bridge with static forwarding entries: ports, permanent and static entries on ports,
# one removed again, the bridge's view of them; with VLAN filtering when the kernel has it.
set -e
ip link add br0 address 02:00:00:bb:00:01 type bridge ageing_time 30000
for p in 1 2; do
	ip link add p$p type veth peer name p$p-h
	ip link set p$p master br0 up
	ip link set p$p-h up
done
ip link set br0 up
bridge fdb add 02:00:00:aa:00:01 dev p1 master static
bridge fdb add 02:00:00:aa:00:02 dev p2 master static
bridge fdb add 02:00:00:aa:00:03 dev p2 master
bridge fdb replace 02:00:00:aa:00:02 dev p1 master static
bridge fdb del 02:00:00:aa:00:03 dev p2 master
bridge fdb show br br0 | grep 02:00:00:aa
bridge -j fdb show dev p1 | grep -c 02:00:00:aa:00:0
ip -o link show master br0 | awk '{print $2, $3}'
