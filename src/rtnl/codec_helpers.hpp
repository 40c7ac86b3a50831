// Helpers shared by every rtnetlink codec: the one Verb, request flags, validation and decode
// errors, fixed-size payloads, addresses, namespaces, ifindexes, unknown attributes.
#pragma once

#include <sys/socket.h>
#include <libmnl/libmnl.h>

#include <concepts>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/attr_fields.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fastlink/types.hpp"

namespace fastlink::rtnl {

// The attribute tables and their readers are core's (core/attr_fields.hpp); every rtnetlink
// codec uses them under their own names.
using core::AttrField;
using core::badAddressLength;
using core::decodeBits;
using core::encodeBits;
using core::field;
using core::FieldContext;
using core::FieldTable;
using core::FlagBit;
using core::forEachAttr;
using core::putNumber;
using core::readAddress;
using core::readNumber;
using core::requireIndex;
using core::Wire;
namespace fields = core::fields;

/// The style guide's fixed verbs, one meaning each, shared by every codec. Append (route, fdb)
/// is a create that adds beside an existing object; neighbours call Set "change".
enum class Verb { Add, Del, Set, Replace, Append, Get, List, Change };

/// "add", "del", "set", ... as iproute2 spells the verb.
const char* verbWord(Verb verb);

/// NLM_F_* of a change request: Add creates exclusively, Replace creates or overwrites, Append
/// creates beside, Change overwrites without creating; Del and Set carry none.
uint16_t createFlags(Verb verb);

/// The rtnetlink message type of a change: RTM_DEL* for Del, else RTM_NEW* (every family puts
/// DEL right after NEW).
inline uint16_t messageType(Verb verb, uint16_t newType) {
  return verb == Verb::Del ? static_cast<uint16_t>(newType + 1) : newType;
}

/// Things an encoder must keep alive until the request is sent (open namespace fds).
using KeepAlive = std::vector<std::shared_ptr<const void>>;

/// Error(EINVAL) for bad input of `operation`.
inline Error invalid(const std::string& operation, const std::string& why) {
  return Error::invalidArgument(operation, why);
}
/// Same, for a builder's lazy description (a callable): it is formatted only now.
template <std::invocable Describe>
Error invalid(const Describe& operation, const std::string& why) {
  return Error::invalidArgument(operation(), why);
}
/// A request's description, formatted only if it is ever read (a failure): `info` is copied
/// with the request and describe(verb, info) runs on demand. See Request::Describer.
template <class Info, class Describe>
Request::Describer lazily(Verb verb, Info info, Describe describe) {
  return [verb, info = std::move(info), describe] { return describe(verb, info); };
}
/// Error(malformed_reply) for a message the kernel should not have sent ("decode route").
inline Error malformed(const std::string& what, const std::string& why) {
  return Error(make_error_code(Errc::malformed_reply), what, why);
}

/// The attributes after a message's family header of `headerSize` bytes.
inline std::span<const uint8_t> attrsOf(const nlmsghdr* message, std::size_t headerSize) {
  std::size_t offset = NLMSG_HDRLEN + MNL_ALIGN(headerSize);
  if (message->nlmsg_len < offset) return {};
  return {reinterpret_cast<const uint8_t*>(message) + offset, message->nlmsg_len - offset};
}

/// The family header of a message; one too short for it is malformed ("short NOUN message").
template <class Header>
const Header& headerOf(const nlmsghdr* message, const std::string& noun) {
  const Header* h = core::messageHeader<Header>(message);
  if (!h) throw malformed("decode " + noun, "short " + noun + " message");
  return *h;
}

/// Sets of families (bit n: family n), for the messages a dump keeps.
constexpr uint64_t kAnyFamily = ~uint64_t{0};
constexpr uint64_t familyBit(unsigned family) { return uint64_t{1} << family; }
constexpr uint64_t kIpFamilies = familyBit(AF_INET) | familyBit(AF_INET6);
/// Every rtnetlink header starts with its family byte.
inline bool hasFamily(const nlmsghdr* m, uint64_t families) {
  if (families == kAnyFamily) return true;
  if (m->nlmsg_len < NLMSG_HDRLEN + 1) return false;
  unsigned family = *static_cast<const uint8_t*>(NLMSG_DATA(m));
  return family < 64 && (families >> family & 1);
}

/// AF_INET / AF_INET6.
uint8_t familyOf(IpAddress::Family family);
/// "IPv4" / "IPv6".
inline const char* familyWord(IpAddress::Family f) { return f == IpAddress::Family::v4 ? "IPv4" : "IPv6"; }
/// A device in a description: its name, or its ifindex as a bare number.
std::string devWord(const Ifref& dev);

/// A fixed-size kernel struct from an attribute; older kernels may send less (zero-filled).
template <class T>
T readStruct(const nlattr* attr) {
  T out{};
  auto b = core::readBytes(attr);
  std::memcpy(&out, b.data(), std::min(b.size(), sizeof out));
  return out;
}
/// Like readStruct, but a payload shorter than T is a malformed reply.
template <class T>
T readExact(const nlattr* attr, const std::string& what) {
  if (core::readBytes(attr).size() < sizeof(T)) throw malformed(what, "short attribute " + std::to_string(core::attrType(attr)));
  return readStruct<T>(attr);
}
template <class T>
void putStruct(core::MessageWriter& writer, uint16_t type, const T& value) {
  writer.putBytes(type, {reinterpret_cast<const uint8_t*>(&value), sizeof value});
}



/// Writes IFLA_NET_NS_FD / IFLA_NET_NS_PID for moving a device (or a veth peer) to `ns`.
void encodeNetns(core::MessageWriter& writer, const Netns& ns, KeepAlive& keep);

/// Keeps every attribute of a nest that the decoder did not consume.
void keepUnknown(const core::AttrTable& table, const std::vector<uint16_t>& known, RawAttributes& out);


}  // namespace fastlink::rtnl
