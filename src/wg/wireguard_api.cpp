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

/// The kernel backend with what it runs on: the Netlink's generic netlink socket and the
/// "wireguard" family (EngineWgTransport).
class KernelBackend final : public wg::Backend {
 public:
  KernelBackend(wg::EngineWgTransport transport, ILinkApi& links)
      : transport_(std::move(transport)), backend_(transport_, links) {}
  std::vector<std::string> list() override { return backend_.list(); }
  WgDevice get(const std::string& name) override { return backend_.get(name); }
  void set(const WgDevice& change) override { backend_.set(change); }

 private:
  wg::EngineWgTransport transport_;
  wg::WgKernelBackend backend_;
};

class WireGuardApiImpl final : public WireGuardApi {
 public:
  WireGuardApiImpl(ILinkApi& links, const std::string& socketDirectory, std::unique_ptr<KernelBackend> kernel)
      : links_(links), uapi_(socketDirectory), kernel_(std::move(kernel)) {}

  std::vector<std::string> list() override {
    // The kernel filters by kind (one dump, only WireGuard links come back); wg instead dumps
    // every netdev and filters in user space. The kind is checked here too: a kernel without
    // the wireguard module does not know the kind and then applies no filter at all.
    std::vector<std::string> names = uapi_.list();
    for (const LinkInfo& link : links_.list(LinkFilter().setKind(kKind)))
      if (link.name && link.kind == kKind) names.push_back(*link.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  WgDevice get(const std::string& name) override {
    if (uapi_.has(name)) return uapi_.get(name);
    return kernel(name, "wg show " + name).get(name);
  }

  void set(const WgDevice& change) override {
    validate(change);
    if (uapi_.has(change.name)) return uapi_.set(change);
    kernel(change.name, "wg set " + change.name).set(change);
  }

  WgBackendKind backendOf(const std::string& name) override {
    if (uapi_.has(name)) return WgBackendKind::Userspace;
    requireKernelDevice(name, "wg show " + name);
    return WgBackendKind::Kernel;
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

  void requireKernelDevice(const std::string& name, const std::string& operation) {
    validateIfname(name);
    std::optional<LinkInfo> link = links_.find(name);
    if (!link)
      throw Error(std::make_error_code(std::errc::no_such_device), operation, "Cannot find device \"" + name + "\"");
    if (link->kind.value_or("") != kKind)
      throw Error(std::make_error_code(std::errc::operation_not_supported), operation,
                  "\"" + name + "\" is not a WireGuard device");
  }

  wg::Backend& kernel(const std::string& name, const std::string& operation) {
    requireKernelDevice(name, operation);
    return *kernel_;
  }

  ILinkApi& links_;
  wg::UapiBackend uapi_;
  std::unique_ptr<KernelBackend> kernel_;
};

}  // namespace

WireGuardApi& Netlink::wireguard() {
  if (!wireguard_)
    wireguard_ = ApiPtr<WireGuardApi>(
        new WireGuardApiImpl(links(), options_.wireguardSocketDirectory, std::make_unique<KernelBackend>(wg::EngineWgTransport(families(), genericEngine()), links())),
        [](WireGuardApi* p) { delete p; });
  return *wireguard_;
}

}  // namespace fastlink
