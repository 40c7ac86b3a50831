// Issue 31's "one way in": every API is reached through its accessor on Netlink. The
// constructors are private with Netlink their friend, so building an API beside its accessor
// (from an engine, or TuneApi from a Netlink) does not compile; these checks fail the build the
// day one of them is public again. The mockable interfaces stay open to subclass.
#include <gtest/gtest.h>

#include <type_traits>

#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "fastlink/fastlink.hpp"
#include "fastlink/tune.hpp"

namespace fastlink {
namespace {

template <class Api, class... Args>
constexpr bool kClosed = !std::is_constructible_v<Api, Args...>;

static_assert(kClosed<LinkApi, core::Engine&> && kClosed<AddrApi, core::Engine&> && kClosed<RouteApi, core::Engine&>);
static_assert(kClosed<NexthopApi, core::Engine&> && kClosed<NeighApi, core::Engine&> && kClosed<FdbApi, core::Engine&>);
static_assert(kClosed<BridgeVlanApi, core::Engine&> && kClosed<RuleApi, core::Engine&> && kClosed<TcApi, core::Engine&>);
static_assert(kClosed<TcFilterApi, core::Engine&> && kClosed<ConntrackApi, core::Engine&> && kClosed<XdpApi, core::Engine&>);
static_assert(kClosed<AddrLabelApi, core::Engine&> && kClosed<TokenApi, core::Engine&> && kClosed<MrouteApi, core::Engine&>);
static_assert(kClosed<StatsApi, core::Engine&> && kClosed<PrlApi, core::Engine&>);
static_assert(kClosed<NeighTableApi, core::Engine&> && kClosed<NetnsApi, core::Engine&> && kClosed<RawApi, core::Engine&>);
static_assert(kClosed<GenlApi, core::Engine&> && kClosed<EthtoolApi, GenlApi&, core::Engine&>);
static_assert(kClosed<NetdevApi, GenlApi&, core::Engine&> && kClosed<MptcpApi, GenlApi&, core::Engine&>);
static_assert(kClosed<TcpMetricsApi, GenlApi&, core::Engine&>);
static_assert(kClosed<TunTapApi, ILinkApi&, std::optional<Netns>>);
static_assert(kClosed<TuneApi, Netlink&> && kClosed<TuneApi, Netlink&, TuneOptions> && kClosed<TuneApi, IEthtoolApi&, TuneOptions>);

// What the checks above would also refuse if they were wrong: ApiAccess (the library's own code
// and unit tests) does build an API on an engine.
TEST(OneWayIn, TheLibraryStillBuildsAnApiOnAnEngine) {
  static_assert(std::is_same_v<decltype(core::ApiAccess::make<LinkApi>(std::declval<core::Engine&>())), LinkApi>);
  static_assert(std::is_abstract_v<ILinkApi> && !std::is_final_v<ILinkApi>, "the interface stays mockable");
  SUCCEED();
}

}  // namespace
}  // namespace fastlink
