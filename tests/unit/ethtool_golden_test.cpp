// Golden bytes for the ethtool family: every request builder against a hand-laid message, and
// the reply decoders against replies laid out like the kernel's (ethnl_default_doit fills).
// Numbers are written out from Documentation/networking/ethtool-netlink.rst and the uapi enum
// order, not taken from the header, so a wrong constant in src/ shows up here:
//   messages: STRSET_GET 1, FEATURES_GET 11, FEATURES_SET 12, RINGS_GET 15, RINGS_SET 16,
//             CHANNELS_GET 17, CHANNELS_SET 18, COALESCE_GET 19, COALESCE_SET 20, STATS_GET 32
//   header nest: DEV_INDEX 1, DEV_NAME 2, FLAGS 3; flags COMPACT 1, OMIT_REPLY 2
//   bitset: NOMASK 1, SIZE 2, BITS 3 (BIT 1: INDEX 1, NAME 2, VALUE 3), VALUE 4, MASK 5
#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fastlink/error.hpp"
#include "fastlink/ethtool.hpp"
#include "ethtool/ethtool_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::sameBytes;

const GenlFamily kEthtool{"ethtool", 0x14, 1};
constexpr uint16_t kReq = NLM_F_REQUEST;

Bytes genlHeader(uint8_t cmd) { return {cmd, 1, 0, 0}; }
Attrs devName(const std::string& name) { return Attrs().str(2, name); }

Bytes expected(uint8_t cmd, const Attrs& attrs) { return test::netlinkMessage(0x14, kReq, genlHeader(cmd), attrs); }

TEST(EthtoolGolden, GetChannelsByNameAndIndex) {
  Request r = EthtoolRequests::getChannels(kEthtool, "eth0");
  EXPECT_TRUE(sameBytes(r.bytes(), expected(17, Attrs().nest(1, devName("eth0")))));
  EXPECT_EQ(r.operation(), "ethtool -l eth0");
  Request byIndex = EthtoolRequests::getChannels(kEthtool, 7u);
  EXPECT_TRUE(sameBytes(byIndex.bytes(), expected(17, Attrs().nest(1, Attrs().u32(1, 7)))));
}

TEST(EthtoolGolden, SetChannelsSendsOnlyWhatIsSet) {
  // COUNTS: RX 6, TX 7, OTHER 8, COMBINED 9 (2-5 are the maxima, reported only).
  Request r = EthtoolRequests::setChannels(kEthtool, "eth0", ChannelsInfo().setCombined(4));
  EXPECT_TRUE(sameBytes(r.bytes(), expected(18, Attrs().nest(1, devName("eth0")).u32(9, 4))));
  Request all = EthtoolRequests::setChannels(kEthtool, "v0", ChannelsInfo().setRx(1).setTx(2).setOther(3).setCombined(4));
  EXPECT_TRUE(sameBytes(all.bytes(), expected(18, Attrs().nest(1, devName("v0")).u32(6, 1).u32(7, 2).u32(8, 3).u32(9, 4))));
  EXPECT_EQ(all.operation(), "ethtool -L v0");
  EXPECT_THROW(EthtoolRequests::setChannels(kEthtool, "v0", ChannelsInfo()), Error);
}

TEST(EthtoolGolden, RingsGetAndSet) {
  EXPECT_TRUE(sameBytes(EthtoolRequests::getRings(kEthtool, "eth0").bytes(), expected(15, Attrs().nest(1, devName("eth0")))));
  // RX 6, RX_MINI 7, RX_JUMBO 8, TX 9, RX_BUF_LEN 10, CQE_SIZE 12, TX_PUSH 13 (u8).
  Request r = EthtoolRequests::setRings(kEthtool, "eth0", RingsInfo().setRx(512).setTx(1024).setTxPush(true));
  EXPECT_TRUE(sameBytes(r.bytes(), expected(16, Attrs().nest(1, devName("eth0")).u32(6, 512).u32(9, 1024).u8(13, 1))));
  Request more = EthtoolRequests::setRings(kEthtool, "eth0", RingsInfo().setRxMini(1).setRxJumbo(2).setRxBufLen(3).setCqeSize(4));
  EXPECT_TRUE(sameBytes(more.bytes(), expected(16, Attrs().nest(1, devName("eth0")).u32(7, 1).u32(8, 2).u32(10, 3).u32(12, 4))));
  EXPECT_THROW(EthtoolRequests::setRings(kEthtool, "eth0", RingsInfo()), Error);
}

