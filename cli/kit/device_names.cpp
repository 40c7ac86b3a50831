#include "kit/device_names.hpp"

#include <fmt/format.h>

#include "fastlink/link_view.hpp"

namespace fastlink::cli {

DeviceNames::Device& DeviceNames::slot(uint32_t index) {
  if (index >= kDenseIndexes) return sparse_[index];
  uint32_t chunk = index >> kChunkBits;
  if (chunk >= chunks_.size()) chunks_.resize(chunk + 1);
  if (!chunks_[chunk]) chunks_[chunk] = std::make_unique<Chunk>();
  return (*chunks_[chunk])[index & ((1u << kChunkBits) - 1)];
}

void DeviceNames::load(LinkApi& links) {
  // Views: a name and the flags are all that is kept, nothing is decoded into a LinkInfo.
  links.forEach({}, [&](const LinkView& l) {
    Device& d = slot(l.index());
    if (auto name = l.name()) d.name = *name;
    d.flags = l.flags();
    d.known = true;
  }, [&] { clear(); });
}

void DeviceNames::remember(const LinkInfo& link) {
  if (!link.index) return;
  Device& d = slot(*link.index);
  if (link.name) d.name = *link.name;
  d.flags = link.flags.value_or(0);
  d.known = true;
}

void DeviceNames::remember(uint32_t index, std::string_view name, uint32_t flags) {
  Device& d = slot(index);
  d.name = name;
  d.flags = flags;
  d.known = true;
}

const std::string* DeviceNames::find(uint32_t index) const {
  const Device* d = seen(index);
  return d ? &d->name : nullptr;
}

std::string DeviceNames::nameOrIndex(uint32_t index) const {
  const std::string* name = find(index);
  return name ? *name : std::to_string(index);
}

const std::string& DeviceNames::name(uint32_t index) {
  if (const Device* d = seen(index)) return d->name;
  std::optional<LinkInfo> found = lookup_ ? lookup_(index) : std::nullopt;
  Device& d = slot(index);
  d.name = found && found->name ? *found->name : fmt::format("if{}", index);
  d.flags = found ? found->flags.value_or(0) : 0;
  d.known = true;
  return d.name;
}

uint32_t DeviceNames::flags(uint32_t index) const {
  const Device* d = seen(index);
  return d ? d->flags : 0;
}

}  // namespace fastlink::cli
