// The registry of link kinds: built on first use from the generated index of
// src/rtnl/link_kinds/*.cpp (see link_kind.hpp).
#include "rtnl/link_kind.hpp"

#include <algorithm>

namespace fastlink::rtnl {
namespace {

bool carries(const LinkKindCodec& codec, const LinkInfo& link) {
  if (codec.optionsType) return link.typedKindOptions.has_value() && link.typedKindOptions.type() == *codec.optionsType;
  return codec.hasFieldOptions && codec.hasFieldOptions(link);
}

}  // namespace

const std::vector<const LinkKindCodec*>& allLinkKinds() {
  static const std::vector<const LinkKindCodec*> kinds = [] {
    auto all = linkKindsOfEveryFile();
    std::sort(all.begin(), all.end(), [](const auto* a, const auto* b) { return a->kind < b->kind; });
    return all;
  }();
  return kinds;
}

const LinkKindCodec* findLinkKind(std::string_view kind) {
  const auto& kinds = allLinkKinds();
  auto it = std::lower_bound(kinds.begin(), kinds.end(), kind, [](const auto* c, std::string_view k) { return c->kind < k; });
  return it != kinds.end() && (*it)->kind == kind ? *it : nullptr;
}

std::vector<std::string_view> kindOptionsPresent(const LinkInfo& link) {
  std::vector<std::string_view> present;
  bool slotClaimed = false;
  for (const auto* codec : allLinkKinds()) {
    if (codec->options.empty() || !carries(*codec, link)) continue;
    slotClaimed = slotClaimed || codec->optionsType;
    if (std::find(present.begin(), present.end(), codec->options) == present.end()) present.push_back(codec->options);
  }
  if (link.typedKindOptions.has_value() && !slotClaimed)
    throw Error::invalidArgument("link", std::string("kind options of a type no link kind takes (") +
                                             link.typedKindOptions.type().name() + ")");
  return present;
}

// Device references of every options set carried (the kind may still be unset: it is inferred
// from the options when encoding). Kinds sharing options hand out the same pointers.
std::vector<Ifref*> kindDeviceRefs(LinkInfo& link) {
  std::vector<Ifref*> refs;
  for (const auto* codec : allLinkKinds()) {
    if (!codec->deviceRefs || !carries(*codec, link)) continue;
    for (Ifref* ref : codec->deviceRefs(link))
      if (std::find(refs.begin(), refs.end(), ref) == refs.end()) refs.push_back(ref);
  }
  return refs;
}


}  // namespace fastlink::rtnl
