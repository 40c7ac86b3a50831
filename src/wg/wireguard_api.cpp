// WireGuardApi: picks the backend per device like wireguard-tools' ipc.c (a device with a UAPI
// socket is userspace, any other must be a kernel "wireguard" link) and lists both kinds.
#include <algorithm>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/wireguard.hpp"
#include "wg/backend.hpp"
#include "wg/wireguard_kernel.hpp"

namespace fastlink {
namespace {

constexpr const char* kKind = "wireguard";

class WireGuardApiImpl final : public WireGuardApi {
 public:
  // The kernel backend runs on the Netlink's generic netlink socket and its "wireguard" family
  // (EngineWgTransport), resolved on first use.
  WireGuardApiImpl(ILinkApi& links, const std::string& socketDirectory, GenlApi& families, core::Engine& engine)
      : links_(links), uapi_(socketDirectory), transport_(families, engine), kernel_(transport_, links) {}

  std::vector<std::string> list() override {
    std::vector<std::string> names = uapi_.list();
    std::vector<std::string> kernel = kernel_.list();
    names.insert(names.end(), kernel.begin(), kernel.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  WgDevice get(const std::string& name) override { return backend(name, "wg show " + name).get(name); }

  void set(const WgDevice& change) override {
    validate(change);
    backend(change.name, "wg set " + change.name).set(change);
  }

  WgBackendKind backendOf(const std::string& name) override {
    return &backend(name, "wg show " + name) == &uapi_ ? WgBackendKind::Userspace : WgBackendKind::Kernel;
  }

 private:
  /// Checks what neither backend can express, before anything is sent.
  static void validate(const WgDevice& change) {
    validateIfname(change.name);
    for (const WgPeer& p : change.peers) {
      if (p.remove && (p.presharedKey || p.endpoint || p.persistentKeepalive || !p.allowedIps.empty()))
        throw Error::invalidArgument("wg set " + change.name, "a peer that is removed takes no other settings");
      for (const WgAllowedIp& ip : p.allowedIps)
        if (ip.prefix.hasHostBits())
          throw Error::invalidArgument("wg set " + change.name,
                                       "allowed IP " + ip.prefix.toStringWithLength() + " has host bits set");
    }
  }

  /// The backend of device `name`: userspace when it has a UAPI socket, else the kernel's, for
  /// a "wireguard" link (Error naming `operation` for anything else).
  wg::Backend& backend(const std::string& name, const std::string& operation) {
    if (uapi_.has(name)) return uapi_;
    validateIfname(name);
    std::optional<LinkInfo> link = links_.find(name);
    if (!link)
      throw Error(std::make_error_code(std::errc::no_such_device), operation, "Cannot find device \"" + name + "\"");
    if (link->kind.value_or("") != kKind)
      throw Error(std::make_error_code(std::errc::operation_not_supported), operation,
                  "\"" + name + "\" is not a WireGuard device");
    return kernel_;
  }

  ILinkApi& links_;
  wg::UapiBackend uapi_;
  wg::EngineWgTransport transport_;
  wg::WgKernelBackend kernel_;
};

}  // namespace

WireGuardApi& Netlink::wireguard() {
  if (!wireguard_)
    wireguard_ = ApiPtr<WireGuardApi>(
        new WireGuardApiImpl(links(), options_.wireguardSocketDirectory, families(), genericEngine()),
        [](WireGuardApi* p) { delete p; });
  return *wireguard_;
}

}  // namespace fastlink
