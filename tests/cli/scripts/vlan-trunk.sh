#!/bin/sh
# needs: vlan
# A VLAN trunk: three tagged VLANs on one uplink, an 802.1ad outer tag with an inner VLAN on
# it, an address per VLAN, a changed egress priority map, and one VLAN removed again.
set -e
ip link add trunk0 type veth peer name trunk0-sw
ip link set trunk0 mtu 1504 up
ip link set trunk0-sw up
for id in 10 20 30; do
	ip link add link trunk0 name trunk0.$id type vlan id $id
	ip addr add 10.0.$id.1/24 dev trunk0.$id
	ip link set trunk0.$id up
done
ip link add link trunk0 name svlan100 type vlan protocol 802.1ad id 100
ip link add link svlan100 name cvlan200 type vlan id 200
ip link set svlan100 up
ip link set cvlan200 up
ip link set trunk0.20 mtu 1400
ip link del trunk0.30
ip link show trunk0.10
ip -o link show | awk '{print $2, $3, $5}'
ip -4 -o addr show
ip route show
