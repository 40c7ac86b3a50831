#!/bin/bash
# 100,000 u32 filters (issue 33): `fastlink -force -batch` against `tc -force -batch`, the same filters, each
# round from a fresh clsact qdisc, in a network namespace of its own (run as root):
#   ninja -C build fastlink_cli && sudo bench/tc_filter_bench.sh build/cli/fastlink [N] [REPS]
# Every filter is `ingress protocol ip pref P u32 match ip dst A/32 action mirred
# egress redirect dev v1` (a distinct address each). After each round `tc -j filter show`
# is counted (N rules + 2 table lines), so a round that added less does not count. Rounds
# alternate (fastlink, tc, fastlink, ...); the medians and their ratio are printed.
set -euo pipefail
if [ "${IN_NETNS:-}" != 1 ]; then exec unshare -n env IN_NETNS=1 "$0" "$@"; fi
fastlink=$(realpath "${1:?usage: $0 FASTLINK [N] [REPS]}")
n=${2:-100000}
reps=${3:-3}
dir=$(mktemp -d /tmp/tc_filter_bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ip link add v0 type veth peer name v1
ip link set v0 up && ip link set v1 up
# The kernel numbers a u32 table's rules from 800 to fff (2048 per table, one table per pref):
# 2000 filters per pref, prefs 1..N/2000.
python3 - "$n" "$dir" <<'PY'
import sys
n, d = int(sys.argv[1]), sys.argv[2]
with open(d + "/tc", "w") as t, open(d + "/fl", "w") as f:
    for k in range(n):
        pref = 1 + k // 2000
        a = "10.%d.%d.%d" % (k >> 16 & 255, k >> 8 & 255, k & 255)
        line = "filter add dev v0 ingress protocol ip pref %d u32 match ip dst %s/32 action mirred egress redirect dev v1\n" % (pref, a)
        t.write(line)
        f.write("tc " + line)
PY
now() { date +%s.%N; }
round() {  # round fastlink|tc -> seconds
  tc qdisc del dev v0 clsact 2>/dev/null || true
  tc qdisc add dev v0 clsact
  local t0 t1
  t0=$(now)
  if [ "$1" = fastlink ]; then "$fastlink" -force -batch "$dir/fl" >/dev/null; else tc -force -batch "$dir/tc" >/dev/null; fi
  t1=$(now)
  local got
  got=$(tc -j filter show dev v0 ingress | python3 -c 'import json,sys; print(sum(1 for f in json.load(sys.stdin) if f.get("options",{}).get("actions")))')
  [ "$got" = "$n" ] || { echo "round $1 left $got filters, not $n" >&2; exit 1; }
  echo "$t1 - $t0" | bc
}
declare -a F T
for ((r = 0; r < reps; r++)); do
  F+=("$(round fastlink)")
  T+=("$(round tc)")
  echo "rep $((r + 1)): fastlink -batch ${F[-1]} s, tc -batch ${T[-1]} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mf=$(median "${F[@]}")
mt=$(median "${T[@]}")
echo "$n u32 filters with mirred, medians of $reps: fastlink -batch $mf s, tc -batch $mt s, tc/fastlink $(echo "scale=2; $mt / $mf" | bc)x"
tc qdisc del dev v0 clsact
