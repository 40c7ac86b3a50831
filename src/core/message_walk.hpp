// Walking the messages of a received datagram.
#pragma once

#include <linux/netlink.h>

#include <cstdint>

namespace fastlink::core {

/// True when a whole message starts at `m` within `remaining` bytes of a received datagram. Use
/// instead of libmnl's mnl_nlmsg_ok, which compares the length as an int: a nlmsg_len of 2^31 or
/// more passes as negative, and mnl_nlmsg_next then steps gigabytes past the buffer (found by
/// tests/fuzz/fuzz_reply_reader).
inline bool messageFits(const nlmsghdr* m, int remaining) {
  return remaining >= static_cast<int>(sizeof(nlmsghdr)) && m->nlmsg_len >= sizeof(nlmsghdr) &&
         m->nlmsg_len <= static_cast<uint32_t>(remaining);
}

}  // namespace fastlink::core
