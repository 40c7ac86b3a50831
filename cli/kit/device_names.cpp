#include "kit/device_names.hpp"

#include <fmt/format.h>

#include "fastlink/link_view.hpp"

namespace fastlink::cli {

void DeviceNames::load(LinkApi& links) {
  // Views: a name and the flags are all that is kept, nothing is decoded into a LinkInfo.
  links.forEach({}, [&](const LinkView& l) {
    Device& d = devices_[l.index()];
    if (auto name = l.name()) d.name = *name;
    d.flags = l.flags();
  }, [&] { devices_.clear(); });
}

void DeviceNames::remember(const LinkInfo& link) {
  if (!link.index) return;
  Device& d = devices_[*link.index];
  if (link.name) d.name = *link.name;
  d.flags = link.flags.value_or(0);
}

void DeviceNames::remember(uint32_t index, std::string_view name, uint32_t flags) {
  Device& d = devices_[index];
  d.name = name;
  d.flags = flags;
}

const std::string* DeviceNames::find(uint32_t index) const {
  auto it = devices_.find(index);
  return it != devices_.end() ? &it->second.name : nullptr;
}

std::string DeviceNames::nameOrIndex(uint32_t index) const {
  const std::string* name = find(index);
  return name ? *name : std::to_string(index);
}

const std::string& DeviceNames::name(uint32_t index) {
  auto it = devices_.find(index);
  if (it != devices_.end()) return it->second.name;
  std::optional<LinkInfo> found = lookup_ ? lookup_(index) : std::nullopt;
  Device& d = devices_[index];
  d.name = found && found->name ? *found->name : fmt::format("if{}", index);
  d.flags = found ? found->flags.value_or(0) : 0;
  return d.name;
}

uint32_t DeviceNames::flags(uint32_t index) const {
  auto it = devices_.find(index);
  return it == devices_.end() ? 0 : it->second.flags;
}

}  // namespace fastlink::cli
