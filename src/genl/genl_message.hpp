// Generic netlink messages: nlmsghdr{type = family id} + genlmsghdr{cmd, version} + attributes.
// The shared kit of every family codec (src/genl/ctrl_codec.cpp here, src/ethtool/, src/netdev/,
// src/wg/wireguard_codec.cpp).
//
// Encoding, in a family's request builder (no I/O: the family was resolved by the caller;
// src/ethtool/ethtool.cpp):
//
//   genl::GenlWriter w(family, ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_GENL_VERSION);
//   ... w.beginNest / w.putU32 ...                   // w is a core::MessageWriter
//   return w.toRequest("ethtool -L " + name);
//
// Decoding, in the reply handler (src/netdev/napi.cpp):
//
//   genl::GenlReply r = genl::decodeGenl(m, kNapiMax);  // throws on a short message
//   if (auto* a = r.attrs.get(kNapiId)) n.id = core::readU32(a);
#pragma once

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstdint>

#include "core/message.hpp"
#include "fastlink/genl.hpp"

namespace fastlink::genl {

/// A MessageWriter that starts with the generic header: the message type is the family's id,
/// and a family header of `family.headerSize` bytes (zero-filled) follows when the family has one
/// (use familyHeader() to fill it).
class GenlWriter : public core::MessageWriter {
 public:
  GenlWriter(const GenlFamily& family, uint8_t cmd, uint8_t version, uint16_t flags = 0, uint32_t familyHeaderSize = 0);
  /// The generic header (already filled with cmd and version).
  genlmsghdr& genlHeader() { return *reinterpret_cast<genlmsghdr*>(reinterpret_cast<uint8_t*>(header()) + NLMSG_HDRLEN); }
  /// The family header's bytes (familyHeaderSize of them, zero-filled), or nullptr without one.
  uint8_t* familyHeader() {
    return familyHeaderSize_ ? reinterpret_cast<uint8_t*>(header()) + NLMSG_HDRLEN + GENL_HDRLEN : nullptr;
  }

 private:
  // No pointers are kept: the writer's buffer grows (and moves) as attributes are put.
  uint32_t familyHeaderSize_;
};

/// A received generic netlink message: its command, version and attributes.
struct GenlReply {
  uint8_t cmd = 0;
  uint8_t version = 0;
  core::AttrTable attrs;
};

/// The attributes of `message` after its generic header and a family header of
/// `familyHeaderSize` bytes, for a FieldTable to decode (core::decodeKnown). Throws
/// Error(Errc::malformed_reply) for `operation` when the message is too short for its headers.
std::span<const uint8_t> genlPayload(const nlmsghdr* message, const char* operation = "generic netlink reply",
                                     uint32_t familyHeaderSize = 0);

/// Reads the generic header of `message` and indexes the attributes after it (and after a family
/// header of `familyHeaderSize` bytes). Throws Error(Errc::malformed_reply) when the message is
/// too short for its headers.
GenlReply decodeGenl(const nlmsghdr* message, uint16_t maxAttr, uint32_t familyHeaderSize = 0);

}  // namespace fastlink::genl
