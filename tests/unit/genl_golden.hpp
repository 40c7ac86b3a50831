// Generic netlink messages laid out by hand for golden tests (beside golden.hpp, whose Attrs and
// netlinkMessage it uses): nlmsghdr with the family's id as its type, genlmsghdr {cmd, version,
// reserved 0}, then the attributes.
#pragma once

#include <linux/netlink.h>

#include <cstdint>

#include "fastlink/genl.hpp"
#include "unit/golden.hpp"

namespace fastlink::test {

/// `message(cmd, attrs[, flags])` of one family: a request's flags unless given (a reply laid
/// out for a decoder passes 0).
class GenlMessages {
 public:
  explicit GenlMessages(const GenlFamily& family) : id_(family.id), version_(static_cast<uint8_t>(family.version)) {}
  Bytes operator()(uint8_t cmd, const Attrs& attrs, uint16_t flags = NLM_F_REQUEST) const {
    return netlinkMessage(id_, flags, Bytes{cmd, version_, 0, 0}, attrs);
  }

 private:
  uint16_t id_;
  uint8_t version_;
};

}  // namespace fastlink::test
