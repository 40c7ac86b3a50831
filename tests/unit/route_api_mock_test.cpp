// IRouteApi, IAddrApi and INexthopApi can be mocked with GoogleMock: code written against the
// interfaces is testable without a kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fastlink/addr.hpp"
#include "fastlink/nexthop.hpp"
#include "fastlink/route.hpp"

namespace fastlink {
namespace {

using ::testing::_;
using ::testing::Return;

class MockRouteApi : public IRouteApi {
 public:
  MOCK_METHOD(void, add, (const RouteInfo&), (override));
  MOCK_METHOD(void, del, (const RouteInfo&), (override));
  MOCK_METHOD(void, replace, (const RouteInfo&), (override));
  MOCK_METHOD(void, append, (const RouteInfo&), (override));
  MOCK_METHOD(void, change, (const RouteInfo&), (override));
  MOCK_METHOD(RouteInfo, get, (const RouteQuery&), (override));
  MOCK_METHOD(std::vector<RouteInfo>, list, (const RouteFilter&), (override));
  MOCK_METHOD(void, forEach,
              (const RouteFilter&, const std::function<void(const RouteInfo&)>&, const std::function<void()>&),
              (override));
  MOCK_METHOD(std::size_t, flush, (const RouteFilter&), (override));
};

class MockAddrApi : public IAddrApi {
 public:
  MOCK_METHOD(void, add, (const AddrInfo&), (override));
  MOCK_METHOD(void, replace, (const AddrInfo&), (override));
  MOCK_METHOD(void, del, (const AddrInfo&), (override));
  MOCK_METHOD(std::vector<AddrInfo>, list, (const AddrFilter&), (override));
  MOCK_METHOD(void, forEach,
              (const AddrFilter&, const std::function<void(const AddrInfo&)>&, const std::function<void()>&),
              (override));
  MOCK_METHOD(std::size_t, flush, (const AddrFilter&), (override));
};

class MockNexthopApi : public INexthopApi {
 public:
  MOCK_METHOD(void, add, (const NexthopInfo&), (override));
  MOCK_METHOD(void, replace, (const NexthopInfo&), (override));
  MOCK_METHOD(void, del, (uint32_t), (override));
  MOCK_METHOD(NexthopInfo, get, (uint32_t), (override));
  MOCK_METHOD(std::vector<NexthopInfo>, list, (const NexthopFilter&), (override));
  MOCK_METHOD(void, forEach,
              (const NexthopFilter&, const std::function<void(const NexthopInfo&)>&, const std::function<void()>&),
              (override));
};

// Application code under test: points a default route at whichever device reaches the gateway.
std::string installDefaultVia(IRouteApi& routes, const IpAddress& gateway) {
  RouteInfo hop = routes.get(RouteQuery(gateway));
  routes.replace(RouteInfo(Prefix::any(gateway.family())).setGateway(gateway).setDev(hop.devIndex()));
  return "dev " + std::to_string(hop.devIndex());
}

TEST(RouteApiMock, ApplicationCodeRunsAgainstTheMock) {
  MockRouteApi routes;
  RouteInfo reply;
  reply.dev = Ifref(7u);
  EXPECT_CALL(routes, get(_)).WillOnce(Return(reply));
  EXPECT_CALL(routes, replace(_)).WillOnce([](const RouteInfo& r) {
    EXPECT_TRUE(r.dst->isDefault());
    EXPECT_EQ(r.devIndex(), 7u);
    EXPECT_EQ(r.gateway, IpAddress::parse("10.0.0.2"));
  });
  EXPECT_EQ(installDefaultVia(routes, IpAddress::parse("10.0.0.2")), "dev 7");

  MockAddrApi addrs;
  EXPECT_CALL(addrs, flush(_)).WillOnce(Return(3u));
  EXPECT_EQ(static_cast<IAddrApi&>(addrs).flush(AddrFilter().setDev("v0")), 3u);
  MockNexthopApi nexthops;
  EXPECT_CALL(nexthops, del(10u));
  static_cast<INexthopApi&>(nexthops).del(10);
}

}  // namespace
}  // namespace fastlink
