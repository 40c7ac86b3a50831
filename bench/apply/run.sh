#!/usr/bin/env bash
# fastlink apply against the equivalent fastlink -batch (issue 26), in a throwaway namespace.
#   bench/apply/run.sh BUILD_DIR [PAIRS]     (run as root, e.g. inside scripts/sandbox)
# PAIRS veth pairs (default 10000), each vaI in bridge brJ (500 ports a bridge), vbI up with an
# IPv4 address. Times: apply from empty, the same -batch from empty, a second apply (no change;
# the change requests it sends are counted on the wire by tests/support/wire_observer's preload
# library), and a one-field change (one request).
set -euo pipefail
build=$(realpath "$1")
pairs=${2:-10000}
fl=$build/cli/fastlink
preload=$build/tests/libfastlink_wire_preload.so
work=$(mktemp -d /tmp/fastlink-bench-apply.XXXXXX)
ns=fl-bench-apply-$$
# The journal each apply writes before its first change (docs/cli/apply.md): here, not in /run.
export FASTLINK_RUN_DIR=$work/run
trap 'teardown; rm -rf "$work"' EXIT

teardown() {
  ip netns list | grep -qw "$ns" || return 0
  # Bridges first: a namespace deleted with many bridges holds RTNL for minutes (docs/FACTS).
  ip -n "$ns" -o link show type bridge | awk -F': ' '{print "link del " $2}' > "$work/del" || true
  ip -n "$ns" -batch "$work/del" 2>/dev/null || true
  ip netns del "$ns"
}

bridges=$(( (pairs + 499) / 500 ))
{
  echo "interfaces:"
  for ((j = 0; j < bridges; j++)); do printf '  - {name: br%d, type: linux-bridge, state: up}\n' "$j"; done
  for ((i = 0; i < pairs; i++)); do
    printf '  - {name: va%d, type: veth, state: up, controller: br%d, veth: {peer: vb%d}}\n' "$i" $((i / 500)) "$i"
    printf '  - {name: vb%d, type: veth, state: up, ipv4: {enabled: true, address: [{ip: 10.%d.%d.1, prefix-length: 32}]}}\n' \
      "$i" $((i / 250)) $((i % 250))
  done
} > "$work/state.yaml"
{
  for ((i = 0; i < pairs; i++)); do echo "link add va$i type veth peer name vb$i"; done
  for ((j = 0; j < bridges; j++)); do echo "link add br$j type bridge"; done
  for ((i = 0; i < pairs; i++)); do echo "link set va$i master br$((i / 500))"; done
  for ((j = 0; j < bridges; j++)); do echo "link set br$j up"; done
  for ((i = 0; i < pairs; i++)); do echo "link set vb$i up"; echo "link set va$i up"; done
  for ((i = 0; i < pairs; i++)); do echo "addr add 10.$((i / 250)).$((i % 250)).1/32 dev vb$i"; done
} > "$work/batch"

# Wall seconds, and CPU seconds (user + system: the kernel does a netlink request's work in the
# sender's context) which the other load of a shared machine disturbs less.
seconds() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > /dev/null
  read -r wall user sys < "$work/time"
  echo "$wall $(echo "$user + $sys" | bc)"
}

ip netns add "$ns"
t_apply=$(seconds "$fl" -n "$ns" apply "$work/state.yaml")
teardown
ip netns add "$ns"
t_batch=$(seconds "$fl" -n "$ns" -force -batch "$work/batch")
# The second apply on the host the batch made: nothing to change.
t_again=$(seconds env FASTLINK_WIRE_LOG="$work/wire" LD_PRELOAD="$preload" "$fl" -n "$ns" apply "$work/state.yaml")
again_requests=$(awk '/^requests /{r=$2} /^dumpRequests /{d=$2} END{print r - d}' "$work/wire")
sed -i 's/name: vb7, type: veth, state: up/name: vb7, type: veth, state: up, mtu: 9000/' "$work/state.yaml"
t_one=$(seconds env FASTLINK_WIRE_LOG="$work/wire1" LD_PRELOAD="$preload" "$fl" -n "$ns" apply "$work/state.yaml")
one_requests=$(awk '/^requests /{r=$2} /^dumpRequests /{d=$2} END{print r - d}' "$work/wire1")
printf 'pairs %d (%d interfaces, %d addresses)\n' "$pairs" $((2 * pairs + bridges)) "$pairs"
show() { set -- $1; printf '%8.3f s wall %8.3f s cpu' "$1" "$2"; }
cpu() { set -- $1; echo "$2"; }
printf 'apply from empty  %s\n' "$(show "$t_apply")"
printf 'fastlink -batch   %s   apply/batch cpu = %.2f\n' "$(show "$t_batch")" "$(echo "$(cpu "$t_apply") / $(cpu "$t_batch")" | bc -l)"
printf 'second apply      %s   change requests: %s\n' "$(show "$t_again")" "$again_requests"
printf 'one-field change  %s   change requests: %s\n' "$(show "$t_one")" "$one_requests"
