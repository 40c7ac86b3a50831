// nmstate's names for what the kernel calls by its own: link kinds, bond and macvlan modes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fastlink/link.hpp"

namespace fastlink {

/// nmstate's type of a device of kernel kind `kind` (unset: a device without rtnl ops, e.g. a
/// NIC); `arphrdLoopback` tells the loopback apart. Kinds nmstate has no name for keep the kernel's.
std::string stateTypeOfKind(const std::optional<std::string>& kind, bool loopback);
/// The kernel kind fastlink creates for nmstate type `type`; nullopt for types it cannot create
/// (ethernet, loopback, and names it does not know).
std::optional<std::string> kindOfStateType(std::string_view type);

std::optional<BondMode> bondModeFromName(std::string_view name);
const char* bondModeName(BondMode mode);
std::optional<MacvlanMode> macvlanModeFromName(std::string_view name);
const char* macvlanModeName(MacvlanMode mode);

/// `s` as a JSON string, quotes included.
std::string jsonQuoted(const std::string& s);

}  // namespace fastlink
