#!/usr/bin/env bash
# An apply SIGKILLed half-way, then `fastlink rollback` (issue 26): the host must come back
# exactly, by `ip -j` dumps of links, addresses, routes of every table and rules taken before the
# apply and after the rollback (the oracle is iproute2, not fastlink).
#   bench/apply/kill_rollback.sh BUILD_DIR [PAIRS]     (run as root, e.g. inside scripts/sandbox)
# The host starts with PAIRS/2 veth pairs (up, mtu 1400, one address each, two routes through
# each); the document wants PAIRS pairs in bridges (mtu 1500, two other addresses each) and
# 2 x PAIRS other routes: creates, changes, address and route adds, ~7.5 steps a pair (the
# default 1340: a plan of ~10,000 steps; `apply --check` counts them). The host's devices are up
# because a device that was ever up keeps the qdisc it got (`ip link`: noop before, noqueue
# after), which no rollback takes away. The apply kills itself (FASTLINK_TEST_KILL_AFTER_STEPS,
# as the tests do) once half of the steps are answered. Exit 0 when the dumps are equal.
set -euo pipefail
build=$(realpath "$1")
pairs=${2:-1340}
fl=$build/cli/fastlink
work=$(mktemp -d /tmp/fastlink-bench-kill.XXXXXX)
ns=fl-bench-kill-$$
export FASTLINK_RUN_DIR=$work/run
trap 'teardown; rm -rf "$work"' EXIT

. "$(dirname "$0")/netns.sh"

# Links, addresses, every table's routes (sorted: the set must come back) and rules, one object
# a line (a difference is then a few lines).
lines() { python3 -c 'import json,sys; [print(json.dumps(o, sort_keys=True)) for o in json.load(sys.stdin)]'; }
dump() {
  ip -n "$ns" -j link show | lines
  ip -n "$ns" -j addr show | lines
  ip -n "$ns" -j route show table all | lines | sort
  ip -n "$ns" -j rule show | lines
}

fresh
ip -n "$ns" link set lo up

half=$((pairs / 2))
bridges=$(( (pairs + 499) / 500 ))
awk -v half="$half" 'BEGIN {
  for (i = 0; i < half; i++) {
    printf "link add va%d mtu 1400 type veth peer name vb%d mtu 1400\n", i, i
    printf "link set vb%d up\nlink set va%d up\naddr add 12.%d.%d.1/32 dev vb%d\n", i, i, int(i / 250), i % 250, i
    printf "route add 192.168.%d.%d/32 dev vb%d proto static\n", int(i / 250), i % 250, i
    printf "route add 172.16.%d.%d/32 dev vb%d proto static\n", int(i / 256), i % 256, i
  }
}' > "$work/host.batch"
awk -v pairs="$pairs" -v bridges="$bridges" 'BEGIN {
  print "interfaces:"
  for (j = 0; j < bridges; j++) printf "  - {name: br%d, type: linux-bridge, state: up}\n", j
  for (i = 0; i < pairs; i++) {
    printf "  - {name: va%d, type: veth, state: up, mtu: 1500, controller: br%d, veth: {peer: vb%d}}\n", i, int(i / 500), i
    printf "  - {name: vb%d, type: veth, state: up, mtu: 1500, ipv4: {enabled: true, address: [{ip: 10.%d.%d.1, prefix-length: 32}, {ip: 11.%d.%d.1, prefix-length: 32}]}}\n", \
      i, int(i / 250), i % 250, int(i / 250), i % 250
  }
  print "routes:"; print "  config:"
  for (k = 0; k < 2 * pairs; k++)
    printf "    - {destination: 172.%d.%d.%d/32, next-hop-interface: vb%d, metric: 7}\n", 17 + int(k / 65536), int(k / 256) % 256, k % 256, k % pairs
}' > "$work/state.yaml"
"$fl" -n "$ns" -batch "$work/host.batch" > /dev/null
dump > "$work/before"

steps=$("$fl" -n "$ns" apply --check "$work/state.yaml" | wc -l) || true
kill_at=$((steps / 2))
start=$(date +%s.%N)
status=0
FASTLINK_TEST_KILL_AFTER_STEPS=$kill_at "$fl" -n "$ns" apply "$work/state.yaml" > /dev/null 2>&1 || status=$?
killed=$(date +%s.%N)
left=$("$fl" -n "$ns" apply --check "$work/state.yaml" | wc -l) || true
/usr/bin/time -f '%e %U %S' -o "$work/time" "$fl" -n "$ns" rollback > /dev/null
read -r wall user sys < "$work/time"
dump > "$work/after"

printf 'plan of %d steps (%d pairs wanted, %d on the host); SIGKILL after %d answered (apply exit %d, %.2f s); %d steps left undone\n' \
  "$steps" "$pairs" "$half" "$kill_at" "$status" "$(echo "$killed - $start" | bc)" "$left"
printf 'rollback %.3f s wall %.3f s cpu\n' "$wall" "$(echo "$user + $sys" | bc)"
if [ "$status" -ne 137 ]; then echo "FAIL: the apply was not killed (exit $status)"; exit 1; fi
if cmp -s "$work/before" "$work/after"; then
  echo "dumps before the apply and after the rollback: equal ($(wc -c < "$work/before") bytes of ip -j)"
else
  echo "FAIL: the dumps differ:"; diff "$work/before" "$work/after" | head -20; exit 1
fi
