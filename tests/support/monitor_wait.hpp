// Test support: shell functions that wait for a monitor process (fastlink's, ip's, tc's, ethtool's)
// to be listening, and for it to have written what it received, by looking at the process's
// netlink sockets in /proc instead of sleeping a fixed time. A fixed `sleep 0.5` was not enough
// for a sanitizer build on a loaded 2-core CI machine: the monitor subscribed after the changes
// had been made, and the test saw nothing.
#pragma once

#include <string>

namespace fastlink::test {

/// POSIX sh text defining these functions (and their helpers), to be put before a test's script:
///   listening PID    returns (1 at once if PID has exited: `ip monitor dev X` of a missing X does)
///                    once PID owns a netlink socket subscribed to a multicast group
///                    (the Groups column of /proc/net/netlink, matched to PID's sockets by inode)
///                    and its groups stayed the same for two reads (a monitor subscribes one group
///                    at a time).
///   drained PID FILE [PID FILE...]
///                    returns once none of the PIDs' netlink sockets has a message queued (Rmem 0)
///                    and no FILE grew for eight reads 100 ms apart (a carrier change comes from
///                    linkwatch up to a second late). All monitors at once: an event that arrives
///                    between two separate waits would reach one output and not the other.
///   holds FILE ERE   returns once a line of FILE matches the extended regular expression ERE
///                    (a known last event).
/// A socket is listed in the table of the namespace it was made in, which is not always the
/// process's own (`fastlink -n NS` makes its sockets in NS and stays where it was): both tables
/// are read, PID's and `netns`'s. Each gives up after 20 s with a message on stderr ("not
/// listening: ...") so that the test's own assertions say what was missed.
inline std::string monitorWaitFunctions(const std::string& netns) {
  // nsenter where it exists: `ip netns exec` also remounts /sys, a cost paid at every poll.
  std::string nsTable = "{ nsenter --net=/run/netns/" + netns + " cat /proc/net/netlink 2>/dev/null || ip netns exec " +
                        netns + " cat /proc/net/netlink; }";
  return "nl_table() { cat /proc/$1/net/netlink; " + nsTable + "; }\n" +
         R"sh(nl_column() { socks=" $(ls -l /proc/$1/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')"; nl_table $1 2>/dev/null | awk -v s="$socks" -v c=$2 'index(s, " " $NF " ") {printf "%s ", $c}'; }
alive() { awk '{ exit $3 == "Z" }' /proc/$1/stat 2>/dev/null || { echo "no longer running: $1" >&2; return 1; }; }
now() { date +%s; }
listening() { end=$(($(now) + 20)); last=; while alive $1 && [ $(now) -lt $end ]; do g=$(nl_column $1 4 | tr -d ' 0'); if [ -n "$g" ] && [ "$g" = "$last" ]; then return 0; fi; last=$g; sleep 0.02; done; echo "not listening: $1" >&2; return 1; }
drained() { end=$(($(now) + 20)); same=0; last=; while [ $(now) -lt $end ]; do state=; i=1; while [ $i -le $# ]; do eval "p=\${$i} f=\${$((i+1))}"; state="$state $(nl_column $p 5 | tr -d ' 0')/$(wc -c < $f)"; i=$((i+2)); done; if [ "$state" = "$last" ] && ! echo "$state" | grep -q '[0-9]/'; then same=$((same+1)); [ $same -ge 8 ] && return 0; else same=0; fi; last=$state; sleep 0.1; done; echo "not drained: $*" >&2; return 1; }
holds() { end=$(($(now) + 20)); while [ $(now) -lt $end ]; do grep -qE -- "$2" $1 && return 0; sleep 0.02; done; echo "never seen in $1: $2" >&2; return 1; }
)sh";
}

}  // namespace fastlink::test
