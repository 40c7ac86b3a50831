#!/usr/bin/env bash
# Time of one completion round trip (`fastlink help-complete ...`, what a <TAB> costs) against
# `ip -o link show` and `fastlink -V`, with 1 and 1001 devices. Run in a throwaway namespace:
#   scripts/sandbox bash bench/complete_latency.sh
set -euo pipefail
F=build/cli/fastlink
# It adds 1000 veths: only in a namespace of its own (scripts/sandbox), never the host's.
if [ "$(ip -o link | wc -l)" != 1 ]; then
  echo "complete_latency.sh: run it in a fresh namespace: scripts/sandbox bash $0" >&2
  exit 1
fi
t() { local s=$(date +%s%N); for i in $(seq 100); do "$@" >/dev/null; done; echo "$(( ($(date +%s%N) - s) / 100000 ))"; }
echo "devices: 1"
echo "keywords  (route add 10.0.0.0/8 ''): $(t $F help-complete route add 10.0.0.0/8 '') us/run"
echo "devices   (link set dev ''):        $(t $F help-complete link set dev '') us/run"
echo "ip -o link show:                    $(t ip -o link show) us/run"
echo "fastlink -V:                        $(t $F -V) us/run"
for i in $(seq 500); do echo "link add b$i type veth peer name c$i"; done | ip -batch -
echo "devices: $(ip -o link | wc -l)"
echo "devices   (link set dev ''):        $(t $F help-complete link set dev '') us/run"
echo "ip -o link show:                    $(t ip -o link show) us/run"
for i in $(seq 500); do echo "link del b$i"; done | ip -batch -