TEST(EthtoolGolden, FeaturesGetAsksForCompactBitsets) {
  Request r = EthtoolRequests::getFeatures(kEthtool, "eth0");
  EXPECT_TRUE(sameBytes(r.bytes(), expected(11, Attrs().nest(1, devName("eth0").u32(3, 1)))));
}

TEST(EthtoolGolden, FeaturesSetIsAVerboseBitsetByNameWithoutReply) {
  // WANTED (3) { BITS (3) { BIT (1) { NAME (2), VALUE (3) flag when on } ... } }, no NOMASK:
  // only the listed bits change.
  Request r = EthtoolRequests::setFeatures(kEthtool, "v0", FeatureChanges().set("rx-gro-list", true).set("tx-nocache-copy", false));
  Attrs bits = Attrs()
                   .nest(1, Attrs().str(2, "rx-gro-list").flag(3))
                   .nest(1, Attrs().str(2, "tx-nocache-copy"));
  Attrs attrs = Attrs().nest(1, devName("v0").u32(3, 2)).nest(3, Attrs().nest(3, bits));
  EXPECT_TRUE(sameBytes(r.bytes(), expected(12, attrs)));
  EXPECT_EQ(r.operation(), "ethtool -K v0 rx-gro-list on tx-nocache-copy off");
  EXPECT_THROW(EthtoolRequests::setFeatures(kEthtool, "v0", FeatureChanges()), Error);
  EXPECT_THROW(EthtoolRequests::setFeatures(kEthtool, "v0", FeatureChanges().set(std::string(40, 'x'), true)), Error);
}

TEST(EthtoolGolden, StringSetRequests) {
  // STRSET: HEADER 1 (empty: global set), STRINGSETS 2 { STRINGSET 1 { ID 1 } }; ETH_SS_FEATURES 4.
  Request r = EthtoolRequests::featureNames(kEthtool);
  EXPECT_TRUE(sameBytes(r.bytes(), expected(1, Attrs().nest(1, Attrs()).nest(2, Attrs().nest(1, Attrs().u32(1, 4))))));
  Request std = EthtoolRequests::stringSet(kEthtool, 17);
  EXPECT_TRUE(sameBytes(std.bytes(), expected(1, Attrs().nest(1, Attrs()).nest(2, Attrs().nest(1, Attrs().u32(1, 17))))));
}

TEST(EthtoolGolden, CoalesceGetAndSet) {
  EXPECT_TRUE(sameBytes(EthtoolRequests::getCoalesce(kEthtool, "eth0").bytes(), expected(19, Attrs().nest(1, devName("eth0")))));
  // RX_USECS 2, RX_MAX_FRAMES 3, TX_USECS 6, USE_ADAPTIVE_RX 11 (u8).
  Request r = EthtoolRequests::setCoalesce(kEthtool, "eth0",
                                           CoalesceInfo().setRxUsecs(50).setRxMaxFrames(64).setTxUsecs(100).setAdaptiveRx(false));
  EXPECT_TRUE(sameBytes(r.bytes(), expected(20, Attrs().nest(1, devName("eth0")).u32(2, 50).u32(3, 64).u32(6, 100).u8(11, 0))));
  EXPECT_THROW(EthtoolRequests::setCoalesce(kEthtool, "eth0", CoalesceInfo()), Error);
}

