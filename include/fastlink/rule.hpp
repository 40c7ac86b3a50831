// Policy routing rules (`ip rule`): typed RuleInfo, the mockable IRuleApi, and request
// builders for batches.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/raw_attributes.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// What a matching rule does.
enum class RuleAction : uint8_t {
  ToTable = 1,      ///< `lookup TABLE` (`table TABLE`)
  Goto = 2,         ///< `goto PRIORITY`
  Nop = 3,          ///< `nop`
  Blackhole = 6,    ///< `blackhole`: drop silently
  Unreachable = 7,  ///< `unreachable`: drop, ENETUNREACH
  Prohibit = 8,     ///< `prohibit`: drop, EACCES
};

/// iproute2's word of an action ("lookup" for ToTable, "goto", "nop", "blackhole", ...).
std::string ruleActionName(RuleAction action);

struct UidRange {
  uint32_t start = 0;
  uint32_t end = 0;
  friend bool operator==(const UidRange&, const UidRange&) = default;
};

struct PortRange {
  uint16_t start = 0;
  uint16_t end = 0;
  friend bool operator==(const PortRange&, const PortRange&) = default;
};

/// One rule. Every field is optional: an unset field is never sent (on delete, it matches any
/// value), and a field the kernel did not report stays unset.
///   RuleInfo().setPriority(100).setSrc(Prefix::parse("10.0.0.0/8")).setTable(100)
struct RuleInfo {
  /// IPv4 or IPv6; taken from src/dst when unset, else IPv4 (like `ip rule`).
  std::optional<IpAddress::Family> family;
  std::optional<uint32_t> priority;        ///< `pref N`; reported as 0 when the kernel omits it
  std::optional<Prefix> src;               ///< `from PREFIX` (unset = all)
  std::optional<Prefix> dst;               ///< `to PREFIX`
  std::optional<std::string> iif;          ///< `iif NAME` (the device need not exist)
  std::optional<std::string> oif;          ///< `oif NAME`
  std::optional<uint32_t> fwmark;          ///< `fwmark M[/MASK]`
  std::optional<uint32_t> fwmask;
  std::optional<uint8_t> tos;              ///< `tos T` (dsfield)
  /// `lookup TABLE`. Adds with action ToTable and no table use main (254), like `ip rule add`.
  std::optional<uint32_t> table;
  /// Unset on add: ToTable (Goto when gotoTarget is set).
  std::optional<RuleAction> action;
  std::optional<uint32_t> gotoTarget;      ///< `goto PRIORITY`
  std::optional<uint32_t> suppressPrefixLength;  ///< `suppress_prefixlength N`
  std::optional<uint32_t> suppressIfgroup;       ///< `suppress_ifgroup G`
  std::optional<bool> l3mdev;              ///< `l3mdev`: look up the VRF's table
  std::optional<UidRange> uidRange;        ///< `uidrange A-B`
  std::optional<uint8_t> ipProto;          ///< `ipproto N` (6 tcp, 17 udp, ...)
  std::optional<PortRange> sport;          ///< `sport A[-B]`
  std::optional<PortRange> dport;          ///< `dport A[-B]`
  std::optional<bool> invert;              ///< `not`
  std::optional<uint8_t> protocol;         ///< `protocol P`: who installed the rule
  /// A multicast routing rule (`ip mrule`): family RTNL_FAMILY_IPMR (RTNL_FAMILY_IP6MR with family v6). It
  /// picks the multicast forwarding table (`fastlink mroute`) by iif/oif/fwmark/...: the kernel
  /// matches no addresses or tos in these, so src, dst and tos are refused.
  bool multicast = false;

  // Reported only.
  std::optional<uint32_t> flags;  ///< FIB_RULE_* bits
  RawAttributes unknown;

