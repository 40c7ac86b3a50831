// The kernel WireGuard backend: the codec (wireguard_codec.hpp) over a small transport, so the
// backend is unit-tested without a socket, and wiring it to one is one adapter on the base of
// every generic netlink family (GenlFamilyApi: EngineWgTransport below).
#pragma once

#include <cstdint>
#include <functional>

#include "core/engine.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/link.hpp"
#include "fastlink/request.hpp"
#include "wg/backend.hpp"

namespace fastlink::wg {

/// What the kernel backend needs from generic netlink.
class WgKernelTransport {
 public:
  virtual ~WgKernelTransport() = default;
  /// The id of the "wireguard" family; throws fastlink::Error when the module is absent.
  virtual uint16_t familyId() = 0;
  /// Sends one request and waits for its ACK; throws fastlink::Error.
  virtual void execute(const Request& request) = 0;
  /// Sends a dump request, streams every reply message; `onRestart` before a restarted dump.
  virtual void dump(const Request& request, const core::MessageHandler& onMessage,
                    const std::function<void()>& onRestart) = 0;
};

/// The transport over the Netlink's generic netlink socket and its "wireguard" family, resolved
/// on first use (so a kernel without the module costs nothing until a kernel device is asked for).
class EngineWgTransport final : public WgKernelTransport, private GenlFamilyApi {
 public:
  EngineWgTransport(GenlApi& families, core::Engine& engine) : GenlFamilyApi(families, engine, "wireguard") {}
  uint16_t familyId() override { return family().id; }
  void execute(const Request& r) override { GenlFamilyApi::execute(r); }
  void dump(const Request& r, const core::MessageHandler& onMessage, const std::function<void()>& onRestart) override {
    GenlFamilyApi::dump(r, onMessage, onRestart);
  }
};

/// WG_CMD_GET_DEVICE / WG_CMD_SET_DEVICE over a transport; devices are listed with a
/// kind-filtered link dump.
class WgKernelBackend final : public wg::Backend {
 public:
  WgKernelBackend(WgKernelTransport& transport, ILinkApi& links, std::size_t budget = 4096)
      : transport_(transport), links_(links), budget_(budget) {}
  std::vector<std::string> list() override;
  /// Folds a peer split across dump messages back into one WgPeer.
  WgDevice get(const std::string& name) override;
  /// Sends the change as a sequence of messages of at most `budget` bytes, in order; stops at
  /// the first refused one (the error says which message of how many; the earlier ones were
  /// applied, as with wg).
  void set(const WgDevice& change) override;

 private:
  WgKernelTransport& transport_;
  ILinkApi& links_;
  std::size_t budget_;
};

}  // namespace fastlink::wg
