#!/bin/bash
# User-space instructions (callgrind, whole process) of `route show` and `-j route show` over N
# routes, for each fastlink binary given (e.g. main's and a branch's), and the last one's output
# compared with ip's (JSON byte for byte; text without ip's blank at the end of each line).
# Callgrind counts do not move with the machine's load, where wall time on shared 2-vCPU hosts does.
#   sudo scripts/sandbox bench/cli/route_instructions.sh N FASTLINK [FASTLINK...]
# Runs in the namespace scripts/sandbox creates (and removes): routes in table 100 via a gateway on
# a veth, as bench/cli/run's dump case.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,8p "$0"; exit 2; }
n=$1; shift
work=$(mktemp -d /tmp/route-instructions.XXXXXX)
trap 'rm -rf "$work"' EXIT
ip link add v0 type veth peer name v1
ip link set v0 up; ip link set v1 up; ip addr add 10.0.0.1/24 dev v0
for ((i = 0; i < n; i++)); do
  a=$((0x14000000 + (i << 8)))
  echo "route add $((a >> 24)).$(((a >> 16) & 255)).$(((a >> 8) & 255)).0/24 via 10.0.0.2 table 100"
done > "$work/batch"
ip -batch "$work/batch"
for bin in "$@"; do
  for args in "route show table 100" "-j route show table 100"; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$bin" $args > /dev/null 2> "$work/err"
    echo "$bin $args: $(grep -o 'Collected : [0-9]*' "$work/err" | cut -d' ' -f3) instructions"
  done
done
last=${!#}
cmp <("$last" -j route show table 100) <(ip -j route show table 100) && echo "-j route show: same bytes as ip -j"
cmp <("$last" route show table 100) <(ip route show table 100 | sed 's/ $//') && echo "route show: same bytes as ip (line-end blank aside)"
