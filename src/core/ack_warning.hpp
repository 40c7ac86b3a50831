// Kernel warnings on a success (fastlink/warnings.hpp), for the places that read ACKs.
#pragma once

#include <linux/netlink.h>

namespace fastlink::core {

/// Hands the kernel's message on a positive ACK (a warning) to the program's handler, if any.
void reportAckWarning(const nlmsghdr* message);

}  // namespace fastlink::core
