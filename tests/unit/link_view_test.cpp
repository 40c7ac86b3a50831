// LinkView (fastlink/link_view.hpp): each accessor against the bytes the test lays out (the
// oracle is the message, not the decoder), the view API's guard rails, and LinkApi::forEach over
// views against list() over a scripted kernel. Agreement with the owning decoder on every golden
// message is checked in link_decode_test.cpp's decode() helper (support/view_agreement.hpp).
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/link_view.hpp"
#include "rtnl/link_codec.hpp"
#include "support/view_agreement.hpp"
#include "unit/golden.hpp"
#include "unit/support/fake_kernel.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::FakeKernel;
using test::Ifinfo;

static_assert(!std::is_copy_constructible_v<LinkView> && !std::is_move_constructible_v<LinkView>,
              "a view must not leave its callback");
static_assert(!std::is_copy_assignable_v<LinkView>);

constexpr uint32_t kFlags = IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP;

Attrs vethAttrs(std::string_view name, uint32_t mtu) {
  const uint8_t mac[] = {0x02, 0, 0, 0, 0, 0x11};
  const uint8_t brd[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  return Attrs()
      .str(IFLA_IFNAME, name)
      .u32(IFLA_TXQLEN, 1000)
      .u8(IFLA_OPERSTATE, 6)
      .u8(IFLA_LINKMODE, 1)
      .u32(IFLA_MTU, mtu)
      .u32(IFLA_MIN_MTU, 68)
      .u32(IFLA_MAX_MTU, 65535)
      .u32(IFLA_GROUP, 7)
      .u32(IFLA_PROMISCUITY, 2)
      .u32(IFLA_NUM_TX_QUEUES, 4)
      .u32(IFLA_MASTER, 9)
      .u8(IFLA_CARRIER, 1)
      .str(IFLA_QDISC, "noqueue")
      .u32(IFLA_LINK, 12)
      .raw(IFLA_ADDRESS, std::span<const uint8_t>(mac))
      .raw(IFLA_BROADCAST, std::span<const uint8_t>(brd))
      .nestNoFlag(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, "veth").str(IFLA_INFO_SLAVE_KIND, "bridge"));
}

Bytes vethMessage(int32_t index, std::string_view name, uint32_t mtu = 1500) {
  return test::linkMessage(RTM_NEWLINK, NLM_F_MULTI, Ifinfo{.type = 1, .index = index, .flags = kFlags},
                           vethAttrs(name, mtu));
}

