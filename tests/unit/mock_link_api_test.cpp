// How to unit-test code that uses fastlink, without root and without touching the network:
// write it against fastlink::ILinkApi (Netlink::links() returns the real one), and hand it a
// GoogleMock implementation in tests.
//
//   class MockLinkApi : public fastlink::ILinkApi { MOCK_METHOD(...) for every operation };
//
// MockLinkApi below is complete (every virtual of ILinkApi); copy it into your own tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"

namespace {

using fastlink::Ifref;
using fastlink::ILinkApi;
using fastlink::LinkFilter;
using fastlink::LinkInfo;
using ::testing::_;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::InSequence;
using ::testing::Optional;
using ::testing::Return;
using ::testing::Throw;

class MockLinkApi : public ILinkApi {
 public:
  MOCK_METHOD(void, add, (const LinkInfo& link), (override));
  MOCK_METHOD(void, del, (const Ifref& dev), (override));
  MOCK_METHOD(void, set, (const Ifref& dev, const LinkInfo& changes), (override));
  MOCK_METHOD(void, replace, (const LinkInfo& link), (override));
  MOCK_METHOD(LinkInfo, get, (const Ifref& dev, bool withStats), (override));
  MOCK_METHOD(std::optional<LinkInfo>, find, (const Ifref& dev, bool withStats), (override));
  MOCK_METHOD(std::vector<LinkInfo>, list, (const LinkFilter& filter), (override));
  MOCK_METHOD(void, forEach,
              (const LinkFilter& filter, const std::function<void(const LinkInfo&)>& each,
               const std::function<void()>& restart),
              (override));
  MOCK_METHOD(void, setGroup, (uint32_t group, const LinkInfo& changes), (override));
  MOCK_METHOD(void, delGroup, (uint32_t group), (override));
};

// ---- the "user code" under test ------------------------------------------------------------

/// Gives each named device an MTU of 9000. Devices that do not exist are skipped, devices
/// already at 9000 are left alone. Returns the names it changed.
std::vector<std::string> setJumboFrames(ILinkApi& links, const std::vector<std::string>& names) {
  std::vector<std::string> changed;
  for (const auto& name : names) {
    std::optional<LinkInfo> link = links.find(name);  // nullopt: no such device
    if (!link || link->mtu == 9000u) continue;
    links.set(name, LinkInfo().setMtu(9000));  // only the MTU is sent
    changed.push_back(name);
  }
  return changed;
}

/// Deletes every device of `kind`, by index (names may be reused while we work).
std::size_t deleteAllOfKind(ILinkApi& links, const std::string& kind) {
  std::vector<LinkInfo> found = links.list(LinkFilter().setKind(kind));
  for (const auto& link : found) links.del(*link.index);
  return found.size();
}

// ---- the tests -----------------------------------------------------------------------------

// Matches a LinkInfo whose mtu is set to `mtu` (an unset field is never sent).
auto hasMtu(uint32_t mtu) { return Field(&LinkInfo::mtu, Optional(mtu)); }

TEST(MockLinkApiExample, SetsTheMtuOfEveryExistingDevice) {
  MockLinkApi links;
  EXPECT_CALL(links, find(Ifref("eth0"), false)).WillOnce(Return(LinkInfo("eth0").setMtu(1500)));
  EXPECT_CALL(links, find(Ifref("eth1"), false)).WillOnce(Return(LinkInfo("eth1").setMtu(1500)));
  EXPECT_CALL(links, set(Ifref("eth0"), hasMtu(9000)));
  EXPECT_CALL(links, set(Ifref("eth1"), hasMtu(9000)));

  EXPECT_THAT(setJumboFrames(links, {"eth0", "eth1"}), ElementsAre("eth0", "eth1"));
}

TEST(MockLinkApiExample, SkipsMissingAndAlreadyJumboDevices) {
  MockLinkApi links;
  EXPECT_CALL(links, find(Ifref("gone0"), false)).WillOnce(Return(std::nullopt));
  EXPECT_CALL(links, find(Ifref("big0"), false)).WillOnce(Return(LinkInfo("big0").setMtu(9000)));
  EXPECT_CALL(links, find(Ifref("eth0"), false)).WillOnce(Return(LinkInfo("eth0").setMtu(1500)));
  EXPECT_CALL(links, set(Ifref("eth0"), hasMtu(9000)));
  EXPECT_CALL(links, set(Ifref("gone0"), _)).Times(0);
  EXPECT_CALL(links, set(Ifref("big0"), _)).Times(0);

  EXPECT_THAT(setJumboFrames(links, {"gone0", "big0", "eth0"}), ElementsAre("eth0"));
}

TEST(MockLinkApiExample, KernelErrorsReachTheCaller) {
  // Throw the same fastlink::Error the real API would, e.g. EPERM without CAP_NET_ADMIN.
  MockLinkApi links;
  InSequence order;
  EXPECT_CALL(links, find(Ifref("eth0"), false)).WillOnce(Return(LinkInfo("eth0").setMtu(1500)));
  EXPECT_CALL(links, set(Ifref("eth0"), hasMtu(9000)))
      .WillOnce(Throw(fastlink::Error(std::make_error_code(std::errc::operation_not_permitted), "link set dev eth0")));

  try {
    setJumboFrames(links, {"eth0", "eth1"});  // stops at the first failure: eth1 is never looked up
    FAIL() << "no exception";
  } catch (const fastlink::Error& e) {
    EXPECT_EQ(e.code(), std::errc::operation_not_permitted);
  }
}

TEST(MockLinkApiExample, ListWithAKernelFilterThenDeleteByIndex) {
  MockLinkApi links;
  EXPECT_CALL(links, list(Field(&LinkFilter::kind, Optional(std::string("veth")))))
      .WillOnce(Return(std::vector<LinkInfo>{LinkInfo("v0").setIndex(10), LinkInfo("v1").setIndex(11)}));
  EXPECT_CALL(links, del(Ifref(10u)));
  EXPECT_CALL(links, del(Ifref(11u)));

  EXPECT_EQ(deleteAllOfKind(links, "veth"), 2u);
}

}  // namespace