TEST(EthtoolGolden, StatsAsksForAllFourGroupsCompact) {
  // STATS: HEADER is 2 (1 is PAD); GROUPS 3 = { NOMASK, SIZE 4, VALUE 0x0000000f }.
  Request r = EthtoolRequests::getStats(kEthtool, "eth0");
  Attrs groups = Attrs().flag(1).u32(2, 4).raw(4, {0x0f, 0, 0, 0});
  EXPECT_TRUE(sameBytes(r.bytes(), expected(32, Attrs().nest(2, devName("eth0")).nest(3, groups))));
}

TEST(EthtoolGolden, BadDeviceNamesAreRefusedBeforeSending) {
  EXPECT_THROW(EthtoolRequests::getChannels(kEthtool, "a-name-that-is-too-long"), Error);
  EXPECT_THROW(EthtoolRequests::getFeatures(kEthtool, ""), Error);
}

// ---- decoders ----------------------------------------------------------------------------

Bytes reply(uint8_t cmd, const Attrs& attrs) { return test::netlinkMessage(0x14, 0, genlHeader(cmd), attrs); }

TEST(EthtoolDecode, ChannelsLeaveMissingKindsUnset) {
  // A veth: rx/tx maxima and counts, no other/combined (the kernel omits kinds with max 0).
  AlignedMessage m(reply(18, Attrs().nestNoFlag(1, devName("v0")).u32(2, 4).u32(3, 4).u32(6, 2).u32(7, 4)));
  ChannelsInfo c = genl::decodeChannels(m.as<nlmsghdr>());
  EXPECT_EQ(c.rxMax, 4u);
  EXPECT_EQ(c.txMax, 4u);
  EXPECT_EQ(c.rx, 2u);
  EXPECT_EQ(c.tx, 4u);
  EXPECT_FALSE(c.other);
  EXPECT_FALSE(c.combined);
  EXPECT_FALSE(c.combinedMax);
}

TEST(EthtoolDecode, Rings) {
  AlignedMessage m(reply(16, Attrs().u32(2, 4096).u32(5, 4096).u32(6, 512).u32(9, 256).u8(11, 2).u8(13, 0)));
  RingsInfo g = genl::decodeRings(m.as<nlmsghdr>());
  EXPECT_EQ(g.rxMax, 4096u);
  EXPECT_EQ(g.txMax, 4096u);
  EXPECT_EQ(g.rx, 512u);
  EXPECT_EQ(g.tx, 256u);
  EXPECT_EQ(g.tcpDataSplit, 2);
  EXPECT_EQ(g.txPush, false);
  EXPECT_FALSE(g.rxMini);
}

TEST(EthtoolDecode, Coalesce) {
  AlignedMessage m(reply(20, Attrs().u32(2, 8).u32(3, 32).u8(11, 1).u8(12, 0)));
  CoalesceInfo c = genl::decodeCoalesce(m.as<nlmsghdr>());
  EXPECT_EQ(c.rxUsecs, 8u);
  EXPECT_EQ(c.rxMaxFrames, 32u);
  EXPECT_EQ(c.adaptiveRx, true);
  EXPECT_EQ(c.adaptiveTx, false);
  EXPECT_FALSE(c.txUsecs);
}

Attrs compact(uint32_t size, std::initializer_list<uint32_t> words) {
  Bytes v;
  for (uint32_t w : words) test::appendLe32(v, w);
  return Attrs().flag(1).u32(2, size).raw(4, v);
}

