// Namespace ids (nsids): the numbers by which one network namespace knows another, as links
// report them (LinkInfo::linkNetnsId, `link-netnsid N`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fastlink/netns.hpp"

namespace fastlink {

/// The namespaces named under /run/netns that namespace `ns` (empty: the calling thread's) knows
/// by an id (nsid -> name): the names a link's linkNetnsId stands for. Asks over a socket of its
/// own (so it may be called while another socket's dump is being read). Asking assigns no id; a
/// name without an id, or whose file cannot be opened, is left out.
/// Equivalent to: ip netns list-id (the names `ip link show` prints as `link-netns NAME`)
std::map<int32_t, std::string> namedNetnsIds(const std::optional<Netns>& ns = std::nullopt);

}  // namespace fastlink
