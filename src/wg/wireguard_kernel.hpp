// The kernel WireGuard backend: the codec (wireguard_codec.hpp) over a small transport, so the
// backend is complete and unit-tested now, and wiring it to a socket is one adapter: the
// generic netlink engine plus the family resolver (EngineWgTransport below).
#pragma once

#include <cstdint>
#include <functional>

#include "core/engine.hpp"
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

/// The transport over the generic netlink engine; `resolveFamily` returns the family id (the
/// genl helper's cached family lookup).
class EngineWgTransport final : public WgKernelTransport {
 public:
  EngineWgTransport(core::Engine& engine, std::function<uint16_t()> resolveFamily)
      : engine_(engine), resolveFamily_(std::move(resolveFamily)) {}
  uint16_t familyId() override { return resolveFamily_(); }
  void execute(const Request& r) override { engine_.execute(r); }
  void dump(const Request& r, const core::MessageHandler& onMessage, const std::function<void()>& onRestart) override {
    engine_.dump(r.bytes(), r.operation(), onMessage, onRestart);
  }

 private:
  core::Engine& engine_;
  std::function<uint16_t()> resolveFamily_;
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
