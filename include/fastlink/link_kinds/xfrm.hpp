// Options of `ip link add NAME type xfrm [dev PHYS_DEV] if_id IF_ID | external`
// (LinkInfo::kindOptions<XfrmInfo>()): an IPsec interface (route-based VPN). Traffic routed into
// it is transformed by the xfrm states and policies that carry the same if_id.
#pragma once

#include <cstdint>
#include <optional>

#include "fastlink/types.hpp"

namespace fastlink {

struct XfrmInfo {
  std::optional<uint32_t> ifId;   ///< `if_id`: the states' and policies' interface id (nonzero)
  /// `dev PHYS_DEV`: the underlying device (IFLA_XFRM_LINK). Fixed at creation: a set must name
  /// the same device (the kernel answers EINVAL to a change, and to a set without it of a device
  /// that has one).
  std::optional<Ifref> dev;
  std::optional<bool> external;   ///< `external`: collect metadata (neither if_id nor dev)
  XfrmInfo& setIfId(uint32_t v) { ifId = v; return *this; }
  XfrmInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  XfrmInfo& setExternal(bool v) { external = v; return *this; }
};

}  // namespace fastlink
