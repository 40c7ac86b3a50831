// IPv6 address labels (RFC 6724 policy table: the labels source address selection compares),
// as `ip addrlabel` lists, adds, deletes and flushes them over RTM_{NEW,DEL,GET}ADDRLABEL.
//
//   fastlink::IAddrLabelApi& labels = nl.addressLabels();
//   for (const fastlink::AddrLabelInfo& l : labels.list()) ...   // l.prefix, l.ifindex, l.label
//   labels.add({.prefix = fastlink::Prefix::parse("2001:db8::/32"), .label = 100});
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"

namespace fastlink {

/// The AF_* numbers of an address label request: the kernel has labels only for Inet6 (the
/// others are refused with EOPNOTSUPP, as `ip -4 addrlabel` shows).
enum class AddrLabelFamily : uint8_t { Unspec = 0, Inet = 2, Inet6 = 10, Packet = 17 };

/// One entry of the policy table.
struct AddrLabelInfo {
  Prefix prefix;                     ///< `prefix PREFIX` (an IPv4 prefix is sent as typed: the kernel refuses it)
  uint32_t ifindex = 0;              ///< `dev DEV`: the entry applies to that device only; 0 = every device
  uint32_t label = 0;                ///< `label N`, 0 - 0xfffffffe (0xffffffff is the kernel's "none")
  AddrLabelFamily family = AddrLabelFamily::Inet6;  ///< ifal_family of the message

  friend bool operator==(const AddrLabelInfo&, const AddrLabelInfo&) = default;
};

/// Builds address label requests without sending them (golden tests, batches).
struct AddrLabelRequests {
  /// RTM_NEWADDRLABEL with NLM_F_CREATE|NLM_F_EXCL.
  /// Equivalent to: ip addrlabel add prefix PREFIX [ dev DEV ] label N
  static Request add(const AddrLabelInfo& entry);
  /// RTM_DELADDRLABEL; the kernel matches prefix and device (the label is sent, not compared).
  /// Equivalent to: ip addrlabel del prefix PREFIX [ dev DEV ] label N
  static Request del(const AddrLabelInfo& entry);
  /// RTM_GETADDRLABEL of `family` (send it as a dump).
  /// Equivalent to: ip addrlabel list
  static Request list(AddrLabelFamily family = AddrLabelFamily::Inet6);
};

/// Decodes one RTM_NEWADDRLABEL (or DEL) message; throws Error(Errc::malformed_reply) when it is
/// shorter than ifaddrlblmsg or its address does not fit the prefix length.
AddrLabelInfo decodeAddrLabel(const nlmsghdr* message);

/// The operations, mockable.
class IAddrLabelApi {
 public:
  virtual ~IAddrLabelApi() = default;
  /// Every entry, in the kernel's order (longest prefix first).
  /// Equivalent to: ip addrlabel list (ip -4 addrlabel list: family Inet, refused by the kernel)
  virtual std::vector<AddrLabelInfo> list(AddrLabelFamily family = AddrLabelFamily::Inet6) = 0;
  /// Equivalent to: ip addrlabel add prefix PREFIX [ dev DEV ] label N
  virtual void add(const AddrLabelInfo& entry) = 0;
  /// Equivalent to: ip addrlabel del prefix PREFIX [ dev DEV ] label N
  virtual void del(const AddrLabelInfo& entry) = 0;
  /// Deletes every entry the dump of `family` lists (the kernel's defaults too), one request
  /// each as ip does; returns how many were deleted.
  /// Equivalent to: ip addrlabel flush
  virtual std::size_t flush(AddrLabelFamily family = AddrLabelFamily::Inet6) = 0;
};

/// The kernel's policy table in the Netlink's namespace, over its rtnetlink socket.
class AddrLabelApi final : public IAddrLabelApi {
 public:
  std::vector<AddrLabelInfo> list(AddrLabelFamily family = AddrLabelFamily::Inet6) override;
  void add(const AddrLabelInfo& entry) override;
  void del(const AddrLabelInfo& entry) override;
  std::size_t flush(AddrLabelFamily family = AddrLabelFamily::Inet6) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit AddrLabelApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
