#!/bin/bash
# 100,000 u32 filters (issue 33): `fastlink -force -batch` against `tc -force -batch`, the same filters, each
# round from a fresh clsact qdisc, in a network namespace of its own (run as root):
#   ninja -C build fastlink_cli && sudo bench/tc_filter_bench.sh build/cli/fastlink [N] [REPS] [--counts]
# Every filter is `ingress protocol ip pref P u32 match ip dst A/32 action mirred
# egress redirect dev v1` (a distinct address each). After each round `tc -j filter show`
# is counted (N rules + 2 table lines), so a round that added less does not count. Rounds
# alternate (fastlink, tc, raw, fastlink, ...); the medians and their ratios are printed. The raw
# floor (bench/raw_floor u32-mirred, next to the CLI's build: build/bench/raw_floor) sends the same
# requests from hand-written libmnl, pipelined: what is left is the kernel's own work, which bounds
# the ratio any tool can reach against tc.
# --counts: each round also prints what its sender cost the kernel beyond the filters (perf stat:
# page faults, mmap/munmap/brk, read/write, sendto/recvmsg) and its peak RSS: under qemu TCG each
# fault and system call costs tens of microseconds (issue 33: fastlink against the raw floor).
set -euo pipefail
if [ "${IN_NETNS:-}" != 1 ]; then exec unshare -n env IN_NETNS=1 "$0" "$@"; fi
fastlink=$(realpath "${1:?usage: $0 FASTLINK [N] [REPS] [--counts]}")
n=${2:-100000}
reps=${3:-3}
counts=${4:-}
raw=$(realpath "$(dirname "$fastlink")/../bench/raw_floor")
[ -x "$raw" ] || { echo "no raw floor at $raw: ninja -C build raw_floor" >&2; exit 1; }
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
# CPU seconds (user + system, the kernel's work in the sender's context included) beside the wall
# time: on these shared 2-core machines the wall time swings with the other jobs' load.
# The user seconds alone are the sender's own work (parse, encode, batch): the raw floor's are ~0.
cpu() {
  if [ "$counts" = --counts ]; then
    local e=page-faults
    for c in mmap munmap brk read write sendto recvmsg; do e+=,syscalls:sys_enter_$c; done
    perf stat -x, -e "$e" -o "$dir/counts" -- /usr/bin/time -f '%U %S %M' -o "$dir/cpu" "$@" >/dev/null
    awk -F, '/^[0-9]/ {sub("syscalls:sys_enter_", "", $3); s = s " " $3 "=" $1} END {print "  " s}' "$dir/counts" >&2
    awk '{print "  max RSS " $3 " KiB, system " $2 " s"}' "$dir/cpu" >&2
  else
    /usr/bin/time -f '%U %S' -o "$dir/cpu" "$@" >/dev/null
  fi
  awk '{print $1 + $2, $1}' "$dir/cpu"
}
round() {  # round fastlink|tc|raw -> "wall-seconds cpu-seconds user-seconds"
  tc qdisc del dev v0 clsact 2>/dev/null || true
  tc qdisc add dev v0 clsact
  local t0 t1 c
  t0=$(now)
  [ "$counts" = --counts ] && echo "$1:" >&2
  case $1 in
    fastlink) c=$(cpu "$fastlink" -force -batch "$dir/fl") ;;
    tc) c=$(cpu tc -force -batch "$dir/tc") ;;
    raw) c=$(cpu "$raw" u32-mirred v0 v1 "$n") ;;
  esac
  t1=$(now)
  local got
  got=$(tc -j filter show dev v0 ingress | python3 -c 'import json,sys; print(sum(1 for f in json.load(sys.stdin) if f.get("options",{}).get("actions")))')
  [ "$got" = "$n" ] || { echo "round $1 left $got filters, not $n" >&2; exit 1; }
  echo "$(echo "$t1 - $t0" | bc) $c"
}
declare -a F T R FC TC RC FU TU
for ((r = 0; r < reps; r++)); do
  read -r w c u <<<"$(round fastlink)"; F+=("$w"); FC+=("$c"); FU+=("$u")
  read -r w c u <<<"$(round tc)"; T+=("$w"); TC+=("$c"); TU+=("$u")
  read -r w c u <<<"$(round raw)"; R+=("$w"); RC+=("$c")
  echo "rep $((r + 1)) wall (cpu, user): fastlink -batch ${F[-1]} s (${FC[-1]}, ${FU[-1]}), tc -batch ${T[-1]} s (${TC[-1]}, ${TU[-1]}), raw floor ${R[-1]} s (${RC[-1]});" \
    "cpu tc/fastlink $(echo "scale=2; ${TC[-1]} / ${FC[-1]}" | bc)x (this repetition's rounds, under the same load)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { echo "scale=2; $1 / $2" | bc; }
for kind in wall cpu; do
  if [ $kind = wall ]; then mf=$(median "${F[@]}"); mt=$(median "${T[@]}"); mr=$(median "${R[@]}")
  else mf=$(median "${FC[@]}"); mt=$(median "${TC[@]}"); mr=$(median "${RC[@]}"); fi
  echo "$n u32 filters with mirred, $kind seconds, medians of $reps: fastlink -batch $mf, tc -batch $mt, raw floor $mr;" \
    "tc/fastlink $(ratio "$mt" "$mf")x, tc/raw $(ratio "$mt" "$mr")x (the most any sender can reach), fastlink/raw $(ratio "$mf" "$mr")x"
done
echo "user seconds, medians of $reps: fastlink -batch $(median "${FU[@]}"), tc -batch $(median "${TU[@]}")"
tc qdisc del dev v0 clsact
