// Golden bytes for the ethtool family: every request builder against a hand-laid message, and
// the reply decoders against replies laid out like the kernel's (ethnl_default_doit fills).
// Numbers are written out from Documentation/networking/ethtool-netlink.rst and the uapi enum
// order, not taken from the header, so a wrong constant in src/ shows up here:
//   messages: STRSET_GET 1, FEATURES_GET 11, FEATURES_SET 12, RINGS_GET 15, RINGS_SET 16,
//             CHANNELS_GET 17, CHANNELS_SET 18, COALESCE_GET 19, COALESCE_SET 20, STATS_GET 32
//   header nest: DEV_INDEX 1, DEV_NAME 2, FLAGS 3; flags COMPACT 1, OMIT_REPLY 2
//   bitset: NOMASK 1, SIZE 2, BITS 3 (BIT 1: INDEX 1, NAME 2, VALUE 3), VALUE 4, MASK 5
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <linux/netlink.h>

#include <tuple>

#include "fastlink/error.hpp"
#include "fastlink/ethtool.hpp"
#include "cli/ethtool/ethtool_print.hpp"
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

// An empty SET is refused before anything is sent: the error names ethtool's option for the
// message and what was missing (each message's words in src/ethtool/ethtool.cpp's table).
TEST(EthtoolGolden, EmptySetNamesItsOptionAndWhatIsMissing) {
  auto refusal = [](auto build) {
    try {
      build();
    } catch (const Error& e) {
      return e.operation() + ": " + e.reason();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal([] { EthtoolRequests::setChannels(kEthtool, "v0", {}); }), "ethtool -L v0: no channel count given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setRings(kEthtool, "v0", {}); }), "ethtool -G v0: no ring parameter given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setCoalesce(kEthtool, "v0", {}); }),
            "ethtool -C v0: no coalescing parameter given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setLinkModes(kEthtool, "v0", {}); }),
            "ethtool -s v0: no link mode setting given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setLinkInfo(kEthtool, "v0", {}); }),
            "ethtool -s v0: no port, mdix or phyad given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setWol(kEthtool, "v0", {}); }), "ethtool -s v0: no wake-on setting given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setDebug(kEthtool, "v0", {}); }), "ethtool -s v0: no message level given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setPause(kEthtool, "v0", {}); }), "ethtool -A v0: no pause parameter given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setFec(kEthtool, 7u, {}); }),
            "ethtool --set-fec ifindex 7: no FEC encoding given to change");
  EXPECT_EQ(refusal([] { EthtoolRequests::setFeatures(kEthtool, "v0", {}); }), "ethtool -K v0: no feature given to change");
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


// ---- link settings (`ethtool DEV`, -s, -a, -A, -T) ------------------------------------------
// Messages: LINKINFO_GET 2, LINKINFO_SET 3, LINKMODES_GET 4, LINKMODES_SET 5, LINKSTATE_GET 6,
// DEBUG_GET 7, DEBUG_SET 8, WOL_GET 9, WOL_SET 10, PAUSE_GET 21, PAUSE_SET 22, TSINFO_GET 25.
// LINKMODES: AUTONEG 2, OURS 3, PEER 4, SPEED 5, DUPLEX 6, MS_CFG 7, MS_STATE 8, LANES 9;
// LINKINFO: PORT 2, PHYADDR 3, TP_MDIX 4, TP_MDIX_CTRL 5, TRANSCEIVER 6. The CLI's text of
// them against ethtool 6.1's layout (cli/ethtool/ethtool_print.cpp, compiled into this binary).

Bytes le32(uint32_t v) {
  Bytes b;
  test::appendLe32(b, v);
  return b;
}
/// A verbose bitset entry: index, name, and the VALUE flag when set.
Attrs bit(uint32_t index, const std::string& name, bool value) {
  Attrs a = Attrs().u32(1, index).str(2, name);
  if (value) a.flag(3);
  return Attrs().nestNoFlag(1, a);
}

