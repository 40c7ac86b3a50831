# The throwaway namespace of a bench/apply script (sourced; the script sets $ns and $work).

# Removes $ns: each bridge port released by a request of its own (`link set P nomaster`), then
# the empty bridges, then the namespace. A port's removal waits for an expedited RCU grace period
# (netdev_rx_handler_unregister) with RTNL held, so deleting a bridge holds RTNL for all its
# ports, and deleting the namespace with its bridges for all ports of all of them: 20 bridges of
# 500 ports held RTNL for ~40 minutes at load 20-48 (stop 37), stalling every other test on the
# machine. One request a port holds it for one grace period and lets everybody else's RTNL users
# in between. Measured with 2 bridges of 500 ports, three runs each at load 7-13 (a probe taking
# RTNL every 20 ms): the probe's longest wait 55-99 ms against 164-329 ms for deleting the
# bridges (a bridge's whole hold; it grows with its ports and the grace period's length), the
# teardown 0.6-1.0 s against 0.4-0.7 s. Also the EXIT trap's: a failing run (or one ended by SIGINT, SIGTERM or
# SIGHUP, after which bash runs the trap) cleans up too.
teardown() {
  ip netns list | grep -qw "$ns" || return 0
  ip -n "$ns" -o link show | awk -F': ' '/ master / {sub(/@.*/, "", $2); print "link set " $2 " nomaster"}' > "$work/del" || true
  ip -n "$ns" -o link show type bridge | awk -F': ' '{print "link del " $2}' >> "$work/del" || true
  ip -n "$ns" -force -batch "$work/del" 2>/dev/null || true
  ip netns del "$ns"
}

# A fresh $ns without IPv6: the documents are IPv4, and the new devices' link-local addresses,
# multicast reports and routes would be the kernel's background work in every figure (and
# arrive after an apply or a rollback, in the dumps compared).
fresh() {
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}