  RuleInfo& setFamily(IpAddress::Family v) { family = v; return *this; }
  RuleInfo& setPriority(uint32_t v) { priority = v; return *this; }
  RuleInfo& setSrc(Prefix v) { src = v; return *this; }
  RuleInfo& setDst(Prefix v) { dst = v; return *this; }
  RuleInfo& setIif(std::string v) { iif = std::move(v); return *this; }
  RuleInfo& setOif(std::string v) { oif = std::move(v); return *this; }
  RuleInfo& setFwmark(uint32_t v) { fwmark = v; return *this; }
  RuleInfo& setFwmark(uint32_t v, uint32_t mask) { fwmark = v; fwmask = mask; return *this; }
  RuleInfo& setTos(uint8_t v) { tos = v; return *this; }
  RuleInfo& setTable(uint32_t v) { table = v; return *this; }
  /// A table name (main, local, default, or from rt_tables / rt_tables.d/*.conf) or number.
  /// Throws Error(EINVAL) for an unknown name.
  RuleInfo& setTable(std::string_view nameOrNumber);
  RuleInfo& setTable(const char* nameOrNumber) { return setTable(std::string_view(nameOrNumber)); }
  RuleInfo& setAction(RuleAction v) { action = v; return *this; }
  RuleInfo& setGoto(uint32_t target) { gotoTarget = target; action = RuleAction::Goto; return *this; }
  RuleInfo& setSuppressPrefixLength(uint32_t v) { suppressPrefixLength = v; return *this; }
  RuleInfo& setSuppressIfgroup(uint32_t v) { suppressIfgroup = v; return *this; }
  RuleInfo& setL3mdev(bool v) { l3mdev = v; return *this; }
  RuleInfo& setUidRange(uint32_t start, uint32_t end) { uidRange = UidRange{start, end}; return *this; }
  RuleInfo& setIpProto(uint8_t v) { ipProto = v; return *this; }
  RuleInfo& setSport(uint16_t start, uint16_t end) { sport = PortRange{start, end}; return *this; }
  RuleInfo& setDport(uint16_t start, uint16_t end) { dport = PortRange{start, end}; return *this; }
  RuleInfo& setInvert(bool v) { invert = v; return *this; }
  RuleInfo& setProtocol(uint8_t v) { protocol = v; return *this; }
  RuleInfo& setMulticast(bool v) { multicast = v; return *this; }

  /// The family the rule is sent with (see `family`).
  IpAddress::Family effectiveFamily() const;
};

/// Which rules `list` returns (`ip [-4|-6] rule show`, with multicast `ip mrule show`). The family is filtered by the kernel; the kernel has no other
/// filter for rule dumps (strict checking refuses any), so the rest is matched in user space.
struct RuleFilter {
  std::optional<IpAddress::Family> family;  ///< unset: IPv4 and IPv6
  std::optional<uint32_t> priority;
  std::optional<uint32_t> table;
  std::optional<std::string> iif;
  std::optional<std::string> oif;
  /// The multicast routing rules (`ip mrule`) instead of the unicast ones; never both.
  bool multicast = false;

  RuleFilter& setFamily(IpAddress::Family v) { family = v; return *this; }
  RuleFilter& setPriority(uint32_t v) { priority = v; return *this; }
  RuleFilter& setTable(uint32_t v) { table = v; return *this; }
  RuleFilter& setIif(std::string v) { iif = std::move(v); return *this; }
  RuleFilter& setOif(std::string v) { oif = std::move(v); return *this; }
  RuleFilter& setMulticast(bool v) { multicast = v; return *this; }
};

/// Builds rule requests without sending them, for batches. Throws fastlink::Error (EINVAL) on
/// bad input; nothing is sent.
struct RuleRequests {
  /// Equivalent to: ip [-6] rule add [pref N] [from P] [to P] [fwmark M/MASK] [iif D] [oif D]
  ///                [lookup TABLE | goto N | blackhole | unreachable | prohibit | nop] ...
  static Request add(const RuleInfo& rule);
  /// Equivalent to: ip [-6] rule del [pref N] [from P] ... (the first rule matching every set field)
  static Request del(const RuleInfo& rule);
};

/// The rule operations, as an interface so that users can mock them (GoogleMock).
class IRuleApi {
 public:
  virtual ~IRuleApi() = default;
  /// Equivalent to: ip rule add pref N from P to P ... lookup TABLE (EEXIST if an identical rule exists)
  virtual void add(const RuleInfo& rule) = 0;
  /// Equivalent to: ip rule del pref N ... (ENOENT if no rule matches)
  virtual void del(const RuleInfo& rule) = 0;
  /// Equivalent to: ip [-4|-6] rule show [pref N] [lookup TABLE] [iif D] [oif D]
  virtual std::vector<RuleInfo> list(const RuleFilter& filter = {}) = 0;
  /// Streams the dump to `each`; `restart` is called before an interrupted dump is restarted.
  virtual void forEach(const RuleFilter& filter, const std::function<void(const RuleInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
};

/// The kernel-backed IRuleApi. Obtain it from Netlink::rules().
class RuleApi final : public IRuleApi {
 public:
  void add(const RuleInfo& rule) override;
  void del(const RuleInfo& rule) override;
  std::vector<RuleInfo> list(const RuleFilter& filter = {}) override;
  void forEach(const RuleFilter& filter, const std::function<void(const RuleInfo&)>& each,
               const std::function<void()>& restart = {}) override;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit RuleApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
