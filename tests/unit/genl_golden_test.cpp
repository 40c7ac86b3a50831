// Golden bytes for generic netlink: the controller's GETFAMILY requests, the genl message kit
// (GenlWriter / decodeGenl) and the decoder of a family description (a constructed reply with
// commands and multicast groups, laid out by hand like the kernel's ctrl_fill_info does).
// genlmsghdr by hand: cmd:u8 version:u8 reserved:u16.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "genl/ctrl_codec.hpp"
#include "genl/genl_message.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

Bytes genlHeader(uint8_t cmd, uint8_t version) { return {cmd, version, 0, 0}; }

TEST(GenlGolden, GetFamilyByName) {
  // genl ctrl get name wireguard: type GENL_ID_CTRL (0x10), cmd CTRL_CMD_GETFAMILY (3),
  // CTRL_ATTR_FAMILY_NAME (2) = "wireguard\0" (10 bytes, padded to 12).
  Request r = GenlRequests::getFamily("wireguard");
  Bytes expected = test::netlinkMessage(0x10, NLM_F_REQUEST, genlHeader(3, 2), Attrs().str(2, "wireguard"));
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.bytes().size(), 16u + 4u + 4u + 12u);
  EXPECT_EQ(r.operation(), "genl ctrl get name wireguard");
}

TEST(GenlGolden, ListFamiliesIsABareGetFamily) {
  // The engine adds NLM_F_DUMP when it sends a dump; the request itself carries no attribute.
  Request r = GenlRequests::listFamilies();
  Bytes expected = test::netlinkMessage(0x10, NLM_F_REQUEST, genlHeader(3, 2), Attrs());
  EXPECT_TRUE(sameBytes(r.bytes(), expected));
  EXPECT_EQ(r.operation(), "genl ctrl list");
}

TEST(GenlGolden, NamesTheKernelCannotHoldAreRefusedBeforeSending) {
  try {
    GenlRequests::getFamily("a-name-of-16-chr");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
  }
  EXPECT_THROW(GenlRequests::getFamily(""), Error);
  EXPECT_NO_THROW(GenlRequests::getFamily("a-name-of-15-ch"));
}

TEST(GenlGolden, WriterPutsTheFamilyIdAndGenericHeader) {
  // What a family codec (wireguard.cpp, ethtool.cpp) builds: a made-up resolved family, no I/O.
  GenlFamily wg{"wireguard", 0x1b, 1};
  genl::GenlWriter w(wg, /*cmd=*/1, /*version=*/1, NLM_F_ACK);
  w.putString(2, "wg0");
  w.putU32(3, 7);
  Bytes expected = test::netlinkMessage(0x1b, NLM_F_REQUEST | NLM_F_ACK, genlHeader(1, 1), Attrs().str(2, "wg0").u32(3, 7));
  EXPECT_TRUE(sameBytes(w.bytes(), expected));
}

TEST(GenlGolden, WriterPadsAFamilyHeader) {
  // A family with a 6-byte user header: zero-filled, padded to 8, then the attributes.
  GenlFamily f{"hdr", 0x20, 1};
  genl::GenlWriter w(f, 5, 1, 0, 6);
  w.familyHeader()[0] = 0xaa;
  w.familyHeader()[5] = 0xbb;
  w.putU8(1, 9);
  Bytes payload = genlHeader(5, 1);
  Bytes user = {0xaa, 0, 0, 0, 0, 0xbb, 0, 0};
  payload.insert(payload.end(), user.begin(), user.end());
  Bytes expected = test::netlinkMessage(0x20, NLM_F_REQUEST, payload, Attrs().u8(1, 9));
  EXPECT_TRUE(sameBytes(w.bytes(), expected));
  AlignedMessage m(w.bytes());
  genl::GenlReply reply = genl::decodeGenl(m.as<nlmsghdr>(), 1, 6);
  EXPECT_EQ(reply.cmd, 5);
  ASSERT_TRUE(reply.attrs.has(1));
}

