// AddrView: an interface address read straight from the dump's receive buffer, as LinkView reads
// a link (fastlink/link_view.hpp): one pass over the message's attributes, each field read when
// asked with the owning decoder's reader and rules, toInfo() for an owning AddrInfo. Valid during
// the callback only.
//
//   nl.addresses().forEach(AddrFilter().setFamily(IpAddress::Family::v4), [&](const AddrView& a) {
//     if (a.devIndex() == ifindex) out.push_back(*a.address());
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "fastlink/addr.hpp"
#include "fastlink/attr_index.hpp"

namespace fastlink {

class Netlink;

class AddrView {
 public:
  /// A view over one RTM_NEWADDR message (netlink header included). Throws
  /// Error(Errc::malformed_reply) when it is too short for its header, like the decoder.
  explicit AddrView(std::span<const uint8_t> message);
  AddrView(const AddrView&) = delete;
  AddrView& operator=(const AddrView&) = delete;
  /// Whether the view passes `filter` (its devices resolved to `indexes`), as list() decides.
  static bool matches(const AddrView& view, const AddrFilter& filter, const detail::DumpIndexes& indexes);

  // The ifaddrmsg header: always there (AddrInfo's dev and scope are always set).
  uint32_t devIndex() const;
  Scope scope() const;
  uint32_t flags() const;  ///< IFA_FLAGS, else the header's 8 bits (AddrFlag bits)
  bool has(AddrFlag f) const { return (flags() & static_cast<uint32_t>(f)) != 0; }

  /// IFA_LOCAL (else IFA_ADDRESS) with the header's prefix length.
  std::optional<Prefix> address() const;
  /// IFA_ADDRESS when it differs from IFA_LOCAL (a point-to-point peer).
  std::optional<IpAddress> peer() const;
  std::optional<IpAddress> broadcast() const;
  std::optional<std::string_view> label() const;  ///< a view into the message
  std::optional<uint32_t> metric() const;
  std::optional<IpAddress> anycast() const;
  std::optional<uint32_t> validLifetime() const;      ///< IFA_CACHEINFO
  std::optional<uint32_t> preferredLifetime() const;  ///< IFA_CACHEINFO

  /// The payload of the top-level attribute of `type` (the last one, as decoded), if any.
  std::optional<std::span<const uint8_t>> attribute(uint16_t type) const { return attrs_.payload(type); }
  std::span<const uint8_t> message() const { return attrs_.message(); }
  /// The owning AddrInfo, as list decodes it.
  AddrInfo toInfo() const;

  /// Types below this are indexed (every IFA_* type AddrView reads).
  static constexpr std::size_t kIndexedTypes = 16;

 private:
  template <auto kMember>
  auto read() const;

  detail::AttrIndex<kIndexedTypes> attrs_;
};

/// `netlink.addresses().forEach(filter, ...)` as views: each view is valid during its call only.
void forEachAddr(Netlink& netlink, const AddrFilter& filter, const std::function<void(const AddrView&)>& each,
                 const std::function<void()>& restart = {});

}  // namespace fastlink