TEST(EthtoolDecode, FeaturesFromCompactBitsetsAndNames) {
  // 34 bits (two words): hw {0, 33}, wanted {0, 1}, active {0, 33}, nochange {}.
  std::vector<std::string> names(34);
  names[0] = "sg";
  names[1] = "csum";
  names[33] = "far";
  AlignedMessage m(reply(12, Attrs()
                                 .nestNoFlag(2, compact(34, {0x1, 0x2}))
                                 .nestNoFlag(3, compact(34, {0x3, 0x0}))
                                 .nestNoFlag(4, compact(34, {0x1, 0x2}))
                                 .nestNoFlag(5, compact(34, {0x0, 0x0}))));
  FeaturesInfo f = genl::decodeFeatures(m.as<nlmsghdr>(), names);
  ASSERT_EQ(f.features.size(), 3u);  // unnamed bits are left out
  EXPECT_EQ(f.features[0], (Feature{"sg", true, true, true, false}));
  EXPECT_EQ(f.features[1], (Feature{"csum", false, true, false, false}));
  EXPECT_TRUE(f.features[1].fixed());
  EXPECT_EQ(f.features[2], (Feature{"far", true, false, true, false}));
  EXPECT_EQ(f.find("far"), &f.features[2]);
  EXPECT_EQ(f.find("nope"), nullptr);
}

TEST(EthtoolDecode, FeaturesNamedOnlyByAVerboseBitsetBeyondTheStringSet) {
  // A verbose active set of 60,000 bits: bit 0 (named by the string set) and bit 40,000 (named
  // only in the bitset) on. Both are features; nothing past the last name is looked at.
  Attrs bits = Attrs()
                   .nestNoFlag(1, Attrs().u32(1, 0).flag(3))
                   .nestNoFlag(1, Attrs().u32(1, 40000).str(2, "far").flag(3));
  AlignedMessage m(reply(12, Attrs().nestNoFlag(4, Attrs().u32(2, 60000).nestNoFlag(3, bits))));
  FeaturesInfo f = genl::decodeFeatures(m.as<nlmsghdr>(), {"sg"});
  ASSERT_EQ(f.features.size(), 2u);
  EXPECT_EQ(f.features[0], (Feature{"sg", true, false, false, false}));
  EXPECT_EQ(f.features[1], (Feature{"far", true, false, false, false}));
}

TEST(EthtoolDecode, FeaturesAreTheNamedBitsWithinTheBitsetsOnly) {
  // The highest bit a bitset may have, named by the bitset alone, and a string set naming more
  // bits than the bitsets hold: the named bits inside the bitsets, in bit order, are the features.
  Attrs bits = Attrs()
                   .nestNoFlag(1, Attrs().u32(1, 65535).str(2, "last").flag(3))
                   .nestNoFlag(1, Attrs().u32(1, 1).flag(3));
  AlignedMessage m(reply(12, Attrs().nestNoFlag(4, Attrs().u32(2, 65536).nestNoFlag(3, bits))));
  FeaturesInfo f = genl::decodeFeatures(m.as<nlmsghdr>(), {"sg", "", "tso"});
  ASSERT_EQ(f.features.size(), 3u);  // bit 1 is on but has no name: not a feature
  EXPECT_EQ(f.features[0], (Feature{"sg", false, false, false, false}));
  EXPECT_EQ(f.features[1], (Feature{"tso", false, false, false, false}));
  EXPECT_EQ(f.features[2], (Feature{"last", true, false, false, false}));
  Attrs bit0 = Attrs().nestNoFlag(1, Attrs().u32(1, 0).flag(3));
  AlignedMessage small(reply(12, Attrs().nestNoFlag(4, Attrs().u32(2, 1).nestNoFlag(3, bit0))));
  FeaturesInfo g = genl::decodeFeatures(small.as<nlmsghdr>(), {"sg", "", "tso"});
  ASSERT_EQ(g.features.size(), 1u);  // "tso" is bit 2 of a 1-bit set: not a feature here
  EXPECT_EQ(g.features[0], (Feature{"sg", true, false, false, false}));
}

