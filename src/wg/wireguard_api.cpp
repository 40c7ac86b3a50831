// WireGuardApi: picks the backend per device like wireguard-tools' ipc.c (a device with a UAPI
// socket is userspace, any other must be a kernel "wireguard" link) and lists both kinds.
#include <algorithm>

#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/wireguard.hpp"
#include "genl/wireguard_kernel.hpp"
#include "netlink_internals.hpp"
#include "wg/backend.hpp"
#include "wg/wireguard_api.hpp"

namespace fastlink {
namespace {

constexpr const char* kKind = "wireguard";

class WireGuardApiImpl final : public WireGuardApi {
 public:
  WireGuardApiImpl(Netlink& netlink, const WireGuardOptions& options, std::unique_ptr<wg::Backend> kernel)
      : netlink_(netlink), uapi_(options.socketDirectory), kernel_(std::move(kernel)) {}

  std::vector<std::string> list() override {
    // The kernel filters by kind (one dump, only WireGuard links come back); wg instead dumps
    // every netdev and filters in user space. The kind is checked here too: a kernel without
    // the wireguard module does not know the kind and then applies no filter at all.
    std::vector<std::string> names = uapi_.list();
    for (const LinkInfo& link : netlink_.links().list(LinkFilter().setKind(kKind)))
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
    std::optional<LinkInfo> link = netlink_.links().find(name);
    if (!link)
      throw Error(std::make_error_code(std::errc::no_such_device), operation, "Cannot find device \"" + name + "\"");
    if (link->kind.value_or("") != kKind)
      throw Error(std::make_error_code(std::errc::operation_not_supported), operation,
                  "\"" + name + "\" is not a WireGuard device");
  }

  wg::Backend& kernel(const std::string& name, const std::string& operation) {
    requireKernelDevice(name, operation);
    if (kernel_) return *kernel_;
    throw Error(std::make_error_code(std::errc::protocol_not_supported), operation,
                "no kernel WireGuard backend was given (userspace devices only)");
  }

  Netlink& netlink_;
  wg::UapiBackend uapi_;
  std::unique_ptr<wg::Backend> kernel_;
};

/// The kernel backend with what it runs on: the generic netlink socket of the Netlink, and the
/// "wireguard" family id, resolved (and cached) on first use so that a kernel without the module
/// costs nothing until a kernel device is asked for.
class KernelBackend final : public wg::Backend {
 public:
  explicit KernelBackend(Netlink& netlink)
      : transport_(NetlinkInternals::genericEngine(netlink), [&netlink] { return netlink.families().get(kKind).id; }),
        backend_(transport_, netlink.links()) {}
  std::vector<std::string> list() override { return backend_.list(); }
  WgDevice get(const std::string& name) override { return backend_.get(name); }
  void set(const WgDevice& change) override { backend_.set(change); }

 private:
  genl::EngineWgTransport transport_;
  genl::WgKernelBackend backend_;
};

}  // namespace

std::unique_ptr<WireGuardApi> wg::makeWireGuardApi(Netlink& netlink, const WireGuardOptions& options,
                                                   std::unique_ptr<Backend> kernel) {
  return std::make_unique<WireGuardApiImpl>(netlink, options, std::move(kernel));
}

std::unique_ptr<WireGuardApi> makeWireGuardApi(Netlink& netlink, const WireGuardOptions& options) {
  return wg::makeWireGuardApi(netlink, options, std::make_unique<KernelBackend>(netlink));
}

}  // namespace fastlink
