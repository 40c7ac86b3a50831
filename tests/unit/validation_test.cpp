// Bad input is refused before anything is sent: fastlink::Error with EINVAL and a message that
// names the problem. No I/O happens in any of these tests.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/types.hpp"

namespace fastlink {
namespace {

/// Passes when `f` throws fastlink::Error with std::errc::invalid_argument and `needle` in what().
::testing::AssertionResult throwsInvalid(const std::function<void()>& f, std::string_view needle) {
  try {
    f();
  } catch (const Error& e) {
    if (e.code() != std::errc::invalid_argument)
      return ::testing::AssertionFailure() << "code " << e.code().message() << ", what(): " << e.what();
    if (std::string_view(e.what()).find(needle) == std::string_view::npos)
      return ::testing::AssertionFailure() << "what() \"" << e.what() << "\" does not mention \"" << needle << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw something else: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// ---- interface names ----------------------------------------------------------------------------

TEST(ValidateIfname, AcceptsKernelValidNames) {
  for (std::string_view name : {"a", "eth0", "eth0.100", "veth-x_y", "123456789012345", "br@0", "..."}) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(validateIfname(name));
  }
}

TEST(ValidateIfname, RefusesWhatTheKernelRefuses) {
  EXPECT_TRUE(throwsInvalid([] { validateIfname(""); }, "invalid interface name \"\": empty"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("1234567890123456"); }, "longer than 15 bytes"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("a/b"); }, "contains '/'"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("a:b"); }, "contains ':'"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("a b"); }, "contains whitespace"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("a\tb"); }, "contains whitespace"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("eth0\n"); }, "contains whitespace"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname(std::string_view("a\0b", 3)); }, "invalid interface name"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname("."); }, "reserved"));
  EXPECT_TRUE(throwsInvalid([] { validateIfname(".."); }, "reserved"));
}

// Issue 14: the kernel takes any bytes, but a name that is not UTF-8 would make `-j` output
// invalid JSON; UTF-8 names (multi-byte) stay accepted.
TEST(ValidateIfname, RefusesNamesThatAreNotUtf8) {
  for (std::string_view name : {"a\xc3\xa9", "\xe2\x82\xac" "0", "\xf0\x9f\x90\xa7x"}) EXPECT_NO_THROW(validateIfname(name));
  for (std::string_view name : {"a\xff" "b", "\x80", "ab\xc3", "\xc0\xaf", "\xe2\x82", "\xf8\x88\x80\x80"})
    EXPECT_TRUE(throwsInvalid([name] { validateIfname(name); }, "not valid UTF-8")) << name;
}

TEST(ValidateIfname, MessageNamesTheName) {
  EXPECT_TRUE(throwsInvalid([] { validateIfname("bad/name"); }, "\"bad/name\""));
}

// ---- MAC addresses ------------------------------------------------------------------------------

TEST(MacAddressParse, Good) {
  MacAddress a = MacAddress::parse("aa:bb:cc:dd:ee:ff");
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a.bytes()[0], 0xaa);
  EXPECT_EQ(a.bytes()[5], 0xff);
  EXPECT_EQ(a.toString(), "aa:bb:cc:dd:ee:ff");
  EXPECT_EQ(MacAddress::parse("AA-BB-CC-DD-EE-FF"), a);
  EXPECT_EQ(MacAddress::parse("0:1:2:3:4:5").toString(), "00:01:02:03:04:05");
}

