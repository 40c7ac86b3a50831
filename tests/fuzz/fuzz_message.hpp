// The fuzz input as the payload of one netlink message, the way every decoder harness feeds it.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace fastlink::fuzz {

/// A netlink header of `type` and `flags` followed by `size` bytes of `data`, in 4-byte aligned
/// storage no longer than the message rounded up to 4 (so ASan sees a decoder that reads past it).
class FuzzMessage {
 public:
  FuzzMessage(const uint8_t* data, std::size_t size, uint16_t type, uint16_t flags = 0)
      : storage_((NLMSG_HDRLEN + size + 3) / 4) {
    nlmsghdr* h = header();
    h->nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + size);
    h->nlmsg_type = type;
    h->nlmsg_flags = flags;
    if (size) std::memcpy(reinterpret_cast<uint8_t*>(storage_.data()) + NLMSG_HDRLEN, data, size);
  }
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(storage_.data()); }

 private:
  std::vector<uint32_t> storage_;
};

}  // namespace fastlink::fuzz