TEST(EthtoolLinkGolden, GetsAskForVerboseBitsets) {
  // No ETHTOOL_A_HEADER_FLAGS: the reply names every bit (ethtool DEV asks the same way).
  for (auto [request, cmd] : {std::pair{EthtoolRequests::getLinkInfo(kEthtool, "eth0"), 2},
                              {EthtoolRequests::getLinkModes(kEthtool, "eth0"), 4},
                              {EthtoolRequests::getLinkState(kEthtool, "eth0"), 6},
                              {EthtoolRequests::getDebug(kEthtool, "eth0"), 7},
                              {EthtoolRequests::getWol(kEthtool, "eth0"), 9},
                              {EthtoolRequests::getPause(kEthtool, "eth0"), 21},
                              {EthtoolRequests::getTsInfo(kEthtool, "eth0"), 25}})
    EXPECT_TRUE(sameBytes(request.bytes(), expected(static_cast<uint8_t>(cmd), Attrs().nest(1, devName("eth0"))))) << cmd;
  // -I -a: ETHTOOL_FLAG_STATS (4) in the header.
  EXPECT_TRUE(sameBytes(EthtoolRequests::getPause(kEthtool, "eth0", true).bytes(),
                        expected(21, Attrs().nest(1, devName("eth0").u32(3, 4)))));
}

TEST(EthtoolLinkGolden, SetLinkModesInRowOrderWithANumericAdvertiseMask) {
  LinkModesInfo m;
  m.speed = 100;
  m.duplex = 1;
  m.autoneg = false;
  // advertise 0x20 without a mask: the whole set (NOMASK), 32 bits.
  m.advertise = BitsetChange{32, {0x20}, {}, {}};
  Request r = EthtoolRequests::setLinkModes(kEthtool, "v0", m);
  Attrs ours = Attrs().flag(1).u32(2, 32).raw(4, le32(0x20));
  EXPECT_TRUE(sameBytes(r.bytes(), expected(5, Attrs().nest(1, devName("v0")).u8(2, 0).nest(3, ours).u32(5, 100).u8(6, 1))));
  EXPECT_EQ(r.operation(), "ethtool -s v0");
  // With a mask: VALUE and MASK, no NOMASK.
  LinkModesInfo masked;
  masked.advertise = BitsetChange{32, {0x20}, {0x30}, {}};
  masked.lanes = 2;
  Attrs both = Attrs().u32(2, 32).raw(4, le32(0x20)).raw(5, le32(0x30));
  EXPECT_TRUE(sameBytes(EthtoolRequests::setLinkModes(kEthtool, "v0", masked).bytes(),
                        expected(5, Attrs().nest(1, devName("v0")).nest(3, both).u32(9, 2))));
  // Reported-only members are never sent: a request with only them is refused.
  LinkModesInfo reported;
  reported.masterSlaveState = 2;
  reported.ours = std::vector<LinkMode>{};
  EXPECT_THROW(EthtoolRequests::setLinkModes(kEthtool, "v0", reported), Error);
}