TEST(LinkView, EveryAccessorReadsItsAttribute) {
  AlignedMessage m(vethMessage(5, "v0", 9000));
  LinkView v(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(v.index(), 5u);
  EXPECT_EQ(v.flags(), kFlags);
  EXPECT_EQ(v.type(), 1);
  EXPECT_TRUE(v.isUp());
  EXPECT_TRUE(v.isRunning());
  EXPECT_EQ(v.name(), "v0");
  EXPECT_EQ(v.mtu(), 9000u);
  EXPECT_EQ(v.txqlen(), 1000u);
  EXPECT_EQ(v.operState(), "UP");
  EXPECT_EQ(v.linkMode(), "DORMANT");
  EXPECT_EQ(v.minMtu(), 68u);
  EXPECT_EQ(v.maxMtu(), 65535u);
  EXPECT_EQ(v.group(), 7u);
  EXPECT_EQ(v.promiscuity(), 2u);
  EXPECT_EQ(v.numTxQueues(), 4u);
  EXPECT_EQ(v.numRxQueues(), std::nullopt);
  EXPECT_EQ(v.master(), 9u);
  EXPECT_EQ(v.masterIndex(), 9u);
  EXPECT_EQ(v.carrier(), true);
  EXPECT_EQ(v.qdisc(), "noqueue");
  EXPECT_EQ(v.parent(), 12u);
  EXPECT_EQ(v.address()->toString(), "02:00:00:00:00:11");
  EXPECT_EQ(v.broadcast()->toString(), "ff:ff:ff:ff:ff:ff");
  EXPECT_EQ(v.kind(), "veth");
  EXPECT_EQ(v.slaveKind(), "bridge");
  EXPECT_EQ(v.alias(), std::nullopt);
  EXPECT_EQ(v.stats().has_value(), false);
  EXPECT_EQ(v.linkNetnsId(), std::nullopt);
  // The raw attribute, and the owning object.
  ASSERT_TRUE(v.attribute(IFLA_IFNAME));
  EXPECT_EQ(v.attribute(IFLA_IFNAME)->size(), 3u);  // "v0\0"
  LinkInfo info = v.toInfo();
  EXPECT_EQ(info.name, "v0");
  EXPECT_EQ(info.kind, "veth");
  EXPECT_EQ(test::linkViewDisagreement(v, v.toInfo(true)), "");
}

TEST(LinkView, TheLastAttributeOfATypeCountsAsForTheDecoder) {
  const uint8_t longMac[40] = {1};
  const uint8_t mac[] = {0x02, 0, 0, 0, 0, 0x22};
  Attrs a = Attrs().u32(IFLA_MTU, 1500).u32(IFLA_MTU, 1400).raw(IFLA_ADDRESS, std::span<const uint8_t>(mac)).raw(IFLA_ADDRESS, std::span<const uint8_t>(longMac));
  AlignedMessage m(test::linkMessage(RTM_NEWLINK, 0, Ifinfo{.index = 3}, a));
  LinkView v(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(v.mtu(), 1400u);
  EXPECT_EQ(v.address(), std::nullopt);  // longer than MacAddress holds: kept raw by the decoder
  EXPECT_EQ(test::linkViewDisagreement(v, v.toInfo(true)), "");
}

TEST(LinkView, ShortMessageIsMalformedAndShortAttributeThrowsWhenRead) {
  Bytes header = test::netlinkMessage(RTM_NEWLINK, 0, Bytes(8, 0));
  AlignedMessage shortOne(header);
  try {
    LinkView v(std::span(shortOne.as<uint8_t>(), shortOne.as<nlmsghdr>()->nlmsg_len));
    FAIL() << "a message shorter than its ifinfomsg was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::malformed_reply);
  }
  AlignedMessage m(test::linkMessage(RTM_NEWLINK, 0, Ifinfo{.index = 3}, Attrs().raw(IFLA_MTU, {1, 2})));
  LinkView v(std::span(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len));
  EXPECT_EQ(v.index(), 3u);  // the header is fine; the 2-byte mtu is not
  EXPECT_THROW((void)v.mtu(), Error);
  EXPECT_THROW((void)v.toInfo(), Error);
}

TEST(LinkView, ACopyOfTheMessageIsViewedWithTheIndexOfItsFirstView) {
  // `link show` keeps a veth's message until its peer arrives and views the copy with the first
  // view's index (offsets), not indexing it again: the copy's view reads the copy.
  AlignedMessage m(vethMessage(5, "v0", 9000));
  std::span<const uint8_t> bytes(m.as<uint8_t>(), m.as<nlmsghdr>()->nlmsg_len);
  LinkView first(bytes);
  AlignedMessage copy(bytes);
  std::span<const uint8_t> copied(copy.as<uint8_t>(), bytes.size());
  LinkView again(copied, first.attributeIndex());
  EXPECT_EQ(again.name(), "v0");
  EXPECT_EQ(again.name()->data(), reinterpret_cast<const char*>(copied.data()) + (first.name()->data() - reinterpret_cast<const char*>(bytes.data())));
  EXPECT_EQ(again.mtu(), 9000u);
  EXPECT_EQ(again.kind(), "veth");
  EXPECT_EQ(again.message().data(), copied.data());
  EXPECT_EQ(test::linkViewDisagreement(again, again.toInfo(true)), "");
  // An index reused for bytes of another length is refused.
  EXPECT_THROW(LinkView(copied.first(copied.size() - 4), first.attributeIndex()), std::invalid_argument);
}

TEST(LinkView, AttributesThatDoNotFitEndTheIndexAsTheDecoderStops) {
  // The index walks top-level attributes while each header and payload lies inside the message
  // (mnl_attr_ok): a length below 4 or past the end ends it, and what came before is kept.
  auto viewOf = [](const Bytes& attrs, auto check) {
    AlignedMessage m(test::linkMessage(RTM_NEWLINK, 0, Ifinfo{.index = 3}, Attrs().u32(IFLA_MTU, 1400)));
    Bytes b(m.as<uint8_t>(), m.as<uint8_t>() + m.as<nlmsghdr>()->nlmsg_len);
    b.insert(b.end(), attrs.begin(), attrs.end());
    uint32_t length = static_cast<uint32_t>(b.size());
    std::memcpy(b.data(), &length, 4);
    AlignedMessage all(b);
    check(LinkView(std::span<const uint8_t>(all.as<uint8_t>(), length)));
  };
  // The last attribute without its padding (IFLA_IFNAME "v0\0", 7 bytes): indexed.
  viewOf(Bytes{7, 0, IFLA_IFNAME, 0, 'v', '0', 0}, [](const LinkView& v) {
    EXPECT_EQ(v.mtu(), 1400u);
    EXPECT_EQ(v.name(), "v0");
  });
  // An empty last attribute (4 bytes, the header alone): indexed.
  viewOf(Bytes{4, 0, IFLA_IFALIAS, 0}, [](const LinkView& v) { EXPECT_TRUE(v.attribute(IFLA_IFALIAS)); });
  // A length below the header's 4 bytes: the walk ends there, the attribute after it unseen.
  viewOf(Bytes{3, 0, IFLA_GROUP, 0, 8, 0, IFLA_TXQLEN, 0, 1, 0, 0, 0}, [](const LinkView& v) {
    EXPECT_EQ(v.mtu(), 1400u);
    EXPECT_FALSE(v.attribute(IFLA_GROUP));
    EXPECT_EQ(v.txqlen(), std::nullopt);
  });
  // A length one byte past the end: not indexed.
  viewOf(Bytes{9, 0, IFLA_TXQLEN, 0, 1, 0, 0, 0}, [](const LinkView& v) {
    EXPECT_EQ(v.mtu(), 1400u);
    EXPECT_EQ(v.txqlen(), std::nullopt);
  });
  // Fewer than 4 bytes left: no header to read.
  viewOf(Bytes{8, 0, IFLA_TXQLEN, 0, 1, 0, 0, 0, 8, 0}, [](const LinkView& v) { EXPECT_EQ(v.txqlen(), 1u); });
  // Types above NLA_TYPE_MASK's bits (NLA_F_NESTED) are indexed by their type.
  viewOf(Bytes{8, 0, IFLA_GROUP, 0x80, 7, 0, 0, 0}, [](const LinkView& v) { EXPECT_EQ(v.group(), 7u); });
}

struct Fixture {
  Fixture() {
    auto k = std::make_unique<FakeKernel>();
    kernel = k.get();
    engine = std::make_unique<core::Engine>(std::move(k), NetlinkOptions{});
    // A dump of three links over two datagrams.
    kernel->setResponder([](FakeKernel& k, const nlmsghdr* request) {
      auto link = [&](int32_t index, std::string_view name, uint32_t mtu) {
        Bytes b = vethMessage(index, name, mtu);
        return FakeKernel::message(request, RTM_NEWLINK, NLM_F_MULTI, std::span(b).subspan(NLMSG_HDRLEN));
      };
      k.queueDatagram({link(1, "v0", 1500), link(2, "v1", 9000)});
      k.queueDatagram({link(3, "w0", 1280), FakeKernel::done(request)});
    });
  }
  FakeKernel* kernel;
  std::unique_ptr<core::Engine> engine;
};

TEST(LinkView, ForEachHandsOutTheDumpAsViewsLikeList) {
  Fixture f;
  LinkApi api = core::ApiAccess::make<LinkApi>(*f.engine);
  std::vector<std::string> fromViews;
  // The method form: the callback's parameter type picks the views.
  api.forEach(LinkFilter{}, [&](const LinkView& v) {
    fromViews.push_back(std::string(*v.name()) + "/" + std::to_string(*v.mtu()) + "/" + std::string(*v.kind()));
  });
  std::vector<std::string> fromList;
  for (const auto& l : api.list()) fromList.push_back(*l.name + "/" + std::to_string(*l.mtu) + "/" + *l.kind);
  EXPECT_EQ(fromViews, (std::vector<std::string>{"v0/1500/veth", "v1/9000/veth", "w0/1280/veth"}));
  EXPECT_EQ(fromViews, fromList);
}

TEST(LinkView, ForEachAppliesTheUserSpaceFilters) {
  Fixture f;
  std::vector<uint32_t> seen;
  auto each = [&](const LinkView& v) { seen.push_back(v.index()); };
  rtnl::forEachLinkView(*f.engine, LinkFilter().setNamePattern("v*"), each, {});
  EXPECT_EQ(seen, (std::vector<uint32_t>{1, 2}));
  seen.clear();
  rtnl::forEachLinkView(*f.engine, LinkFilter().setGroup(8), each, {});
  EXPECT_TRUE(seen.empty());  // every link is in group 7
}

}  // namespace
}  // namespace fastlink