// The reply the kernel sends for `genl ctrl get name thermal`-like families: ops and groups are
// nests of nests numbered from 1, without NLA_F_NESTED (nla_nest_start_noflag).
Bytes familyReply() {
  Attrs ops;
  ops.nestNoFlag(1, Attrs().u32(CTRL_ATTR_OP_ID, 1).u32(CTRL_ATTR_OP_FLAGS, GENL_CMD_CAP_DUMP));
  ops.nestNoFlag(2, Attrs().u32(CTRL_ATTR_OP_ID, 2).u32(CTRL_ATTR_OP_FLAGS, GENL_ADMIN_PERM | GENL_CMD_CAP_DO | GENL_CMD_CAP_HASPOL));
  ops.nestNoFlag(3, Attrs().u32(CTRL_ATTR_OP_ID, 9));  // no flags attribute: a command without any
  Attrs groups;
  groups.nestNoFlag(1, Attrs().str(CTRL_ATTR_MCAST_GRP_NAME, "sampling").u32(CTRL_ATTR_MCAST_GRP_ID, 2));
  groups.nestNoFlag(2, Attrs().u32(CTRL_ATTR_MCAST_GRP_ID, 3).str(CTRL_ATTR_MCAST_GRP_NAME, "event"));
  Attrs body = Attrs()
                   .str(CTRL_ATTR_FAMILY_NAME, "thermal")
                   .u16(CTRL_ATTR_FAMILY_ID, 0x13)
                   .u32(CTRL_ATTR_VERSION, 2)
                   .u32(CTRL_ATTR_HDRSIZE, 0)
                   .u32(CTRL_ATTR_MAXATTR, 27)
                   .nestNoFlag(CTRL_ATTR_OPS, ops)
                   .nestNoFlag(CTRL_ATTR_MCAST_GROUPS, groups)
                   .u32(99, 0xdead);  // an attribute from a newer kernel: ignored
  return test::netlinkMessage(GENL_ID_CTRL, 0, genlHeader(CTRL_CMD_NEWFAMILY, 2), body);
}

TEST(GenlDecode, FamilyWithCommandsAndGroups) {
  AlignedMessage m(familyReply());
  std::optional<GenlFamilyInfo> f = genl::decodeFamily(m.as<nlmsghdr>());
  ASSERT_TRUE(f);
  GenlFamilyInfo expected;
  expected.name = "thermal";
  expected.id = 0x13;
  expected.version = 2;
  expected.headerSize = 0;
  expected.maxAttr = 27;
  expected.ops = {{1, kGenlOpCanDump}, {2, kGenlOpAdminPerm | kGenlOpCanDo | kGenlOpHasPolicy}, {9, 0}};
  expected.groups = {{"sampling", 2}, {"event", 3}};
  EXPECT_EQ(*f, expected);
  EXPECT_TRUE(f->ops[1].adminPerm());
  EXPECT_TRUE(f->ops[1].canDo());
  EXPECT_FALSE(f->ops[1].canDump());
  ASSERT_NE(f->group("event"), nullptr);
  EXPECT_EQ(f->group("event")->id, 3u);
  EXPECT_EQ(f->group("nope"), nullptr);
  ASSERT_NE(f->op(9), nullptr);
  EXPECT_EQ(f->op(4), nullptr);
  // A GenlFamilyInfo is the GenlFamily a request builder takes.
  const GenlFamily& ref = *f;
  EXPECT_EQ(ref, (GenlFamily{"thermal", 0x13, 2}));
}

TEST(GenlDecode, OtherMessagesAreNotFamilies) {
  // Another family's message, and a controller message that is not NEWFAMILY (a policy dump).
  AlignedMessage other(test::netlinkMessage(0x14, 0, genlHeader(CTRL_CMD_NEWFAMILY, 1), Attrs().str(2, "x")));
  EXPECT_FALSE(genl::decodeFamily(other.as<nlmsghdr>()));
  AlignedMessage policy(test::netlinkMessage(GENL_ID_CTRL, 0, genlHeader(CTRL_CMD_GETPOLICY, 2), Attrs().u16(1, 0x10)));
  EXPECT_FALSE(genl::decodeFamily(policy.as<nlmsghdr>()));
}

