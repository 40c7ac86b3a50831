// nmstate's names for what the kernel calls by its own (device types, bond and macvlan modes),
// and what the planner does with each device type (issue 31): one row per type, declaring its
// kernel kind, its options subtree, how its options are read from the host, set on a new device
// and compared with an existing one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/state.hpp"

namespace fastlink {

/// The host's device names by ifindex ("" for an index it does not have).
using NameOfIndex = std::function<const std::string&(uint32_t)>;

/// What a plan changes on an existing device: the request's fields and the step's words.
struct LinkChanges {
  LinkInfo link;
  std::vector<std::string> what;
};

struct InterfaceKind {
  std::string_view type;  ///< nmstate's
  std::string_view kind;  ///< the kernel's
  std::string_view key{};  ///< the options subtree in the document ("" none)
  /// The planner compares its options: a host device of the kind is decoded whole (the others,
  /// veths and NICs, nearly all of a large host, are not).
  bool decodedWhole = false;
  /// The host device's options as document keys (`show state`, the undo). The functions are
  /// nullptr where the type has nothing to do.
  void (*read)(const LinkInfo& host, const NameOfIndex& nameOf, InterfaceState& iface) = nullptr;
  /// The options of a new device (`base`: its base-iface, when it has one). A veth's peer is
  /// the planner's (which end is created with which depends on the whole document).
  void (*create)(const InterfaceState& iface, const std::optional<Ifref>& base, LinkInfo& link) = nullptr;
  /// The options that differ from the host device's: changes, or an Error (EINVAL) naming the
  /// document's key for one the kernel cannot change in place.
  void (*change)(const InterfaceState& iface, const LinkInfo& host, const NameOfIndex& nameOf, LinkChanges& out) = nullptr;
};

/// The row whose `by` (&InterfaceKind::type or ::kind) is `name`; nullptr for the types fastlink
/// cannot create (ethernet, loopback, kernel kinds it only changes).
const InterfaceKind* interfaceKind(std::string_view name, std::string_view InterfaceKind::*by = &InterfaceKind::type);
/// nmstate's type of a host device: the row's for its kind, else the kernel's kind, or ethernet
/// or loopback for a device without rtnl ops.
std::string stateTypeOf(const LinkInfo& link);

std::optional<BondMode> bondModeFromName(std::string_view name);
const char* bondModeName(BondMode mode);
std::optional<MacvlanMode> macvlanModeFromName(std::string_view name);
const char* macvlanModeName(MacvlanMode mode);

/// `s` as a JSON string, quotes included.
std::string jsonQuoted(const std::string& s);

}  // namespace fastlink
