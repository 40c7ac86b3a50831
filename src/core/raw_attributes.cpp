#include "fastlink/raw_attributes.hpp"

#include <cstring>
#include <string>

#include "fastlink/error.hpp"

namespace fastlink {

void RawAttributes::append(uint16_t type, std::span<const uint8_t> payload) {
  std::size_t at = bytes_.size();
  std::size_t length = 4 + payload.size();
  if (length > 0xffff) throw Error::invalidArgument("raw attribute", "payload of " + std::to_string(payload.size()) + " bytes does not fit an attribute");
  bytes_.resize(at + ((length + 3) & ~std::size_t{3}), 0);
  uint16_t len16 = static_cast<uint16_t>(length);
  std::memcpy(&bytes_[at], &len16, 2);
  std::memcpy(&bytes_[at + 2], &type, 2);
  if (!payload.empty()) std::memcpy(&bytes_[at + 4], payload.data(), payload.size());
}

std::vector<RawAttribute> RawAttributes::list() const {
  std::vector<RawAttribute> out;
  for (std::size_t at = 0; at + 4 <= bytes_.size();) {
    uint16_t len, type;
    std::memcpy(&len, &bytes_[at], 2);
    std::memcpy(&type, &bytes_[at + 2], 2);
    out.push_back({type, {bytes_.data() + at + 4, static_cast<std::size_t>(len - 4)}});
    at += (len + 3u) & ~3u;
  }
  return out;
}

std::optional<RawAttribute> RawAttributes::find(uint16_t type) const {
  for (const auto& a : list())
    if (a.type == type) return a;
  return std::nullopt;
}

std::size_t RawAttributes::count() const { return list().size(); }

}  // namespace fastlink
