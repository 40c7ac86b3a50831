#!/usr/bin/env bash
# fastlink apply against the equivalent fastlink -batch and the raw floor (issue 26), in a
# throwaway namespace.
#   bench/apply/run.sh BUILD_DIR [PAIRS] [ROUTES]     (run as root, e.g. inside scripts/sandbox)
# PAIRS veth pairs (default 10000: 20,000 veths and 20 bridges), each vaI in bridge brJ (500
# ports a bridge), vbI up with two IPv4 addresses (2 x PAIRS addresses), and ROUTES routes
# (default 10 x PAIRS) spread over the vbI. Times: apply from empty, the same -batch from empty,
# a second apply (no change: the change requests it sends are counted on the wire by
# tests/support/wire_observer's preload library), and a one-field change (one request). The
# floor: raw_floor's pipelined libmnl for the same requests' bulk (the veth pairs) and for the
# dumps a no-op apply reads (links, addresses, routes).
set -euo pipefail
build=$(realpath "$1")
pairs=${2:-10000}
routes=${3:-$((10 * pairs))}
fl=$build/cli/fastlink
raw=$build/bench/raw_floor
preload=$build/tests/libfastlink_wire_preload.so
work=$(mktemp -d /tmp/fastlink-bench-apply.XXXXXX)
ns=fl-bench-apply-$$
# The journal each apply writes before its first change (docs/cli/apply.md): here, not in /run.
export FASTLINK_RUN_DIR=$work/run
trap 'teardown; rm -rf "$work"' EXIT

. "$(dirname "$0")/netns.sh"

bridges=$(( (pairs + 499) / 500 ))
# vbI: 10.A.B.1/32 and 11.A.B.1/32; route K: 172.16.0.0/12's K-th /32 via vb(K mod PAIRS).
awk -v pairs="$pairs" -v bridges="$bridges" -v routes="$routes" 'BEGIN {
  print "interfaces:"
  for (j = 0; j < bridges; j++) printf "  - {name: br%d, type: linux-bridge, state: up}\n", j
  for (i = 0; i < pairs; i++) {
    printf "  - {name: va%d, type: veth, state: up, controller: br%d, veth: {peer: vb%d}}\n", i, int(i / 500), i
    printf "  - {name: vb%d, type: veth, state: up, ipv4: {enabled: true, address: [{ip: 10.%d.%d.1, prefix-length: 32}, {ip: 11.%d.%d.1, prefix-length: 32}]}}\n", \
      i, int(i / 250), i % 250, int(i / 250), i % 250
  }
  if (routes > 0) { print "routes:"; print "  config:" }
  for (k = 0; k < routes; k++)
    printf "    - {destination: 172.%d.%d.%d/32, next-hop-interface: vb%d}\n", 16 + int(k / 65536), int(k / 256) % 256, k % 256, k % pairs
}' > "$work/state.yaml"
awk -v pairs="$pairs" -v bridges="$bridges" -v routes="$routes" 'BEGIN {
  for (i = 0; i < pairs; i++) printf "link add va%d type veth peer name vb%d\n", i, i
  for (j = 0; j < bridges; j++) printf "link add br%d type bridge\n", j
  for (i = 0; i < pairs; i++) printf "link set va%d master br%d\n", i, int(i / 500)
  for (j = 0; j < bridges; j++) printf "link set br%d up\n", j
  for (i = 0; i < pairs; i++) printf "link set vb%d up\nlink set va%d up\n", i, i
  for (i = 0; i < pairs; i++) printf "addr add 10.%d.%d.1/32 dev vb%d\naddr add 11.%d.%d.1/32 dev vb%d\n", int(i / 250), i % 250, i, int(i / 250), i % 250, i
  for (k = 0; k < routes; k++)
    printf "route add 172.%d.%d.%d/32 dev vb%d proto static\n", 16 + int(k / 65536), int(k / 256) % 256, k % 256, k % pairs
}' > "$work/batch"

# Wall seconds, and CPU seconds (user + system: the kernel does a netlink request's work in the
# sender's context) which the other load of a shared machine disturbs less.
# A command that fails ends the run (through the EXIT trap's teardown): `set -e` does not reach
# into the $(...) the figures are read with, so a failure would otherwise be timed as a result.
seconds() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > /dev/null || { echo "bench/apply/run.sh: failed: $*" >&2; return 1; }
  read -r wall user sys < "$work/time"
  echo "$wall $(echo "$user + $sys" | bc)"
}
changeRequests() { awk '/^requests /{r=$2} /^dumpRequests /{d=$2} END{print r - d}' "$1"; }

fresh
t_apply=$(seconds "$fl" -n "$ns" apply "$work/state.yaml")
teardown
fresh
t_batch=$(seconds "$fl" -n "$ns" -force -batch "$work/batch")
# The second apply on the host the batch made: nothing to change. The apply from empty cached the
# parsed document in $FASTLINK_RUN_DIR/documents: this one reads it (a hit). Then the same without
# the cache (another run directory: a miss, which parses and writes the cache).
t_again=$(seconds env FASTLINK_WIRE_LOG="$work/wire" LD_PRELOAD="$preload" "$fl" -n "$ns" apply "$work/state.yaml")
again_requests=$(changeRequests "$work/wire")
t_parse=$(seconds env FASTLINK_RUN_DIR="$work/run-uncached" "$fl" -n "$ns" apply "$work/state.yaml")
# The floor of a no-op apply: the three dumps it reads, by raw libmnl (names and indexes only).
t_dumps=$(seconds ip netns exec "$ns" sh -c "$raw list - skipstats && $raw dump addr && $raw dump route")
sed -i 's/name: vb7, type: veth, state: up,/name: vb7, type: veth, state: up, mtu: 9000,/' "$work/state.yaml"
t_one=$(seconds env FASTLINK_WIRE_LOG="$work/wire1" LD_PRELOAD="$preload" "$fl" -n "$ns" apply "$work/state.yaml")
one_requests=$(changeRequests "$work/wire1")
teardown
# The floor of the bulk of the apply from empty: the veth pairs alone, raw.
fresh
t_rawveth=$(seconds ip netns exec "$ns" "$raw" create-veth rv "$pairs")
teardown

printf 'pairs %d: %d interfaces, %d addresses, %d routes\n' "$pairs" $((2 * pairs + bridges)) $((2 * pairs)) "$routes"
show() { set -- $1; printf '%8.3f s wall %8.3f s cpu' "$1" "$2"; }
cpu() { set -- $1; echo "$2"; }
ratio() { echo "$(cpu "$1") / $(cpu "$2")" | bc -l | xargs printf '%.2f'; }
printf 'apply from empty  %s   apply/batch cpu = %s\n' "$(show "$t_apply")" "$(ratio "$t_apply" "$t_batch")"
printf 'fastlink -batch   %s\n' "$(show "$t_batch")"
printf 'raw veth pairs    %s   (the floor of the pairs alone; batch/raw-pairs cpu = %s)\n' "$(show "$t_rawveth")" "$(ratio "$t_batch" "$t_rawveth")"
printf 'second apply      %s   change requests: %s   (parsed-document cache hit)\n' "$(show "$t_again")" "$again_requests"
printf '  the same, parsed %s   (no cache: a miss)\n' "$(show "$t_parse")"
printf 'raw dumps         %s   (links, addresses, routes; second-apply/raw cpu = %s)\n' "$(show "$t_dumps")" "$(ratio "$t_again" "$t_dumps")"
printf 'one-field change  %s   change requests: %s\n' "$(show "$t_one")" "$one_requests"
