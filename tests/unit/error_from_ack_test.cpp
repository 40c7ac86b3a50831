// core::errorFromAck on hand-built NLMSG_ERROR / NLMSG_DONE messages, shaped the way
// netlink_ack() and netlink_dump_done() build them.
#include <iterator>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <climits>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "unit/golden.hpp"

namespace fastlink::core {
namespace {

using test::AlignedMessage;
using test::appendLe32;
using test::Attrs;
using test::Bytes;

// The request the error answers: RTM_NEWLINK, 48 bytes (ifinfomsg + IFNAME "v0" + MTU).
Bytes originalRequest() {
  return test::linkMessage(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, {}, Attrs().str(3, "v0").u32(4, 9000), 1234, 0);
}

/// NLMSG_ERROR: nlmsghdr, int error, then the request's nlmsghdr (capped) or the whole request
/// (uncapped), then the extended-ACK TLVs.
Bytes errorMessage(int error, bool capped, const Attrs& tlvs) {
  Bytes request = originalRequest();
  std::size_t echoed = capped ? 16 : request.size();
  Bytes payload;
  appendLe32(payload, static_cast<uint32_t>(error));
  for (std::size_t i = 0; i < echoed; ++i) payload.push_back(request[i]);
  test::padTo4(payload);
  for (uint8_t b : tlvs.bytes()) payload.push_back(b);
  uint16_t flags = (capped ? NLM_F_CAPPED : 0) | (tlvs.size() ? NLM_F_ACK_TLVS : 0);
  return test::netlinkMessage(NLMSG_ERROR, flags, payload, 1234, 77);
}

std::optional<Error> decode(const Bytes& bytes, const std::string& op = "link set dev v0") {
  AlignedMessage m(bytes);
  return errorFromAck(m.as<nlmsghdr>(), op);
}

TEST(ErrorFromAck, PositiveAckIsNotAnError) {
  EXPECT_FALSE(decode(errorMessage(0, true, {})).has_value());
  EXPECT_FALSE(decode(errorMessage(0, false, {})).has_value());
}

TEST(ErrorFromAck, PositiveAckWithWarningTlvsIsStillNotAnError) {
  EXPECT_FALSE(decode(errorMessage(0, true, Attrs().str(NLMSGERR_ATTR_MSG, "warning only"))).has_value());
}

TEST(ErrorFromAck, CappedWithMessageAndOffset) {
  auto e = decode(errorMessage(-EINVAL, true, Attrs().str(NLMSGERR_ATTR_MSG, "MTU too small").u32(NLMSGERR_ATTR_OFFS, 36)));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
  EXPECT_EQ(e->extack(), "MTU too small");
  EXPECT_EQ(e->extackOffset(), 36u);
  EXPECT_EQ(e->operation(), "link set dev v0");
  EXPECT_STREQ(e->what(), "MTU too small (link set dev v0)");
}

TEST(ErrorFromAck, UncappedTlvsFollowTheEchoedRequest) {
  auto e = decode(errorMessage(-EOPNOTSUPP, false, Attrs().str(NLMSGERR_ATTR_MSG, "not supported").u32(NLMSGERR_ATTR_OFFS, 40)));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::operation_not_supported);
  EXPECT_EQ(e->extack(), "not supported");
  EXPECT_EQ(e->extackOffset(), 40u);
}

TEST(ErrorFromAck, UncappedWithoutTlvs) {
  auto e = decode(errorMessage(-ENODEV, false, {}));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::no_such_device);
  EXPECT_EQ(e->extack(), "");
  EXPECT_FALSE(e->extackOffset().has_value());
  EXPECT_EQ(std::string(e->what()), std::generic_category().message(ENODEV) + " (link set dev v0)");
}

TEST(ErrorFromAck, TlvsIgnoredWithoutTheAckTlvsFlag) {
  Bytes m = errorMessage(-EEXIST, true, Attrs().str(NLMSGERR_ATTR_MSG, "ignored"));
  m[7] &= static_cast<uint8_t>(~(NLM_F_ACK_TLVS >> 8));  // nlmsg_flags high byte: clear NLM_F_ACK_TLVS
  auto e = decode(m);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::file_exists);
  EXPECT_EQ(e->extack(), "");
}

TEST(ErrorFromAck, MissingAttributeWithoutMessage) {
  auto e = decode(errorMessage(-EINVAL, true, Attrs().u32(NLMSGERR_ATTR_MISS_TYPE, 3).u32(NLMSGERR_ATTR_MISS_NEST, 32)));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
  EXPECT_EQ(e->extack(), "missing attribute (type 3)");
}

TEST(ErrorFromAck, MessageWinsOverMissingType) {
  auto e = decode(errorMessage(-EINVAL, true, Attrs().str(NLMSGERR_ATTR_MSG, "need a name").u32(NLMSGERR_ATTR_MISS_TYPE, 3)));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->extack(), "need a name");
}

