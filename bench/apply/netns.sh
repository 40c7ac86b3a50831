# The throwaway namespace of a bench/apply script (sourced; the script sets $ns and $work).

# Removes $ns. Bridges first: a namespace deleted with many bridges holds RTNL for minutes
# (docs/FACTS).
teardown() {
  ip netns list | grep -qw "$ns" || return 0
  ip -n "$ns" -o link show type bridge | awk -F': ' '{print "link del " $2}' > "$work/del" || true
  ip -n "$ns" -batch "$work/del" 2>/dev/null || true
  ip netns del "$ns"
}

# A fresh $ns without IPv6: the documents are IPv4, and the new devices' link-local addresses,
# multicast reports and routes would be the kernel's background work in every figure (and
# arrive after an apply or a rollback, in the dumps compared).
fresh() {
  ip netns add "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}
