#include "wg/wireguard_kernel.hpp"

#include "fastlink/error.hpp"
#include "wg/wireguard_codec.hpp"

namespace fastlink::wg {

std::vector<std::string> WgKernelBackend::list() {
  std::vector<std::string> names;
  // The kernel filters by kind (one dump, only WireGuard links come back); wg instead dumps
  // every netdev and filters in user space. The kind is checked here too: a kernel without
  // the wireguard module does not know the kind and then applies no filter at all.
  for (const LinkInfo& link : links_.list(LinkFilter().setKind("wireguard")))
    if (link.name && link.kind == "wireguard") names.push_back(*link.name);
  return names;
}

WgDevice WgKernelBackend::get(const std::string& name) {
  Request request = encodeWgGetDevice(transport_.familyId(), name);
  WgDeviceFolder folder;
  transport_.dump(
      request, [&](const nlmsghdr* m) { folder.add(m); }, [&] { folder = WgDeviceFolder(); });
  WgDevice d = folder.take();
  if (d.name.empty()) d.name = name;
  return d;
}

void WgKernelBackend::set(const WgDevice& change) {
  std::vector<Request> requests = encodeWgSetDevice(transport_.familyId(), change, budget_);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests.size() > 1)
      requests[i].setOperation(requests[i].operation() + " (message " + std::to_string(i + 1) + " of " +
                               std::to_string(requests.size()) + ")");
    transport_.execute(requests[i]);
  }
}

}  // namespace fastlink::wg
