// The names ip prints as `link-netns NAME` for a link's nsid (link show and monitor share it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fastlink/netns.hpp"
#include "fastlink/netns_ids.hpp"

namespace fastlink::cli {

/// The namespaces under /run/netns that this one (`-n NAME`, or ours) has an id for, asked
/// once, when the first link in another namespace is printed (over a socket of its own: a dump
/// being printed may still be arriving). Like ip's netns map, not asked again afterwards.
class NetnsNames {
 public:
  explicit NetnsNames(const std::optional<std::string>& netns) {
    if (netns) ns_ = Netns::named(*netns);
  }
  const std::string* nameOf(int32_t nsid) {
    if (!ids_) ids_ = namedNetnsIds(ns_);
    auto it = ids_->find(nsid);
    return it == ids_->end() ? nullptr : &it->second;
  }

 private:
  std::optional<Netns> ns_;
  std::optional<std::map<int32_t, std::string>> ids_;
};

}  // namespace fastlink::cli
