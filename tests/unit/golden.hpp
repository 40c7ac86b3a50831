// Test-side netlink TLV builder: the independent expectation for golden-byte tests.
//
// Deliberately shares nothing with the library's encoder (no libmnl, no MessageWriter): every
// byte is laid out here by hand, little-endian (netlink is host order; the static_assert pins
// the host), so a wrong length, missing padding, a lost NLA_F_NESTED bit or a byte-order slip
// in src/ shows up as a byte difference.
//
// Layout reminders (include/uapi/linux/netlink.h, rtnetlink.h):
//   nlmsghdr  = len:u32 type:u16 flags:u16 seq:u32 pid:u32                      (16 bytes)
//   ifinfomsg = family:u8 pad:u8 type:u16 index:s32 flags:u32 change:u32          (16 bytes)
//   nlattr    = len:u16 type:u16 payload, padded with zeros to a multiple of 4; len excludes
//               the padding. A nest's payload is more attributes.
#pragma once

#include <linux/netlink.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "fastlink/error.hpp"

namespace fastlink::test {

static_assert(std::endian::native == std::endian::little, "golden bytes are written little-endian");

using Bytes = std::vector<uint8_t>;

inline constexpr uint16_t kNlaNested = 0x8000;  // NLA_F_NESTED

inline void appendLe16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v & 0xff));
  b.push_back(static_cast<uint8_t>(v >> 8));
}

inline void appendLe32(Bytes& b, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) b.push_back(static_cast<uint8_t>((v >> shift) & 0xff));
}

inline void appendLe64(Bytes& b, uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) b.push_back(static_cast<uint8_t>((v >> shift) & 0xff));
}

inline void padTo4(Bytes& b) {
  while (b.size() % 4 != 0) b.push_back(0);
}

/// Words one after another (a struct of u32s: tc_gen, tc_ratespec's tail, ...).
inline Bytes le32s(std::initializer_list<uint32_t> words) {
  Bytes b;
  for (uint32_t w : words) appendLe32(b, w);
  return b;
}

/// The 20-byte tcmsg: family u8, pad u8, pad u16, ifindex s32, handle u32, parent u32, info u32
/// (a filter's info = pref << 16 | protocol in network order).
inline Bytes tcm(int32_t ifindex, uint32_t handle, uint32_t parent, uint32_t info = 0) {
  Bytes b = {0, 0, 0, 0};
  for (uint32_t w : {static_cast<uint32_t>(ifindex), handle, parent, info}) appendLe32(b, w);
  return b;
}

/// The 16-byte ifinfomsg.
struct Ifinfo {
  uint8_t family = 0;  // AF_UNSPEC
  uint16_t type = 0;   // ARPHRD_*
  int32_t index = 0;
  uint32_t flags = 0;
  uint32_t change = 0;

  Bytes bytes() const {
    Bytes b;
    b.push_back(family);
    b.push_back(0);  // ifi_pad
    appendLe16(b, type);
    appendLe32(b, static_cast<uint32_t>(index));
    appendLe32(b, flags);
    appendLe32(b, change);
    return b;
  }
};

/// A sequence of attributes (a message body or a nest's payload).
class Attrs {
 public:
  /// Any attribute: header, payload, zero padding.
  Attrs& raw(uint16_t type, std::span<const uint8_t> payload) {
    appendLe16(bytes_, static_cast<uint16_t>(4 + payload.size()));
    appendLe16(bytes_, type);
    bytes_.insert(bytes_.end(), payload.begin(), payload.end());
    padTo4(bytes_);
    return *this;
  }
  Attrs& raw(uint16_t type, std::initializer_list<uint8_t> payload) {
    return raw(type, std::span<const uint8_t>(payload.begin(), payload.size()));
  }
  Attrs& u8(uint16_t type, uint8_t v) { return raw(type, {v}); }
  Attrs& u16(uint16_t type, uint16_t v) {
    Bytes p;
    appendLe16(p, v);
    return raw(type, p);
  }
  /// Network byte order: high byte first.
  Attrs& be16(uint16_t type, uint16_t v) { return raw(type, {static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)}); }
  Attrs& u32(uint16_t type, uint32_t v) {
    Bytes p;
    appendLe32(p, v);
    return raw(type, p);
  }
  Attrs& u64(uint16_t type, uint64_t v) {
    Bytes p;
    appendLe64(p, v);
    return raw(type, p);
  }
  /// NUL-terminated string (NLA_STRING / NLA_NUL_STRING as iproute2 sends them).
  Attrs& str(uint16_t type, std::string_view s) {
    Bytes p(s.begin(), s.end());
    p.push_back(0);
    return raw(type, p);
  }
  Attrs& flag(uint16_t type) { return raw(type, std::span<const uint8_t>()); }
  /// A nest as libmnl and iproute2 build it: NLA_F_NESTED set.
  Attrs& nest(uint16_t type, const Attrs& inner) { return raw(static_cast<uint16_t>(type | kNlaNested), inner.bytes()); }
  /// A nest as the kernel's replies build it (nla_nest_start_noflag): no NLA_F_NESTED.
  Attrs& nestNoFlag(uint16_t type, const Attrs& inner) { return raw(type, inner.bytes()); }
  /// A fixed header inside a payload (the ifinfomsg at the start of VETH_INFO_PEER).
  Attrs& header(const Ifinfo& ifi) {
    Bytes h = ifi.bytes();
    bytes_.insert(bytes_.end(), h.begin(), h.end());
    return *this;
  }

  /// Appends another attribute sequence (to compose a message from parts).
  Attrs& append(const Attrs& other) {
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
    return *this;
  }

  const Bytes& bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }

 private:
  Bytes bytes_;
};