TEST(ErrorFromAck, UnknownTlvsAreSkipped) {
  auto e = decode(errorMessage(-EBUSY, true,
                               Attrs().raw(NLMSGERR_ATTR_COOKIE, {1, 2, 3}).nest(NLMSGERR_ATTR_POLICY, Attrs().u32(1, 1))
                                   .raw(200, {9}).str(NLMSGERR_ATTR_MSG, "busy")));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::device_or_resource_busy);
  EXPECT_EQ(e->extack(), "busy");
}

TEST(ErrorFromAck, MessageWithoutNulStopsAtThePayload) {
  auto e = decode(errorMessage(-EINVAL, true, Attrs().raw(NLMSGERR_ATTR_MSG, {'a', 'b', 'c'})));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->extack(), "abc");
}

TEST(ErrorFromAck, DoneWithoutErrorIsTheEndOfADump) {
  Bytes payload;
  appendLe32(payload, 0);
  EXPECT_FALSE(decode(test::netlinkMessage(NLMSG_DONE, NLM_F_MULTI, payload)).has_value());
  // Old kernels send NLMSG_DONE with no payload at all.
  EXPECT_FALSE(decode(test::netlinkMessage(NLMSG_DONE, NLM_F_MULTI, {})).has_value());
}

TEST(ErrorFromAck, DoneCarryingAnError) {
  Bytes payload;
  appendLe32(payload, static_cast<uint32_t>(-EMSGSIZE));
  Attrs tlvs = Attrs().str(NLMSGERR_ATTR_MSG, "dump too big");
  // std::copy rather than insert: GCC 12 warns falsely (-Wstringop-overflow) on the insert.
  std::copy(tlvs.bytes().begin(), tlvs.bytes().end(), std::back_inserter(payload));
  auto e = decode(test::netlinkMessage(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS, payload), "link show");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::message_size);
  EXPECT_EQ(e->extack(), "dump too big");
  EXPECT_EQ(e->operation(), "link show");
}

TEST(ErrorFromAck, ShortErrorMessageIsMalformed) {
  Bytes payload;
  appendLe32(payload, static_cast<uint32_t>(-EINVAL));  // the error, but no echoed header
  auto e = decode(test::netlinkMessage(NLMSG_ERROR, 0, payload));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), make_error_code(Errc::malformed_reply));
  EXPECT_EQ(e->extack(), "short error message");
}

TEST(ErrorFromAck, EchoedLengthBeyondTheMessageMeansNoTlvs) {
  Bytes m = errorMessage(-EINVAL, false, Attrs().str(NLMSGERR_ATTR_MSG, "x"));
  // Claim the echoed request was 4000 bytes long: the TLVs would start past the end.
  m[20] = 0xa0, m[21] = 0x0f;
  auto e = decode(m);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
  EXPECT_EQ(e->extack(), "");
}

TEST(ErrorFromAck, EchoedLengthBelowAHeaderMeansNoTlvs) {
  Bytes m = errorMessage(-EINVAL, false, Attrs().str(NLMSGERR_ATTR_MSG, "x"));
  m[20] = 3, m[21] = 0;  // an echoed nlmsg_len smaller than nlmsghdr must not wrap around
  auto e = decode(m);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
}

TEST(ErrorFromAck, TruncatedTlvIsIgnored) {
  Bytes m = errorMessage(-EINVAL, true, Attrs().str(NLMSGERR_ATTR_MSG, "truncated message"));
  // Cut the message in the middle of the TLV, keeping nlmsg_len consistent.
  m.resize(m.size() - 8);
  m[0] = static_cast<uint8_t>(m.size());
  auto e = decode(m);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
  EXPECT_EQ(e->extack(), "");
}

TEST(ErrorFromAck, ShortOffsetTlvIsSkippedAndTheErrnoKept) {
  // An NLMSGERR_ATTR_OFFS shorter than a u32 is not read past its end, and does not hide the
  // kernel's errno or message.
  auto e = decode(errorMessage(-EINVAL, true,
                               Attrs().str(NLMSGERR_ATTR_MSG, "bad mtu").raw(NLMSGERR_ATTR_OFFS, {1, 0})));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), std::errc::invalid_argument);
  EXPECT_EQ(e->extack(), "bad mtu");
  EXPECT_FALSE(e->extackOffset().has_value());
}

TEST(ErrorFromAck, ErrnoOutOfRangeIsStillAnError) {
  // Not something a kernel sends; the decoder must still produce an error, without undefined
  // behaviour (negating INT_MIN overflows: run with -DFASTLINK_SANITIZE=ON to see it).
  for (int code : {INT_MIN + 1, INT_MIN}) {
    auto e = decode(errorMessage(code, true, {}));
    ASSERT_TRUE(e.has_value());
    EXPECT_NE(e->code().value(), 0);
  }
}

}  // namespace
}  // namespace fastlink::core
