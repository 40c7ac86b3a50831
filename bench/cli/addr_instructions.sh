#!/bin/bash
# User-space instructions (callgrind, whole process) of `addr show`, `-j addr show` and
# `-br addr show` over 2 * N veth devices with one IPv4 address each, for each fastlink binary
# given (e.g. main's and a branch's); the last one's output compared with ip's (JSON byte for
# byte; text without ip's blank at the end of each line). Callgrind counts do not move with the
# machine's load, where wall time on shared 2-vCPU hosts does.
#   sudo scripts/sandbox bench/cli/addr_instructions.sh N FASTLINK [FASTLINK...]
# Runs in the namespace scripts/sandbox creates (and removes); IPv6 is off in it, so no
# link-local address arrives while the binaries are compared.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,8p "$0"; exit 2; }
n=$1; shift
work=$(mktemp -d /tmp/addr-instructions.XXXXXX)
trap 'rm -rf "$work"' EXIT
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for ((i = 0; i < n; i++)); do
  echo "link add a$i type veth peer name b$i"
  echo "addr add 10.$((i >> 8 & 255)).$((i & 255)).1/24 dev a$i"
  echo "addr add 10.$((64 + (i >> 8 & 255))).$((i & 255)).1/24 dev b$i"
done > "$work/batch"
ip -batch "$work/batch"
for bin in "$@"; do
  for args in "addr show" "-j addr show" "-br addr show"; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$bin" $args > /dev/null 2> "$work/err"
    echo "$bin $args: $(grep -o 'Collected : [0-9]*' "$work/err" | cut -d' ' -f3) instructions"
  done
done
last=${!#}
cmp <("$last" -j addr show) <(ip -j addr show) && echo "-j addr show: same bytes as ip -j"
cmp <("$last" addr show) <(ip addr show | sed 's/ $//') && echo "addr show: same bytes as ip (line-end blank aside)"
cmp <("$last" -br addr show) <(ip -br addr show) && echo "-br addr show: same bytes as ip"
