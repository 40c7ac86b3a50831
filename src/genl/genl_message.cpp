// The generic netlink message kit: header on the way out, header + attributes on the way in.
#include "genl/genl_message.hpp"

#include "fastlink/error.hpp"

namespace fastlink::genl {

GenlWriter::GenlWriter(const GenlFamily& family, uint8_t cmd, uint8_t version, uint16_t flags, uint32_t familyHeaderSize)
    : core::MessageWriter(family.id, flags), familyHeaderSize_(familyHeaderSize) {
  genlmsghdr& g = putHeader<genlmsghdr>();
  g.cmd = cmd;
  g.version = version;
  // A family header (rare: most families have none) is put zero-filled for the caller to fill;
  // it is padded to 4 bytes like every netlink header.
  for (uint32_t i = 0; i < NLMSG_ALIGN(familyHeaderSize) / 4; ++i) putHeader<uint32_t>();
}

std::span<const uint8_t> genlPayload(const nlmsghdr* message, const char* operation, uint32_t familyHeaderSize) {
  std::size_t headers = NLMSG_HDRLEN + GENL_HDRLEN + NLMSG_ALIGN(familyHeaderSize);
  if (message->nlmsg_len < headers)
    throw Error(make_error_code(Errc::malformed_reply), operation,
                "message of " + std::to_string(message->nlmsg_len) + " bytes is shorter than its headers");
  return {reinterpret_cast<const uint8_t*>(message) + headers, message->nlmsg_len - headers};
}

GenlReply decodeGenl(const nlmsghdr* message, uint16_t maxAttr, uint32_t familyHeaderSize) {
  std::span<const uint8_t> attributes = genlPayload(message, "generic netlink reply", familyHeaderSize);
  const auto* g = core::messageHeader<genlmsghdr>(message);
  return GenlReply{g->cmd, g->version, core::AttrTable(attributes, maxAttr)};
}

}  // namespace fastlink::genl