TEST(MacAddressParse, Bad) {
  for (std::string_view text : {"", "aa:bb:cc:dd:ee", "zz:bb:cc:dd:ee:ff", "aa:bb:cc:dd:ee:ff:00",
                                "aa:bb:cc:dd:ee:ff:", ":aa:bb:cc:dd:ee:ff", "aa::bb:cc:dd:ee", "aaa:bb:cc:dd:ee:ff",
                                "aa:bb:cc:dd:ee:f g", "aa bb cc dd ee ff", "aa.bb.cc.dd.ee.ff", "aabbccddeeff",
                                "aa:bb:cc:dd:ee:ff ", "0x:bb:cc:dd:ee:ff"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(throwsInvalid([&] { MacAddress::parse(text); }, "invalid MAC address \"" + std::string(text) + "\""));
  }
}

TEST(MacAddress, FromBytesUpTo32) {
  std::vector<uint8_t> twenty(20, 0xab);  // an InfiniBand address
  EXPECT_EQ(MacAddress(twenty).size(), 20u);
  std::vector<uint8_t> tooLong(33, 0);
  EXPECT_TRUE(throwsInvalid([&] { MacAddress m{std::span<const uint8_t>(tooLong)}; }, "longer than 32 bytes"));
  EXPECT_EQ(MacAddress().toString(), "");
}

// ---- IP addresses -------------------------------------------------------------------------------

TEST(IpAddressParse, V4) {
  IpAddress a = IpAddress::parse("10.1.2.3");
  EXPECT_TRUE(a.isV4());
  EXPECT_EQ(a.family(), IpAddress::Family::v4);
  EXPECT_EQ(std::vector<uint8_t>(a.bytes().begin(), a.bytes().end()), (std::vector<uint8_t>{10, 1, 2, 3}));
  EXPECT_EQ(a.toString(), "10.1.2.3");
  EXPECT_FALSE(a.isMulticast());
  EXPECT_TRUE(IpAddress::parse("239.1.1.1").isMulticast());
  EXPECT_TRUE(IpAddress::parse("224.0.0.1").isMulticast());
  EXPECT_FALSE(IpAddress::parse("240.0.0.1").isMulticast());
}

TEST(IpAddressParse, V6) {
  IpAddress a = IpAddress::parse("2001:db8::1");
  EXPECT_FALSE(a.isV4());
  ASSERT_EQ(a.bytes().size(), 16u);
  EXPECT_EQ(a.bytes()[0], 0x20);
  EXPECT_EQ(a.bytes()[1], 0x01);
  EXPECT_EQ(a.bytes()[15], 0x01);
  EXPECT_EQ(a.toString(), "2001:db8::1");
  EXPECT_TRUE(IpAddress::parse("ff02::1").isMulticast());
  EXPECT_EQ(IpAddress::parse("::ffff:1.2.3.4").toString(), "::ffff:1.2.3.4");
  EXPECT_NE(IpAddress::parse("::ffff:1.2.3.4"), IpAddress::parse("1.2.3.4"));
}

TEST(IpAddressParse, Bad) {
  for (std::string_view text : {"", "1.2.3", "256.0.0.1", "1.2.3.4/24", "fe80::1%eth0", "gg::1", " 1.2.3.4",
                                "1.2.3.4 ", "1:2:3:4:5:6:7:8:9", "localhost", "01.2.3.4x"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(throwsInvalid([&] { IpAddress::parse(text); }, "invalid IP address"));
  }
}

TEST(IpAddressParse, EmbeddedNulIsNotIgnored) {
  // "1.2.3.4\0junk": the whole view is the input, not its C-string prefix.
  EXPECT_TRUE(throwsInvalid([] { IpAddress::parse(std::string_view("1.2.3.4\0junk", 12)); }, "invalid IP address"));
}

TEST(IpAddress, FromBytes) {
  uint8_t four[] = {192, 0, 2, 1};
  EXPECT_EQ(IpAddress::fromBytes(four), IpAddress::parse("192.0.2.1"));
  uint8_t five[] = {1, 2, 3, 4, 5};
  EXPECT_TRUE(throwsInvalid([&] { IpAddress::fromBytes(five); }, "4 or 16 bytes"));
}

// ---- link requests ------------------------------------------------------------------------------

TEST(LinkValidation, MtuOutOfRange) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setMtu(67)); }, "mtu 67 out of range (68-65536)"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("d0", "dummy").setMtu(65537)); }, "mtu 65537 out of range"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(1, LinkInfo().setMtu(0)); }, "mtu 0 out of range"));
  EXPECT_NO_THROW(LinkRequests::set("v0", LinkInfo().setMtu(68)));
  EXPECT_NO_THROW(LinkRequests::set("v0", LinkInfo().setMtu(65536)));
}

TEST(LinkValidation, OptionsOfAnotherKind) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("x", "vxlan").setBridge(BridgeInfo().setStpState(1))); },
                            "bridge options given for a device of type vxlan"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("x", "dummy").setVlan(VlanInfo().setId(1))); },
                            "vlan options given for a device of type dummy"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("x", LinkInfo().setKind("bond").setVrf(VrfInfo().setTable(1))); },
                            "vrf options given for a device of type bond"));
  EXPECT_TRUE(throwsInvalid(
      [] { LinkRequests::add(LinkInfo("x").setBond(BondInfo().setMiimon(1)).setVrf(VrfInfo().setTable(1))); },
      "options of several link types given at once"));
  // macvtap takes the macvlan options.
  EXPECT_NO_THROW(LinkRequests::add(LinkInfo("x", "macvtap").setMacvlan(MacvlanInfo().setMode(MacvlanMode::Vepa))));
}