/// nlmsghdr + already laid-out payload (padded to 4).
inline Bytes netlinkMessage(uint16_t type, uint16_t flags, std::span<const uint8_t> payload, uint32_t seq = 0,
                            uint32_t pid = 0) {
  Bytes b;
  appendLe32(b, static_cast<uint32_t>(16 + payload.size()));
  appendLe16(b, type);
  appendLe16(b, flags);
  appendLe32(b, seq);
  appendLe32(b, pid);
  b.insert(b.end(), payload.begin(), payload.end());
  padTo4(b);
  // nlmsg_len covers the padding of the last attribute too (as the kernel and libmnl do).
  uint32_t len = static_cast<uint32_t>(b.size());
  for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(len >> (8 * i));
  return b;
}

/// nlmsghdr + a family header laid out by the caller (ndmsg, fib_rule_hdr, ...) + attributes.
inline Bytes netlinkMessage(uint16_t type, uint16_t flags, const Bytes& familyHeader, const Attrs& attrs) {
  Bytes payload = familyHeader;
  payload.insert(payload.end(), attrs.bytes().begin(), attrs.bytes().end());
  return netlinkMessage(type, flags, payload);
}

/// nlmsghdr + ifinfomsg + attributes: an rtnetlink link message.
inline Bytes linkMessage(uint16_t type, uint16_t flags, const Ifinfo& ifi, const Attrs& attrs = {}, uint32_t seq = 0,
                         uint32_t pid = 0) {
  Bytes payload = ifi.bytes();
  payload.insert(payload.end(), attrs.bytes().begin(), attrs.bytes().end());
  return netlinkMessage(type, flags, payload, seq, pid);
}

inline std::string hexDump(std::span<const uint8_t> b) {
  std::string out;
  char buf[24];
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i % 16 == 0) {
      std::snprintf(buf, sizeof buf, "%s%04zx:", i ? "\n" : "", i);
      out += buf;
    }
    std::snprintf(buf, sizeof buf, " %02x", b[i]);
    out += buf;
  }
  return out;
}

/// Byte-exact comparison that prints both messages and the first differing offset.
inline ::testing::AssertionResult sameBytes(std::span<const uint8_t> actual, std::span<const uint8_t> expected) {
  if (actual.size() == expected.size() && std::equal(actual.begin(), actual.end(), expected.begin()))
    return ::testing::AssertionSuccess();
  std::size_t at = 0;
  while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) ++at;
  return ::testing::AssertionFailure() << "first difference at byte " << at << " (sizes: actual " << actual.size()
                                       << ", expected " << expected.size() << ")\nactual:\n"
                                       << hexDump(actual) << "\nexpected:\n"
                                       << hexDump(expected);
}

/// A copy of `bytes` in storage aligned for nlmsghdr, to hand to decoders.
class AlignedMessage {
 public:
  // Exactly as many words as the bytes need, so a sanitizer build catches reads past the end.
  explicit AlignedMessage(std::span<const uint8_t> bytes) : words_((bytes.size() + 3) / 4, 0) {
    if (!bytes.empty()) std::memcpy(words_.data(), bytes.data(), bytes.size());
  }
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(words_.data());
  }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }

 private:
  std::vector<uint32_t> words_;
};

/// Whether `decode(const nlmsghdr*)` refuses `bytes` as a malformed reply
/// (Errc::malformed_reply): the decoders' tests of bad input, which must not guess.
template <class Decode>
bool refusedAsMalformed(Decode decode, const Bytes& bytes) {
  AlignedMessage m(bytes);
  try {
    decode(m.as<nlmsghdr>());
  } catch (const Error& e) {
    return e.code() == make_error_code(Errc::malformed_reply);
  }
  return false;
}

}  // namespace fastlink::test
