// NeighView: a neighbour entry read straight from the dump's receive buffer, as LinkView reads a
// link (fastlink/link_view.hpp): one pass over the message's attributes, each field read when
// asked with the owning decoder's reader and rules, toInfo() for an owning NeighInfo. Valid
// during the callback only.
//
//   nl.neighbours().forEach(NeighFilter(), [&](const NeighView& n) {
//     if (n.state() == NeighState::Failed) ++failed;
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "fastlink/attr_index.hpp"
#include "fastlink/neigh.hpp"

namespace fastlink {

class Netlink;

class NeighView {
 public:
  /// A view over one RTM_NEWNEIGH message (netlink header included). Throws
  /// Error(Errc::malformed_reply) when it is too short for its header, like the decoder.
  explicit NeighView(std::span<const uint8_t> message);
  NeighView(const NeighView&) = delete;
  NeighView& operator=(const NeighView&) = delete;
  /// Whether the view passes `filter` (its devices resolved to `indexes`), as list() decides.
  static bool matches(const NeighView& view, const NeighFilter& filter, const detail::DumpIndexes& indexes);

  // The ndmsg header: always there (NeighInfo's dev, flags and flag bits are always set).
  uint32_t devIndex() const;
  uint8_t flags() const;  ///< the raw NTF_* bits
  bool proxy() const;     ///< NTF_PROXY
  bool router() const;    ///< NTF_ROUTER
  bool externLearn() const;  ///< NTF_EXT_LEARNED
  /// The NUD state; std::nullopt for a proxy entry (which has none), as the decoder.
  std::optional<NeighState> state() const;

  std::optional<IpAddress> dst() const;
  std::optional<MacAddress> lladdr() const;
  std::optional<uint8_t> protocol() const;
  std::optional<uint32_t> probes() const;
  // NDA_CACHEINFO, in centiseconds.
  std::optional<uint32_t> confirmedAgo() const;
  std::optional<uint32_t> usedAgo() const;
  std::optional<uint32_t> updatedAgo() const;
  std::optional<uint32_t> refcnt() const;

  /// The payload of the top-level attribute of `type` (the last one, as decoded), if any.
  std::optional<std::span<const uint8_t>> attribute(uint16_t type) const { return attrs_.payload(type); }
  std::span<const uint8_t> message() const { return attrs_.message(); }
  /// The owning NeighInfo, as list decodes it.
  NeighInfo toInfo() const;

  /// Types below this are indexed (every NDA_* type NeighView reads).
  static constexpr std::size_t kIndexedTypes = 16;

 private:
  template <auto kMember>
  auto read() const;

  detail::AttrIndex<kIndexedTypes> attrs_;
};

/// `netlink.neighbours().forEach(filter, ...)` as views: each view is valid during its call only.
void forEachNeigh(Netlink& netlink, const NeighFilter& filter, const std::function<void(const NeighView&)>& each,
                  const std::function<void()>& restart = {});

}  // namespace fastlink
