// Kernel warnings: the text of an extended ACK that comes with a success.
#pragma once

#include <functional>
#include <string_view>

namespace fastlink {

/// Called with the kernel's message when a request succeeds with a warning attached, e.g. htb's
/// "sch_htb: quantum of class 10001 is big. Consider r2q change." (ip and tc print these as
/// "Warning: TEXT"). The library never prints: a program that wants them sets a handler.
using WarningHandler = std::function<void(std::string_view message)>;

/// Sets the handler for every Netlink of the process (an empty one drops warnings, the default).
/// Set it before requests are sent: it is not synchronised with other threads.
/// Equivalent to: what iproute2's rtnl_talk does with a positive ACK's NLMSGERR_ATTR_MSG.
void setWarningHandler(WarningHandler handler);

}  // namespace fastlink
