// The escape hatch: send a netlink message fastlink does not model, with fastlink's error
// handling (fastlink::Error with the kernel's extack) and replies as raw messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"

namespace fastlink {

/// The netlink protocol a raw message is for.
enum class Protocol {
  Route,    ///< rtnetlink (links, addresses, routes, ...)
  Generic,  ///< generic netlink (family id as the message type, genlmsghdr as the header)
  Netfilter,  ///< nfnetlink (subsystem << 8 | message as the type, nfgenmsg as the header)
};

/// One netlink message as parts fastlink does not interpret: the message type, the flags, the
/// family header (ifinfomsg, rtmsg, genlmsghdr, ... as bytes) and the attributes.
struct RawMessage {
  uint16_t type = 0;
  /// Netlink flags besides REQUEST, ACK and DUMP (fastlink sets those itself), e.g. 0x400|0x200
  /// for "create, exclusive". On a reply: the flags as the kernel sent them.
  uint16_t flags = 0;
  std::vector<uint8_t> header;  ///< the family header; padded to 4 bytes on the wire
  RawAttributes attributes;

  /// Parses one whole message (as `bytes`, netlink header first): `headerSize` bytes of family
  /// header, then attributes. Throws Error(Errc::malformed_reply) if it is shorter than that.
  static RawMessage parse(std::span<const uint8_t> bytes, std::size_t headerSize);
  /// Encodes the message into a Request (for a batch, or Netlink::execute).
  Request toRequest(std::string operation) const;
};

/// Raw requests over one protocol's socket (see Netlink::raw). Replies are parsed with a family
/// header as long as the request's unless `replyHeaderSize` says otherwise.
class RawApi {
 public:
  /// Sends the message and waits for its ACK; throws fastlink::Error (errno + extack).
  /// Equivalent to: none; whatever the message says (e.g. `ip link add ...` as raw bytes).
  void execute(const RawMessage& message, const std::string& operation = "raw request");
  /// Sends a request answered by one message (a `get`) and returns that message.
  /// Equivalent to: e.g. `ip link show dev X` as raw bytes.
  RawMessage query(const RawMessage& message, const std::string& operation = "raw get",
                   std::optional<std::size_t> replyHeaderSize = std::nullopt);
  /// Sends the message as a dump (NLM_F_DUMP added) and calls `onMessage` with every reply;
  /// an interrupted dump is restarted after `onRestart` (see Engine::dump).
  /// Equivalent to: e.g. `ip link show` as raw bytes.
  void dump(const RawMessage& message, const std::function<void(const RawMessage&)>& onMessage,
            const std::string& operation = "raw dump", std::optional<std::size_t> replyHeaderSize = std::nullopt,
            const std::function<void()>& onRestart = {});
  /// The same, collected.
  std::vector<RawMessage> dumpAll(const RawMessage& message, const std::string& operation = "raw dump",
                                  std::optional<std::size_t> replyHeaderSize = std::nullopt);
  /// A dump of encoded messages (e.g. Request::bytes(), NLM_F_DUMP set by the caller) whose
  /// replies reach `onMessage` as bytes (netlink header first), in place and valid during the
  /// call: nothing is copied or parsed, for dumps of many objects (StateMirror's reads).
  /// Equivalent to: dump() above, without the RawMessage per reply.
  void dumpBytes(std::span<const uint8_t> request, const std::function<void(std::span<const uint8_t>)>& onMessage,
                 const std::string& operation = "raw dump", const std::function<void()>& onRestart = {});

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit RawApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

}  // namespace fastlink