TEST(EthtoolDecode, VerboseBitsetWithMaskAndNames) {
  Attrs bits = Attrs()
                   .nestNoFlag(1, Attrs().u32(1, 0).str(2, "a").flag(3))
                   .nestNoFlag(1, Attrs().u32(1, 2).str(2, "c"));
  Bytes b = Attrs().nestNoFlag(7, Attrs().u32(2, 3).nestNoFlag(3, bits)).bytes();
  AlignedMessage m(b);
  genl::EthtoolBitset s = genl::decodeBitset(m.as<nlattr>());
  EXPECT_EQ(s.size, 3u);
  EXPECT_FALSE(s.noMask);
  EXPECT_EQ(s.value, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(s.mask, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(s.names.at(2), "c");
}

TEST(EthtoolDecode, MalformedBitsetsAreErrors) {
  // A bit beyond the size, words shorter than the size, and a size no kernel sends.
  Bytes beyond = Attrs().nestNoFlag(7, Attrs().u32(2, 1).nestNoFlag(3, Attrs().nestNoFlag(1, Attrs().u32(1, 5)))).bytes();
  AlignedMessage m1(beyond);
  EXPECT_THROW(genl::decodeBitset(m1.as<nlattr>()), Error);
  Bytes shortWords = Attrs().nestNoFlag(7, compact(64, {0x1})).bytes();
  AlignedMessage m2(shortWords);
  EXPECT_THROW(genl::decodeBitset(m2.as<nlattr>()), Error);
  Bytes huge = Attrs().nestNoFlag(7, compact(0xffffffff, {0x1})).bytes();
  AlignedMessage m3(huge);
  EXPECT_THROW(genl::decodeBitset(m3.as<nlattr>()), Error);
}

TEST(EthtoolDecode, StringSet) {
  Attrs strings = Attrs().nestNoFlag(1, Attrs().u32(1, 1).str(2, "second")).nestNoFlag(1, Attrs().u32(1, 0).str(2, "first"));
  Attrs set = Attrs().u32(1, 4).u32(2, 3).nestNoFlag(3, strings);
  AlignedMessage m(reply(1, Attrs().nestNoFlag(1, Attrs()).nestNoFlag(2, Attrs().nestNoFlag(1, set))));
  EXPECT_EQ(genl::decodeStringSet(m.as<nlmsghdr>()), (std::vector<std::string>{"first", "second", ""}));
  Attrs bad = Attrs().u32(1, 4).u32(2, 1).nestNoFlag(3, Attrs().nestNoFlag(1, Attrs().u32(1, 3).str(2, "x")));
  AlignedMessage m2(reply(1, Attrs().nestNoFlag(2, Attrs().nestNoFlag(1, bad))));
  EXPECT_THROW(genl::decodeStringSet(m2.as<nlmsghdr>()), Error);
}

TEST(EthtoolDecode, StatsGroups) {
  // GRP (4) { ID 2 = 1 (eth-mac), SS_ID 3 = 19, STAT 4 { 2: u64 }, STAT 4 { 5: u64 } }.
  Attrs grp = Attrs().u32(2, 1).u32(3, 19).nestNoFlag(4, Attrs().u64(2, 1000)).nestNoFlag(4, Attrs().u64(5, 7));
  AlignedMessage m(reply(33, Attrs().nestNoFlag(2, devName("eth0")).nestNoFlag(4, grp)));
  auto groups = genl::decodeStats(m.as<nlmsghdr>());
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].id, 1u);
  EXPECT_EQ(groups[0].stringSet, 19u);
  EXPECT_EQ(groups[0].counters, (std::vector<std::pair<uint32_t, uint64_t>>{{2, 1000}, {5, 7}}));
}

TEST(EthtoolDecode, ShortMessageIsAnError) {
  Bytes tiny = test::netlinkMessage(0x14, 0, Bytes{});  // no room for the genl header
  AlignedMessage m(tiny);
  EXPECT_THROW(genl::decodeChannels(m.as<nlmsghdr>()), Error);
}

}  // namespace
}  // namespace fastlink