TEST(LinkValidation, AddNeedsNameAndKind) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo().setKind("dummy")); }, "a new device needs a name"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("d0")); }, "a new device needs a type"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::replace(LinkInfo().setKind("dummy")); }, "needs a name or an index"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("d0", "")); }, "invalid link type"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("d0", std::string(64, 'k'))); }, "invalid link type"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("bad name", "dummy")); }, "invalid interface name"));
}

TEST(LinkValidation, GroupOperationsRefuseNamesKindsAndGroups) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo("v0")); }, "cannot rename or pick one device"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo().setIndex(4)); }, "cannot rename or pick one device"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo().setGroup(4)); }, "cannot move devices to another group"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo().setKind("bridge")); }, "cannot carry link-type options"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo().setBridge(BridgeInfo().setStpState(1))); },
                            "cannot carry link-type options"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(3, LinkInfo().setNetns(Netns::pid(1))); },
                            "cannot move devices to another namespace"));
}

TEST(LinkValidation, DelGroupZeroRefused) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::delGroup(0); }, "refusing to delete group 0"));
}

TEST(LinkValidation, RenameByNameNeedsTheIndex) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo("v1")); }, "renaming needs the device's ifindex"));
}

TEST(LinkValidation, IfindexZeroNamesNoDevice) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set(0u, LinkInfo().setMtu(1500)); }, "ifindex 0 names no device"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::del(0u); }, "ifindex 0 names no device"));
}

TEST(LinkValidation, BadDeviceNames) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("a:b", LinkInfo().setMtu(1500)); }, "contains ':'"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::del("0123456789abcdef"); }, "longer than 15 bytes"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("v0", "veth").setVeth(VethInfo().setPeerName("p/1"))); },
                            "\"p/1\": contains '/'"));
}

TEST(LinkValidation, CreateOnlyFieldsInAChange) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setNumTxQueues(2)); }, "only be set when creating"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setNumRxQueues(2)); }, "only be set when creating"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setParent(2u)); }, "parent link can only be set when creating"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setVeth(VethInfo().setPeerName("v1"))); },
                            "veth peer can only be set when creating"));
}

TEST(LinkValidation, VlanId) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("v", "vlan").setParent(2u).setVlan(VlanInfo().setId(4095))); },
                            "vlan id must be 0-4094"));
  EXPECT_NO_THROW(LinkRequests::add(LinkInfo("v", "vlan").setParent(2u).setVlan(VlanInfo().setId(4094))));
}

TEST(LinkValidation, BridgePvid) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("b", "bridge").setBridge(BridgeInfo().setVlanDefaultPvid(4095))); },
                            "vlan_default_pvid must be 0-4094"));
}

TEST(LinkValidation, VxlanVni) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("x", "vxlan").setVxlan(VxlanInfo().setVni(1u << 24))); },
                            "vni must be below 16777216"));
  EXPECT_NO_THROW(LinkRequests::add(LinkInfo("x", "vxlan").setVxlan(VxlanInfo().setVni((1u << 24) - 1))));
}

TEST(LinkValidation, VxlanMixedFamilies) {
  EXPECT_TRUE(throwsInvalid(
      [] {
        LinkRequests::add(LinkInfo("x", "vxlan").setVxlan(
            VxlanInfo().setVni(1).setLocal(IpAddress::parse("10.0.0.1")).setRemote(IpAddress::parse("2001:db8::2"))));
      },
      "local and remote/group must be of the same address family"));
  EXPECT_TRUE(throwsInvalid(
      [] {
        LinkRequests::add(LinkInfo("x", "vxlan").setVxlan(
            VxlanInfo().setLocal(IpAddress::parse("::1")).setGroup(IpAddress::parse("239.0.0.1"))));
      },
      "same address family"));
}

TEST(LinkValidation, NamesWhereTheKernelNeedsAnIndex) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setMaster("br0")); },
                            "master \"br0\" must be resolved to an ifindex first"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("m", "macvlan").setParent("eth0")); },
                            "parent link \"eth0\" must be resolved"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::add(LinkInfo("x", "vxlan").setVxlan(VxlanInfo().setVni(1).setDev("eth0"))); },
                            "vxlan dev \"eth0\" must be resolved"));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::setGroup(2, LinkInfo().setMaster("br0")); }, "must be resolved"));
}

TEST(LinkValidation, EmptyHardwareAddress) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setAddress(MacAddress())); }, "empty link address"));
}

TEST(LinkValidation, BadNamespaceNameIsRefusedBeforeOpening) {
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setNetns(Netns::named("a/b"))); },
                            "invalid network namespace name \"a/b\""));
  EXPECT_TRUE(throwsInvalid([] { LinkRequests::set("v0", LinkInfo().setNetns(Netns::named(""))); },
                            "invalid network namespace name"));
}

}  // namespace
}  // namespace fastlink
