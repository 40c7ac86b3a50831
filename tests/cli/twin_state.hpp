// Twin namespaces compared through ip's eyes (the ip differential suite, the real-world scripts):
// the same commands run in two namespaces, one with ip/tc and one with fastlink, then each side's
// output and kernel state (as ip -j reports it) are normalised so that only what the tools did
// can differ, not what the kernel chose at random.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fastlink::test {

/// The MACs a case writes itself (`address`, `lladdr`), in the three forms ip prints them: as a
/// MAC, in a bridge id (no leading zeros), and as the EUI-64 link-local address made from it.
/// Normalisation keeps these: a MAC set wrong, or not at all, then differs from ip's.
struct LiteralMacs {
  std::set<std::string> macs, bridgeIdMacs, linkLocals;
};

/// The MACs written in `lines` (a case's commands, a script's text).
LiteralMacs literalMacsOf(const std::vector<std::string>& lines);

/// What may differ between two runs of the same command: the MACs the kernel chose at random
/// (not those `literal` holds: the case's own), the link-local addresses made from them, bridge
/// and bridge port timers, the namespace name (replaced by NS); and the blanks iproute2 leaves at
/// the end of its lines (fastlink prints none; no script sees them).
std::string normalise(std::string text, const std::string& nsName, const LiteralMacs& literal);

/// Kernel state of the namespace as `ip -j` reports it (with a `tcDev`, tc's qdiscs and that
/// device's classes too), normalised, each dump's elements sorted: the kernel's state is a set.
std::string stateOf(const std::string& nsName, const LiteralMacs& literal, const std::string& tcDev);

/// Waits until linkwatch has set every device's operational state and no IPv6 address is
/// tentative, so that two namespaces are compared in the same settled state.
void settle(const std::string& nsName);

/// True when the kernel has the qdisc (probed once, on lo of a scratch namespace): the real
/// scripts and the differential cases that need fq_codel, fq or netem skip on a host without them
/// and run in the VM.
bool kernelHasQdisc(const std::string& qdisc);

/// `text` with each `from` replaced by its `to`, in the order given (longer names first when one
/// is a prefix of another).
std::string replaceWords(std::string text, const std::vector<std::pair<std::string, std::string>>& words);

/// The lines of `text` sorted: for output whose order is the kernel's hash order.
std::string sortedLines(const std::string& text);

}  // namespace fastlink::test
