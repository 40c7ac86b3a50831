// The index pass of the views (fastlink/attr_index.hpp).
#include "fastlink/attr_index.hpp"

#include <libmnl/libmnl.h>

namespace fastlink::detail {

void indexAttributes(const uint8_t* base, std::span<const uint8_t> attrs, uint32_t* at, std::size_t count) {
  const auto* a = reinterpret_cast<const nlattr*>(attrs.data());
  // The walk of forEachAttr (mnl_attr_ok: header and payload inside what is left), inlined.
  for (int left = static_cast<int>(attrs.size()); left >= static_cast<int>(sizeof(nlattr)) &&
                                                  a->nla_len >= sizeof(nlattr) && a->nla_len <= left;
       left -= MNL_ALIGN(a->nla_len), a = reinterpret_cast<const nlattr*>(reinterpret_cast<const uint8_t*>(a) + MNL_ALIGN(a->nla_len))) {
    uint16_t type = a->nla_type & NLA_TYPE_MASK;
    if (type < count) at[type] = static_cast<uint32_t>(reinterpret_cast<const uint8_t*>(a) - base);
  }
}

std::span<const uint8_t> attributePayload(const uint8_t* attr) {
  const auto* a = reinterpret_cast<const nlattr*>(attr);
  return {attr + MNL_ATTR_HDRLEN, static_cast<std::size_t>(a->nla_len - MNL_ATTR_HDRLEN)};
}

}  // namespace fastlink::detail