TEST(EthtoolLinkGolden, SetLinkInfoWolDebugAndPause) {
  LinkInfoSettings info;
  info.port = 0;
  info.mdixCtrl = 3;
  info.mdix = 1;  // reported only
  EXPECT_TRUE(sameBytes(EthtoolRequests::setLinkInfo(kEthtool, "e1", info).bytes(),
                        expected(3, Attrs().nest(1, devName("e1")).u8(2, 0).u8(5, 3))));
  // wol g: WAKE_MAGIC (bit 5) of an 8-bit set, the whole set; sopass: 6 bytes (WOL: MODES 2, SOPASS 3).
  WolInfo wol;
  wol.change = BitsetChange{8, {0x20}, {}, {}};
  wol.sopass = std::vector<uint8_t>{1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(sameBytes(EthtoolRequests::setWol(kEthtool, "e1", wol).bytes(),
                        expected(10, Attrs().nest(1, devName("e1")).nest(2, Attrs().flag(1).u32(2, 8).raw(4, le32(0x20)))
                                         .raw(3, {1, 2, 3, 4, 5, 6}))));
  // msglvl drv on link off: verbose by name, no NOMASK (only those bits change).
  DebugInfo debug;
  debug.change = BitsetChange{0, {}, {}, {{"drv", true}, {"link", false}}};
  Attrs bits = Attrs().nest(1, Attrs().str(2, "drv").flag(3)).nest(1, Attrs().str(2, "link"));
  EXPECT_TRUE(sameBytes(EthtoolRequests::setDebug(kEthtool, "t0", debug).bytes(),
                        expected(8, Attrs().nest(1, devName("t0")).nest(2, Attrs().nest(3, bits)))));
  // PAUSE: AUTONEG 2, RX 3, TX 4.
  EXPECT_TRUE(sameBytes(EthtoolRequests::setPause(kEthtool, "e1", PauseInfo().setRx(true).setTx(false)).bytes(),
                        expected(22, Attrs().nest(1, devName("e1")).u8(3, 1).u8(4, 0))));
  EXPECT_THROW(EthtoolRequests::setPause(kEthtool, "e1", PauseInfo()), Error);
  EXPECT_THROW(EthtoolRequests::setWol(kEthtool, "e1", WolInfo()), Error);
}

// An e1000-like device: the reply a kernel sends for it (verbose bitsets, OURS with a mask).
Bytes e1000LinkModes() {
  Attrs ours = Attrs().u32(2, 93).nestNoFlag(3, Attrs()
                                                   .append(bit(0, "10baseT/Half", true))
                                                   .append(bit(1, "10baseT/Full", true))
                                                   .append(bit(2, "100baseT/Half", true))
                                                   .append(bit(3, "100baseT/Full", true))
                                                   .append(bit(5, "1000baseT/Full", true))
                                                   .append(bit(6, "Autoneg", true))
                                                   .append(bit(7, "TP", true)));
  return reply(4, Attrs().nestNoFlag(1, devName("eth0")).u8(2, 1).nestNoFlag(3, ours).u32(5, 1000).u8(6, 1));
}

TEST(EthtoolLinkDecode, LinkModesFromVerboseBitsets) {
  AlignedMessage m(e1000LinkModes());
  LinkModesInfo got = genl::decodeLinkModes(m.as<nlmsghdr>());
  EXPECT_EQ(got.autoneg, true);
  EXPECT_EQ(got.speed, 1000u);
  EXPECT_EQ(got.duplex, 1);
  EXPECT_FALSE(got.peer);
  ASSERT_TRUE(got.ours);
  ASSERT_EQ(got.ours->size(), 7u);
  EXPECT_EQ((*got.ours)[4], (LinkMode{5, "1000baseT/Full", true, true}));
  // A partner's modes: NOMASK, the listed bits are the ones it advertises.
  Attrs peer = Attrs().flag(1).u32(2, 93).nestNoFlag(3, bit(5, "1000baseT/Full", true));
  AlignedMessage p(reply(4, Attrs().nestNoFlag(4, peer)));
  LinkModesInfo withPeer = genl::decodeLinkModes(p.as<nlmsghdr>());
  ASSERT_TRUE(withPeer.peer);
  EXPECT_EQ(*withPeer.peer, (std::vector<LinkMode>{{5, "1000baseT/Full", false, true}}));
}

TEST(EthtoolLinkDecode, WolDebugStateTsInfoAndPause) {
  // WOL: supported u m b g (mask), enabled g (value); SOPASS 6 bytes.
  Attrs wolBits = Attrs().u32(2, 8).nestNoFlag(3, Attrs()
                                                    .append(bit(1, "ucast", false))
                                                    .append(bit(2, "mcast", false))
                                                    .append(bit(3, "bcast", false))
                                                    .append(bit(5, "magic", true)));
  AlignedMessage w(reply(9, Attrs().nestNoFlag(2, wolBits).raw(3, {9, 8, 7, 6, 5, 4})));
  WolInfo wol = genl::decodeWol(w.as<nlmsghdr>());
  EXPECT_EQ(wol.supported, 0x2eu);
  EXPECT_EQ(wol.modes, 0x20u);
  EXPECT_EQ(wol.sopass, (std::vector<uint8_t>{9, 8, 7, 6, 5, 4}));
  // DEBUG: NOMASK, the set classes listed.
  Attrs msg = Attrs().flag(1).u32(2, 15).nestNoFlag(3, bit(0, "drv", true).append(bit(2, "link", true)));
  AlignedMessage d(reply(7, Attrs().nestNoFlag(2, msg)));
  DebugInfo debug = genl::decodeDebug(d.as<nlmsghdr>());
  EXPECT_EQ(debug.msgMask, 5u);
  EXPECT_EQ(debug.classes, (std::vector<std::string>{"drv", "link"}));
  // LINKSTATE: LINK 2, SQI 3, SQI_MAX 4, EXT_STATE 5, EXT_SUBSTATE 6.
  AlignedMessage l(reply(6, Attrs().u8(2, 0).u32(3, 5).u32(4, 7).u8(5, 0).u8(6, 1)));
  LinkStateInfo state = genl::decodeLinkState(l.as<nlmsghdr>());
  EXPECT_EQ(state, (LinkStateInfo{false, 5u, 7u, 0, 1}));
  // TSINFO: TIMESTAMPING 2 (NOMASK, names), PHC_INDEX 5.
  Attrs ts = Attrs().flag(1).u32(2, 17).nestNoFlag(3, bit(1, "software-transmit", true).append(bit(3, "software-receive", true)));
  AlignedMessage t(reply(25, Attrs().nestNoFlag(2, ts).u32(5, 3)));
  TsInfo tsInfo = genl::decodeTsInfo(t.as<nlmsghdr>());
  EXPECT_EQ(tsInfo.timestamping, (std::vector<std::string>{"software-transmit", "software-receive"}));
  EXPECT_TRUE(tsInfo.txTypes.empty());
  EXPECT_EQ(tsInfo.phcIndex, 3u);
  // PAUSE: AUTONEG 2, RX 3, TX 4, STATS 5 { PAD 1, TX_FRAMES 2, RX_FRAMES 3 }.
  AlignedMessage pa(reply(21, Attrs().u8(2, 1).u8(3, 1).u8(4, 0).nestNoFlag(5, Attrs().u64(2, 11).u64(3, 22))));
  PauseInfo pause = genl::decodePause(pa.as<nlmsghdr>());
  EXPECT_EQ(pause, (PauseInfo{true, true, false, 11u, 22u}));
}

// ethtool 6.1 on an e1000 (the layout everyone has seen): link modes continue under the first,
// a half-duplex mode and its full-duplex twin share a line.
TEST(EthtoolLinkText, SettingsLikeEthtool) {
  AlignedMessage m(e1000LinkModes());
  LinkSettings s;
  s.modes = genl::decodeLinkModes(m.as<nlmsghdr>());
  s.info = LinkInfoSettings{0, 1, 1, 3, 0};
  s.wol = WolInfo{0x2e, 0, std::nullopt, std::nullopt};
  s.debug = DebugInfo{7, {"drv", "probe", "link"}, std::nullopt};
  s.state = LinkStateInfo{true, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  cli::EthtoolOutput got = cli::linkSettingsText("eth0", s);
  EXPECT_EQ(got.out,
            "Settings for eth0:\n"
            "\tSupported ports: [ TP ]\n"
            "\tSupported link modes:   10baseT/Half 10baseT/Full\n"
            "\t                        100baseT/Half 100baseT/Full\n"
            "\t                        1000baseT/Full\n"
            "\tSupported pause frame use: No\n"
            "\tSupports auto-negotiation: Yes\n"
            "\tSupported FEC modes: Not reported\n"
            "\tAdvertised link modes:  10baseT/Half 10baseT/Full\n"
            "\t                        100baseT/Half 100baseT/Full\n"
            "\t                        1000baseT/Full\n"
            "\tAdvertised pause frame use: No\n"
            "\tAdvertised auto-negotiation: Yes\n"
            "\tAdvertised FEC modes: Not reported\n"
            "\tSpeed: 1000Mb/s\n"
            "\tDuplex: Full\n"
            "\tAuto-negotiation: on\n"
            "\tPort: Twisted Pair\n"
            "\tPHYAD: 1\n"
            "\tTransceiver: internal\n"
            "\tMDI-X: off (auto)\n"
            "\tSupports Wake-on: umbg\n"
            "\tWake-on: d\n"
            "        Current message level: 0x00000007 (7)\n"
            "                               drv probe link\n"
            "\tLink detected: yes\n");
  EXPECT_EQ(got.err, "");
  EXPECT_EQ(got.status, 0);
  // Nothing reported at all: ethtool's "No data available", status 75.
  cli::EthtoolOutput none = cli::linkSettingsText("x", LinkSettings{});
  EXPECT_EQ(none.out, "No data available\n");
  EXPECT_EQ(none.status, 75);
}

TEST(EthtoolLinkText, UnknownValuesStateAndSecureOn) {
  LinkSettings s;
  s.modes = LinkModesInfo{};
  s.modes->speed = 0xffffffff;
  s.modes->duplex = 0xff;
  s.info = LinkInfoSettings{9, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  s.wol = WolInfo{0x60, 0x40, std::vector<uint8_t>{0xa, 0xb, 0xc, 0xd, 0xe, 0xf}, std::nullopt};
  s.state = LinkStateInfo{false, 3u, std::nullopt, ETHTOOL_LINK_EXT_STATE_AUTONEG, 1};
  EXPECT_EQ(cli::linkSettingsText("p1", s).out,
            "Settings for p1:\n"
            "\tSpeed: Unknown!\n"
            "\tDuplex: Unknown! (255)\n"
            "\tPort: Unknown! (9)\n"
            "\tSupports Wake-on: gs\n"
            "\tWake-on: s\n"
            "        SecureOn password: 0a:0b:0c:0d:0e:0f\n"
            "\tLink detected: no (Autoneg, No partner detected)\n"
            "\tSQI: 3\n");
}

// Every extended link state by ethtool 6.1's name, a substate of each state that has them, and
// the numbers of what it has no name for.
TEST(EthtoolLinkText, ExtendedStatesAndSubstatesByEthtoolsNames) {
  const std::pair<uint8_t, const char*> states[] = {
      {ETHTOOL_LINK_EXT_STATE_AUTONEG, "Autoneg"},
      {ETHTOOL_LINK_EXT_STATE_LINK_TRAINING_FAILURE, "Link training failure"},
      {ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH, "Logical mismatch"},
      {ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY, "Bad signal integrity"},
      {ETHTOOL_LINK_EXT_STATE_NO_CABLE, "No cable"},
      {ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE, "Cable issue"},
      {ETHTOOL_LINK_EXT_STATE_EEPROM_ISSUE, "EEPROM issue"},
      {ETHTOOL_LINK_EXT_STATE_CALIBRATION_FAILURE, "Calibration failure"},
      {ETHTOOL_LINK_EXT_STATE_POWER_BUDGET_EXCEEDED, "Power budget exceeded"},
      {ETHTOOL_LINK_EXT_STATE_OVERHEAT, "Overheat"},
      {ETHTOOL_LINK_EXT_STATE_MODULE, "Module"},
      {99, "99"}};
  auto line = [](std::optional<uint8_t> state, std::optional<uint8_t> sub) {
    LinkSettings s;
    s.state = LinkStateInfo{false, std::nullopt, std::nullopt, state, sub};
    return cli::linkSettingsText("p1", s).out;
  };
  for (const auto& [state, name] : states)
    EXPECT_EQ(line(state, std::nullopt), fmt::format("Settings for p1:\n\tLink detected: no ({})\n", name)) << name;
  const std::tuple<uint8_t, uint8_t, const char*> subs[] = {
      {ETHTOOL_LINK_EXT_STATE_AUTONEG, ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_HCD, "Autoneg, No HCD"},
      {ETHTOOL_LINK_EXT_STATE_LINK_TRAINING_FAILURE, ETHTOOL_LINK_EXT_SUBSTATE_LT_REMOTE_FAULT,
       "Link training failure, Remote side is not ready yet"},
      {ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH, ETHTOOL_LINK_EXT_SUBSTATE_LLM_RS_FEC_IS_NOT_LOCKED,
       "Logical mismatch, RS FEC is not locked"},
      {ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY, ETHTOOL_LINK_EXT_SUBSTATE_BSI_SERDES_ALOS, "Bad signal integrity, Serdes ALOS"},
      {ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE, ETHTOOL_LINK_EXT_SUBSTATE_CI_CABLE_TEST_FAILURE, "Cable issue, Cable test failure"},
      {ETHTOOL_LINK_EXT_STATE_MODULE, ETHTOOL_LINK_EXT_SUBSTATE_MODULE_CMIS_NOT_READY,
       "Module, CMIS module is not in ModuleReady state"},
      {ETHTOOL_LINK_EXT_STATE_AUTONEG, 77, "Autoneg, 77"},
      {ETHTOOL_LINK_EXT_STATE_NO_CABLE, 1, "No cable, 1"}};
  for (const auto& [state, sub, text] : subs)
    EXPECT_EQ(line(state, sub), fmt::format("Settings for p1:\n\tLink detected: no ({})\n", text)) << text;
}

TEST(EthtoolLinkText, PauseTimeStampingDriverAndPermanentAddress) {
  PauseInfo p{true, true, false, 11u, 22u};
  EXPECT_EQ(cli::pauseText("e1", p, std::pair{true, false}),
            "Pause parameters for e1:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\toff\nRX negotiated: on\nTX negotiated: off\n"
            "Statistics:\n  tx_pause_frames: 11\n  rx_pause_frames: 22\n\n");
  EXPECT_EQ(cli::pauseJson("e1", p, std::nullopt).dump(),
            R"({"ifname":"e1","autonegotiate":true,"rx":true,"tx":false,"statistics":{"tx_pause_frames":11,"rx_pause_frames":22}})");
  // The pause both ends agree on (ethtool's rule): both symmetric; else asymmetric on both sides.
  LinkModesInfo lm;
  lm.ours = std::vector<LinkMode>{{ETHTOOL_LINK_MODE_Asym_Pause_BIT, "Asym_Pause", true, true}};
  lm.peer = std::vector<LinkMode>{{ETHTOOL_LINK_MODE_Pause_BIT, "Pause", false, true},
                                  {ETHTOOL_LINK_MODE_Asym_Pause_BIT, "Asym_Pause", false, true}};
  EXPECT_EQ(cli::negotiatedPause(lm), (std::pair{false, true}));
  TsInfo t{{"software-transmit"}, {}, {"none", "all"}, 0u};
  EXPECT_EQ(cli::tsInfoText("e1", t),
            "Time stamping parameters for e1:\nCapabilities:\n\tsoftware-transmit\nPTP Hardware Clock: 0\n"
            "Hardware Transmit Timestamp Modes: none\nHardware Receive Filter Modes:\n\tnone\n\tall\n");
  EXPECT_EQ(cli::driverInfoText(DriverInfo{"e1000", "7.3", "", "", "0000:00:03.0", 2, 0, 256, 1, 0}),
            "driver: e1000\nversion: 7.3\nfirmware-version: \nexpansion-rom-version: \nbus-info: 0000:00:03.0\n"
            "supports-statistics: yes\nsupports-test: no\nsupports-eeprom-access: yes\nsupports-register-dump: yes\n"
            "supports-priv-flags: no\n");
  const uint8_t mac[] = {0x52, 0x54, 0, 0x12, 0x34, 0x56};
  EXPECT_EQ(cli::permanentAddressText(std::span<const uint8_t>(mac)), "Permanent address: 52:54:00:12:34:56\n");
  EXPECT_EQ(cli::permanentAddressText(std::nullopt), "Permanent address: not set\n");
}

TEST(EthtoolLinkText, AutonegAdvertisesTheSupportedSpeedsOnly) {
  AlignedMessage m(e1000LinkModes());
  BitsetChange c = cli::speedModes(*genl::decodeLinkModes(m.as<nlmsghdr>()).ours);
  // Bits 0-3 and 5 (speeds); not 6 (Autoneg) nor 7 (TP).
  EXPECT_EQ(c.size, 8u);
  EXPECT_EQ(c.value, (std::vector<uint32_t>{0x2f}));
  EXPECT_EQ(c.mask, c.value);
}

// ---- FEC (`ethtool --show-fec`, `--set-fec`) ------------------------------------------------
// Messages: FEC_GET 29, FEC_SET 30, FEC_GET_REPLY 30. FEC: HEADER 1, MODES 2, AUTO 3, ACTIVE 4,
// STATS 5 { PAD 1, CORRECTED 2, UNCORR 3, CORR_BITS 4 }; header flag STATS 4. The encodings are
// link mode bits: FEC_NONE 49 (ethtool's "Off"), FEC_RS 50, FEC_BASER 51, FEC_LLRS 74.

Bytes le64s(std::initializer_list<uint64_t> values) {
  Bytes b;
  for (uint64_t v : values) test::appendLe64(b, v);
  return b;
}

TEST(EthtoolFecGolden, GetAndSetAsEthtoolSendsThem) {
  EXPECT_TRUE(sameBytes(EthtoolRequests::getFec(kEthtool, "e1").bytes(), expected(29, Attrs().nest(1, devName("e1")))));
  EXPECT_TRUE(sameBytes(EthtoolRequests::getFec(kEthtool, "e1", true).bytes(),
                        expected(29, Attrs().nest(1, devName("e1").u32(3, 4)))));
  // rs llrs, auto off: the whole set (NOMASK) of 75 bits, words 0, bit 50 -> word 1 bit 18,
  // bit 74 -> word 2 bit 10; then AUTO 0.
  FecSettings fec = FecSettings().setModes(ETHTOOL_FEC_RS | ETHTOOL_FEC_LLRS).setAutomatic(false);
  fec.active = ETHTOOL_FEC_RS;  // reported only
  EXPECT_TRUE(sameBytes(EthtoolRequests::setFec(kEthtool, "e1", fec).bytes(),
                        expected(30, Attrs().nest(1, devName("e1"))
                                         .nest(2, Attrs().flag(1).u32(2, 75).raw(4, test::le32s({0, 1u << 18, 1u << 10})))
                                         .u8(3, 0))));
  // auto alone (the configured modes kept): only AUTO; off: bit 49 (word 1 bit 17).
  EXPECT_TRUE(sameBytes(EthtoolRequests::setFec(kEthtool, "e1", FecSettings().setAutomatic(true)).bytes(),
                        expected(30, Attrs().nest(1, devName("e1")).u8(3, 1))));
  EXPECT_TRUE(sameBytes(EthtoolRequests::setFec(kEthtool, "e1", FecSettings().setModes(ETHTOOL_FEC_OFF)).bytes(),
                        expected(30, Attrs().nest(1, devName("e1"))
                                         .nest(2, Attrs().flag(1).u32(2, 75).raw(4, test::le32s({0, 1u << 17, 0}))))));
  EXPECT_THROW(EthtoolRequests::setFec(kEthtool, "e1", FecSettings()), Error);
}

// A reply as the kernel lays it out for a driver with statistics: verbose NOMASK modes by name,
// AUTO, ACTIVE as a link mode bit, counters with a total and per-lane values (one left empty:
// the driver does not keep it).
Bytes fecReply() {
  Attrs modes = Attrs().flag(1).u32(2, 93).nestNoFlag(3, bit(49, "None", true).append(bit(51, "BASER", true)).append(bit(74, "LLRS", true)));
  Attrs stats = Attrs().raw(2, le64s({10, 4, 6})).raw(3, Bytes{}).raw(4, le64s({7}));
  return reply(30, Attrs().nestNoFlag(1, devName("eth0")).nestNoFlag(2, modes).u8(3, 1).u32(4, 51).nestNoFlag(5, stats));
}

TEST(EthtoolFecDecode, ModesActiveAndStatistics) {
  AlignedMessage m(fecReply());
  FecSettings got = genl::decodeFec(m.as<nlmsghdr>());
  EXPECT_EQ(got.modes, uint32_t{ETHTOOL_FEC_OFF | ETHTOOL_FEC_BASER | ETHTOOL_FEC_LLRS});
  EXPECT_EQ(got.automatic, true);
  EXPECT_EQ(got.active, uint32_t{ETHTOOL_FEC_BASER});
  ASSERT_TRUE(got.stats);
  EXPECT_EQ(got.stats->correctedBlocks, (FecCounter{10, {4, 6}}));
  EXPECT_FALSE(got.stats->uncorrectableBlocks);
  EXPECT_EQ(got.stats->correctedBits, (FecCounter{7, {}}));
  // No ACTIVE (the kernel leaves it out when nothing is active), no statistics nest.
  AlignedMessage bare(reply(30, Attrs().nestNoFlag(2, Attrs().flag(1).u32(2, 93)).u8(3, 0)));
  FecSettings none = genl::decodeFec(bare.as<nlmsghdr>());
  EXPECT_EQ(none.modes, 0u);
  EXPECT_FALSE(none.active);
  EXPECT_FALSE(none.stats);
  // A counter that is not whole u64s is a malformed reply.
  AlignedMessage bad(reply(30, Attrs().nestNoFlag(5, Attrs().raw(2, {1, 2, 3}))));
  EXPECT_THROW(genl::decodeFec(bad.as<nlmsghdr>()), Error);
}

// ethtool 6.1's text and JSON of that reply (netlink/fec.c): Auto first, None shown as Off and
// BASER as BaseR, lanes under their counter; "None" when nothing is configured or active.
TEST(EthtoolFecText, LikeEthtool) {
  AlignedMessage m(fecReply());
  FecSettings fec = genl::decodeFec(m.as<nlmsghdr>());
  EXPECT_EQ(cli::fecText("eth0", fec),
            "FEC parameters for eth0:\nSupported/Configured FEC encodings: Auto Off BaseR LLRS\nActive FEC encoding: BaseR\n"
            "Statistics:\n  corrected_blocks: 10\n    Lane 0: 4\n    Lane 1: 6\n  corrected_bits: 7\n");
  EXPECT_EQ(cli::fecJson("eth0", fec).dump(),
            R"({"ifname":"eth0","config":["Auto","Off","BaseR","LLRS"],"active":["BaseR"],)"
            R"("statistics":{"corrected_blocks":{"total":10,"lanes":[4,6]},"corrected_bits":{"total":7}}})");
  FecSettings empty;
  empty.modes = 0;
  empty.stats = FecStats{};
  EXPECT_EQ(cli::fecText("e0", empty), "FEC parameters for e0:\nSupported/Configured FEC encodings: None\nActive FEC encoding: None\n");
  EXPECT_EQ(cli::fecJson("e0", empty).dump(), R"({"ifname":"e0","config":["None"],"active":["None"],"statistics":{}})");
}

// ---- tunnel offload (`ethtool --show-tunnels`) -------------------------------------------------
// TUNNEL_INFO_GET 28 (reply 29): HEADER 1, UDP_PORTS 2 { TABLE 1 { SIZE 1, TYPES 2 (bitset),
// ENTRY 3 { PORT 1 (be16), TYPE 2 (u32: ETH_SS_UDP_TUNNEL_TYPES index) } } }.

TEST(EthtoolTunnelInfo, RequestDecodeAndText) {
  EXPECT_TRUE(sameBytes(EthtoolRequests::getTunnelInfo(kEthtool, "e1").bytes(), expected(28, Attrs().nest(1, devName("e1")))));
  const std::vector<std::string> types{"vxlan", "geneve", "vxlan-gpe"};
  Attrs vxlanTable = Attrs().u32(1, 4).nestNoFlag(2, Attrs().flag(1).u32(2, 3).nestNoFlag(3, bit(0, "vxlan", true)))
                         .nestNoFlag(3, Attrs().raw(1, {0x12, 0xb5}).u32(2, 0));  // 4789 in network order
  Attrs genevTable = Attrs().u32(1, 4).nestNoFlag(2, Attrs().flag(1).u32(2, 3).nestNoFlag(3, bit(1, "geneve", true).append(bit(2, "vxlan-gpe", true))));
  Attrs staticTable = Attrs().u32(1, 1).nestNoFlag(2, Attrs().flag(1).u32(2, 3)).nestNoFlag(3, Attrs().raw(1, {0x17, 0xc1}).u32(2, 7));
  AlignedMessage m(reply(29, Attrs().nestNoFlag(1, devName("nsim0"))
                                 .nestNoFlag(2, Attrs().nestNoFlag(1, vxlanTable).nestNoFlag(1, genevTable).nestNoFlag(1, staticTable))));
  TunnelOffloadInfo info = genl::decodeTunnelInfo(m.as<nlmsghdr>(), types);
  ASSERT_EQ(info.udpTables.size(), 3u);
  EXPECT_EQ(info.udpTables[0], (UdpTunnelTable{4, {"vxlan"}, {{4789, "vxlan"}}}));
  EXPECT_EQ(info.udpTables[1], (UdpTunnelTable{4, {"geneve", "vxlan-gpe"}, {}}));
  EXPECT_EQ(info.udpTables[2], (UdpTunnelTable{1, {}, {{6081, "type 7"}}}));
  EXPECT_EQ(cli::tunnelInfoText("nsim0", info),
            "Tunnel information for nsim0:\n"
            "  UDP port table 0: \n    Size: 4\n    Types: vxlan\n    Entries (1):\n        port 4789, vxlan\n"
            "  UDP port table 1: \n    Size: 4\n    Types: geneve, vxlan-gpe\n    No entries\n"
            "  UDP port table 2: \n    Size: 1\n    Types: none (static entries)\n    Entries (1):\n        port 6081, type 7\n");
  // A device without tables (none offloaded): the heading alone.
  AlignedMessage bare(reply(29, Attrs().nestNoFlag(1, devName("e0"))));
  EXPECT_EQ(cli::tunnelInfoText("e0", genl::decodeTunnelInfo(bare.as<nlmsghdr>(), types)), "Tunnel information for e0:\n");
  // An entry without its type, a table without its size: malformed.
  AlignedMessage noType(reply(29, Attrs().nestNoFlag(2, Attrs().nestNoFlag(1, Attrs().u32(1, 4).nestNoFlag(3, Attrs().raw(1, {0, 1}))))));
  EXPECT_THROW(genl::decodeTunnelInfo(noType.as<nlmsghdr>(), types), Error);
  AlignedMessage noSize(reply(29, Attrs().nestNoFlag(2, Attrs().nestNoFlag(1, Attrs()))));
  EXPECT_THROW(genl::decodeTunnelInfo(noSize.as<nlmsghdr>(), types), Error);
}

}  // namespace
}  // namespace fastlink
