#!/bin/sh
# Container networking the way a CNI bridge plugin does it: a bridge on the host, one veth pair
# per container with the container's end moved into its namespace (made by the runtime: $C1, $C2),
# addresses, default routes, and a host route to a second subnet through container 1.
set -e
ip link add cni0 address 02:00:00:88:00:01 type bridge
ip addr add 10.88.0.1/16 dev cni0
ip link set cni0 up
for n in 1 2; do
	eval ns=\$C$n
	ip link add veth$n type veth peer name eth0 netns "$ns"
	ip link set veth$n master cni0 up
	ip -n "$ns" addr add 10.88.0.$((n + 1))/16 dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" route add default via 10.88.0.1
done
ip route add 10.89.0.0/24 via 10.88.0.2
ip -o link show master cni0 | awk '{print $2, $3, $5}'
ip -n "$C1" -4 -o addr show dev eth0
ip -n "$C2" route show
ip route get 10.89.0.7
