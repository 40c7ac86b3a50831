// RouteView, AddrView, NeighView through their API objects' forEach over a scripted kernel: the
// views a dump hands out are the objects list() gives, and the user-space filters (those the
// kernel may ignore) select the same ones. Field-by-field agreement with each decoder is checked
// on every golden message (route_requests_golden_test, addr_requests_golden_test,
// neigh_golden_test) and on every fuzz input (decode_route, decode_addr, decode_neigh).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "fastlink/addr.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/route.hpp"
#include "unit/route_golden.hpp"
#include "unit/support/fake_kernel.hpp"

namespace fastlink {
namespace {

using test::Attrs;
using test::Bytes;
using test::FakeKernel;
using test::v4;

static_assert(!std::is_copy_constructible_v<RouteView> && !std::is_move_constructible_v<RouteView>);
static_assert(!std::is_copy_constructible_v<AddrView> && !std::is_move_constructible_v<AddrView>);
static_assert(!std::is_copy_constructible_v<NeighView> && !std::is_move_constructible_v<NeighView>);

/// An engine over a kernel that answers every dump with `messages` (type, family header +
/// attributes) in one datagram.
struct Dump {
  explicit Dump(uint16_t type, std::vector<Bytes> bodies) {
    auto k = std::make_unique<FakeKernel>();
    k->setResponder([type, bodies](FakeKernel& kernel, const nlmsghdr* request) {
      std::vector<uint8_t> datagram;
      for (const auto& b : bodies) {
        auto m = FakeKernel::message(request, type, NLM_F_MULTI, b);
        datagram.insert(datagram.end(), m.begin(), m.end());
      }
      auto done = FakeKernel::done(request);
      datagram.insert(datagram.end(), done.begin(), done.end());
      kernel.queueDatagram(std::move(datagram));
    });
    engine = std::make_unique<core::Engine>(std::move(k), NetlinkOptions{});
  }
  std::unique_ptr<core::Engine> engine;
};

template <class Header>
Bytes body(const Header& h, const Attrs& a) {
  Bytes b = h.bytes();
  b.insert(b.end(), a.bytes().begin(), a.bytes().end());
  return b;
}

TEST(ObjectViews, RoutesAsViewsAreWhatListGivesAndFilteredAlike) {
  using test::Rtmsg;
  auto route = [](uint8_t table, uint32_t flags, uint8_t third, uint32_t oif) {
    return body(Rtmsg{.family = AF_INET, .dstLen = 24, .table = table, .protocol = RTPROT_STATIC, .type = RTN_UNICAST,
                      .flags = flags},
                Attrs().raw(RTA_DST, v4(10, 0, third, 0)).raw(RTA_GATEWAY, v4(10, 9, 0, 1)).u32(RTA_OIF, oif).u32(RTA_PRIORITY, third));
  };
  Dump d(RTM_NEWROUTE, {route(RT_TABLE_MAIN, 0, 1, 3), route(RT_TABLE_MAIN, RTM_F_CLONED, 2, 3), route(100, 0, 3, 4)});
  RouteApi api = core::ApiAccess::make<RouteApi>(*d.engine);
  auto words = [](const auto& filter, RouteApi& a) {
    std::vector<std::string> out;
    a.forEach(filter, [&](const RouteView& r) {
      out.push_back(r.dst()->toStringWithLength() + " via " + r.gateway()->toString() + " dev " +
                    std::to_string(r.devIndex()) + " table " + std::to_string(r.table()));
    });
    return out;
  };
  std::vector<std::string> listed;
  for (const auto& r : api.list())
    listed.push_back(r.dst->toStringWithLength() + " via " + r.gateway->toString() + " dev " + std::to_string(r.devIndex()) +
                     " table " + std::to_string(*r.table));
  EXPECT_EQ(words(RouteFilter{}, api), listed);
  EXPECT_EQ(listed, (std::vector<std::string>{"10.0.1.0/24 via 10.9.0.1 dev 3 table 254", "10.0.3.0/24 via 10.9.0.1 dev 4 table 100"}))
      << "the clone is skipped";
  // The kernel here ignores the table filter: fastlink applies it again.
  EXPECT_EQ(words(RouteFilter().setTable(100), api), (std::vector<std::string>{"10.0.3.0/24 via 10.9.0.1 dev 4 table 100"}));
  // matches reads the header itself: protocol, type and family, each once met and once not.
  EXPECT_EQ(words(RouteFilter().setProtocol(RouteProtocol::Static), api), listed);
  EXPECT_TRUE(words(RouteFilter().setProtocol(RouteProtocol::Kernel), api).empty());
  EXPECT_EQ(words(RouteFilter().setType(RouteType::Unicast).setFamily(IpAddress::Family::v4), api), listed);
  EXPECT_TRUE(words(RouteFilter().setType(RouteType::Local), api).empty());
  EXPECT_TRUE(words(RouteFilter().setFamily(IpAddress::Family::v6), api).empty());
  // A std::function runs the same loop as a lambda (which is instantiated into it).
  std::vector<std::string> viaFunction;
  const std::function<void(const RouteView&)> each = [&](const RouteView& r) { viaFunction.push_back(r.dst()->toString()); };
  api.forEach(RouteFilter().setTable(100), each);
  EXPECT_EQ(viaFunction, (std::vector<std::string>{"10.0.3.0/24"}));
}

TEST(ObjectViews, AddressesAsViewsAreWhatListGivesAndFilteredAlike) {
  using test::Ifaddrmsg;
  auto addr = [](uint32_t index, uint8_t last, uint8_t scope, const char* label) {
    Attrs a = Attrs().raw(IFA_ADDRESS, v4(10, 0, 0, last)).raw(IFA_LOCAL, v4(10, 0, 0, last));
    if (label) a.str(IFA_LABEL, label);
    return body(Ifaddrmsg{.family = AF_INET, .prefixlen = 24, .scope = scope, .index = index}, a);
  };
  Dump d(RTM_NEWADDR, {addr(3, 1, RT_SCOPE_UNIVERSE, "v0"), addr(3, 2, RT_SCOPE_UNIVERSE, "v0:web"), addr(4, 3, RT_SCOPE_HOST, "v1")});
  AddrApi api = core::ApiAccess::make<AddrApi>(*d.engine);
  auto words = [&](const AddrFilter& filter) {
    std::vector<std::string> out;
    api.forEach(filter, [&](const AddrView& a) { out.push_back(a.address()->toStringWithLength() + " " + std::string(*a.label())); });
    return out;
  };
  std::vector<std::string> listed;
  for (const auto& a : api.list()) listed.push_back(a.address->toStringWithLength() + " " + *a.label);
  EXPECT_EQ(words({}), listed);
  EXPECT_EQ(words(AddrFilter().setLabel("v0:web")), (std::vector<std::string>{"10.0.0.2/24 v0:web"}));
  EXPECT_EQ(words(AddrFilter().setScope(Scope::Host)), (std::vector<std::string>{"10.0.0.3/24 v1"}));
}

TEST(ObjectViews, NeighboursAsViewsAreWhatListGivesAndFilteredAlike) {
  auto neigh = [](uint8_t last, uint16_t state, uint8_t flags) {
    Bytes b = {AF_INET, 0, 0, 0};
    test::appendLe32(b, 3);
    test::appendLe16(b, state);
    b.push_back(flags);
    b.push_back(0);
    Attrs a = Attrs().raw(NDA_DST, v4(10, 0, 0, last));
    b.insert(b.end(), a.bytes().begin(), a.bytes().end());
    return b;
  };
  Dump d(RTM_NEWNEIGH, {neigh(1, NUD_REACHABLE, 0), neigh(2, NUD_STALE, NTF_ROUTER), neigh(3, NUD_FAILED, 0)});
  NeighApi api = core::ApiAccess::make<NeighApi>(*d.engine);
  auto words = [&](const NeighFilter& filter) {
    std::vector<std::string> out;
    api.forEach(filter, [&](const NeighView& n) {
      out.push_back(n.dst()->toString() + " " + neighStateName(*n.state()) + (n.router() ? " router" : ""));
    });
    return out;
  };
  std::vector<std::string> listed;
  for (const auto& n : api.list()) listed.push_back(n.dst->toString() + " " + neighStateName(*n.state) + (n.isRouter() ? " router" : ""));
  EXPECT_EQ(words({}), listed);
  NeighFilter stale;
  stale.stateMask = NUD_STALE | NUD_FAILED;
  EXPECT_EQ(words(stale), (std::vector<std::string>{"10.0.0.2 STALE router", "10.0.0.3 FAILED"}));
}

}  // namespace
}  // namespace fastlink