TEST(GenlDecode, ShortMessagesAndAttributesAreMalformed) {
  // nlmsghdr alone: no room for the generic header.
  AlignedMessage bare(test::netlinkMessage(GENL_ID_CTRL, 0, Bytes{}));
  try {
    genl::decodeFamily(bare.as<nlmsghdr>());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
  }
  // A family id of one byte (u16 expected).
  AlignedMessage shortId(test::netlinkMessage(GENL_ID_CTRL, 0, genlHeader(CTRL_CMD_NEWFAMILY, 2),
                                              Attrs().str(CTRL_ATTR_FAMILY_NAME, "x").raw(CTRL_ATTR_FAMILY_ID, {1})));
  EXPECT_THROW(genl::decodeFamily(shortId.as<nlmsghdr>()), Error);
}

// A family without commands or groups (the attributes in another order than ctrl_fill_info's),
// and a command entry whose id is shorter than a u32: malformed.
TEST(GenlDecode, FamilyWithoutCommandsAndShortEntriesAreMalformed) {
  AlignedMessage bare(test::netlinkMessage(GENL_ID_CTRL, 0, genlHeader(CTRL_CMD_NEWFAMILY, 2),
                                           Attrs().u32(CTRL_ATTR_MAXATTR, 3).u16(CTRL_ATTR_FAMILY_ID, 0x22)
                                               .str(CTRL_ATTR_FAMILY_NAME, "netdev").u32(CTRL_ATTR_HDRSIZE, 4)));
  std::optional<GenlFamilyInfo> f = genl::decodeFamily(bare.as<nlmsghdr>());
  ASSERT_TRUE(f);
  EXPECT_EQ(*f, (GenlFamilyInfo{{"netdev", 0x22, 0}, 4, 3, {}, {}}));
  for (uint16_t nest : {uint16_t(CTRL_ATTR_OPS), uint16_t(CTRL_ATTR_MCAST_GROUPS)}) {
    Attrs entry = nest == CTRL_ATTR_OPS ? Attrs().raw(CTRL_ATTR_OP_ID, {1, 2}) : Attrs().raw(CTRL_ATTR_MCAST_GRP_ID, {1});
    AlignedMessage shortEntry(test::netlinkMessage(GENL_ID_CTRL, 0, genlHeader(CTRL_CMD_NEWFAMILY, 2),
                                                   Attrs().str(CTRL_ATTR_FAMILY_NAME, "x").nestNoFlag(nest, Attrs().nestNoFlag(1, entry))));
    try {
      genl::decodeFamily(shortEntry.as<nlmsghdr>());
      ADD_FAILURE() << "no error for nest " << nest;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply)) << nest;
    }
  }
}

// The interface is mockable: a family API under test can be given a fake resolver.
class MockGenlApi : public IGenlApi {
 public:
  MOCK_METHOD(std::vector<GenlFamilyInfo>, list, (), (override));
  MOCK_METHOD(const GenlFamilyInfo&, get, (std::string_view), (override));
  MOCK_METHOD(const GenlFamilyInfo*, find, (std::string_view), (override));
  MOCK_METHOD(const GenlFamilyInfo&, refresh, (std::string_view), (override));
};

TEST(GenlMock, AFakeResolverFeedsARequestBuilder) {
  MockGenlApi api;
  GenlFamilyInfo wg;
  wg.name = "wireguard";
  wg.id = 0x21;
  wg.version = 1;
  EXPECT_CALL(api, get(std::string_view("wireguard"))).WillOnce(::testing::ReturnRef(wg));
  IGenlApi& families = api;
  genl::GenlWriter w(families.get("wireguard"), 0, 1);
  EXPECT_EQ(w.header()->nlmsg_type, 0x21);
}

}  // namespace
}  // namespace fastlink
