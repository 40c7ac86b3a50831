// Golden replies for the netdev family's NAPI decoder (src/netdev/napi.cpp): NETDEV_CMD_NAPI_GET
// replies laid out by hand like the kernel's netdev_nl_napi_fill_one, attribute numbers from
// include/uapi/linux/netdev.h written out (Debian 12's headers predate them).
#include <gtest/gtest.h>

#include "fastlink/error.hpp"
#include "fastlink/napi.hpp"
#include "netdev/napi_codec.hpp"
#include "unit/genl_golden.hpp"

namespace fastlink::test {
namespace {

constexpr uint8_t kCmdNapiGet = 11;
constexpr uint16_t kIfindex = 1, kId = 2, kIrq = 3, kPid = 4, kThreaded = 8;
const GenlMessages kNetdev(GenlFamily{"netdev", 0x14, 1});

NapiInfo decode(const Attrs& attrs) {
  AlignedMessage m(kNetdev(kCmdNapiGet, attrs, 0));
  return netdev::decodeNapi(m.as<nlmsghdr>());
}

TEST(NapiDecode, EveryAttributeAndOnesFromNewerKernelsIgnored) {
  NapiInfo n = decode(Attrs().u32(kId, 8193).u32(kIfindex, 3).u32(kIrq, 41).u32(kPid, 977).u32(9, 5).u32(kThreaded, 1));
  EXPECT_EQ(n, (NapiInfo{8193, 3, 41, 977, true}));
  // Threaded is a u32: 2 is "on" too, and a value whose low byte is 0 is not "off".
  EXPECT_EQ(decode(Attrs().u32(kId, 1).u32(kThreaded, 0x100)).threaded, true);
  EXPECT_EQ(decode(Attrs().u32(kId, 1).u32(kThreaded, 0)).threaded, false);
}

TEST(NapiDecode, AbsentAttributesStayUnsetAndShortOnesAreMalformed) {
  NapiInfo n = decode(Attrs().u32(kIfindex, 2).u32(kId, 8200));
  EXPECT_EQ(n, (NapiInfo{8200, 2, std::nullopt, std::nullopt, std::nullopt}));
  for (uint16_t type : {kIfindex, kId, kIrq, kPid, kThreaded}) {
    try {
      decode(Attrs().u32(kId, 1).raw(type, {1, 2}));
      ADD_FAILURE() << "attribute " << type << " of 2 bytes: no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply)) << type;
    }
  }
  AlignedMessage bare(netlinkMessage(0x14, 0, Bytes{}));  // no room for the generic header
  EXPECT_THROW(netdev::decodeNapi(bare.as<nlmsghdr>()), Error);
}

}  // namespace
}  // namespace fastlink::test
