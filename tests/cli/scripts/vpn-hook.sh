#!/bin/sh
# A VPN up/down hook in wg-quick's style, on the tun device the VPN daemon made: the address
# and MTU, a full-tunnel default route in its own table, the rules that send everything else
# there (but not the tunnel's own marked packets, and not what main knows more precisely),
# then the down hook that undoes it all.
set -e
ip tuntap add dev tun0 mode tun
TABLE=51820
up() {
	ip -4 address add 10.66.0.2/32 peer 10.66.0.1 dev tun0
	ip link set mtu 1420 up dev tun0
	ip -6 address add fd66::2/64 dev tun0
	ip -4 route add 0.0.0.0/0 dev tun0 table $TABLE
	ip -6 route add ::/0 dev tun0 table $TABLE
	ip -4 rule add not fwmark $TABLE table $TABLE
	ip -4 rule add table main suppress_prefixlength 0
	ip -6 rule add not fwmark $TABLE table $TABLE
	ip -6 rule add table main suppress_prefixlength 0
}
down() {
	while ip -4 rule show 2>/dev/null | grep -q "lookup $TABLE"; do ip -4 rule delete table $TABLE; done
	while ip -4 rule show 2>/dev/null | grep -q "from all lookup main suppress_prefixlength 0"; do
		ip -4 rule delete table main suppress_prefixlength 0
	done
	while ip -6 rule show 2>/dev/null | grep -q "lookup $TABLE"; do ip -6 rule delete table $TABLE; done
	ip -6 rule delete table main suppress_prefixlength 0
	ip route flush table $TABLE
	ip -6 route flush table $TABLE
	ip address flush dev tun0
	ip link set tun0 down
}
up
ip -4 rule show
ip -6 rule show
ip route show table $TABLE
ip -4 addr show dev tun0
down
ip rule show
ip -6 rule show
ip -br addr show dev tun0
