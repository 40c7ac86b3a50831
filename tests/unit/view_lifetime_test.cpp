// A view, or a string_view or span taken from one, kept past its callback (issue 29: "a
// use-after-release of a view's buffer must be caught in the sanitizer build or impossible by
// the API"). Impossible by the API for the view itself: LinkView, RouteView, AddrView and
// NeighView can be neither copied nor moved (static_asserts here and in link_view_test.cpp). What
// the API cannot stop is a kept reference into the receive buffer (a name, the message's span);
// the sanitizer build catches that: the engine poisons the buffer once a datagram's messages
// have been handed out (src/core/asan_poison.hpp), so a read after the callback is reported by
// ASan at the read, not silently served with the next datagram's bytes.
//
// The test code is compiled without instrumentation in the sanitizer build (cmake/
// compile_time.cmake), so it asks ASan's runtime whether the kept bytes are poisoned, and reads
// them once through the library (instrumented there): a view built over a kept span after the
// dump, in a death test that must end with ASan's use-after-poison report. In a build without
// ASan (no runtime linked) it checks what holds there too (the values during the callback).
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "fastlink/addr_view.hpp"
#include "fastlink/link_view.hpp"
#include "fastlink/neigh_view.hpp"
#include "fastlink/route_view.hpp"
#include "unit/golden.hpp"
#include "unit/support/fake_kernel.hpp"

// ASan's own query; weak, so it is null where no ASan runtime is linked (the Release build).
extern "C" int __asan_address_is_poisoned(const volatile void* address) __attribute__((weak));

namespace fastlink {
namespace {

template <class View>
constexpr bool kStaysInItsCallback = !std::is_copy_constructible_v<View> && !std::is_move_constructible_v<View> &&
                                     !std::is_copy_assignable_v<View> && !std::is_move_assignable_v<View>;
static_assert(kStaysInItsCallback<LinkView> && kStaysInItsCallback<RouteView> && kStaysInItsCallback<AddrView> &&
                  kStaysInItsCallback<NeighView>,
              "a view must not leave its callback");

bool poisoned(const void* p) { return __asan_address_is_poisoned(p) != 0; }

// A dump of three links over two datagrams, as the kernel sends one.
struct Dump {
  Dump() {
    auto k = std::make_unique<test::FakeKernel>();
    auto* kernel = k.get();
    engine = std::make_unique<core::Engine>(std::move(k), NetlinkOptions{});
    kernel->setResponder([](test::FakeKernel& k, const nlmsghdr* request) {
      auto link = [&](int32_t index, std::string_view name) {
        test::Bytes b = test::linkMessage(RTM_NEWLINK, NLM_F_MULTI, test::Ifinfo{.type = 1, .index = index, .flags = IFF_UP},
                                          test::Attrs().str(IFLA_IFNAME, name).u32(IFLA_MTU, 1500));
        return test::FakeKernel::message(request, RTM_NEWLINK, NLM_F_MULTI, std::span(b).subspan(NLMSG_HDRLEN));
      };
      k.queueDatagram({link(1, "first-datagram"), link(2, "v1")});
      k.queueDatagram({link(3, "last-datagram"), test::FakeKernel::done(request)});
    });
  }
  std::unique_ptr<core::Engine> engine;
};

struct Kept {
  std::string_view name;            // a string from a view, kept past its callback
  std::span<const uint8_t> message; // the view's message, kept past its callback
  bool poisonedDuringCallback = false;
};

// Keeps a name and a message of the first and of the last datagram of the dump.
std::vector<Kept> keepPastTheCallbacks(Dump& d) {
  std::vector<Kept> kept;
  core::ApiAccess::make<LinkApi>(*d.engine).forEach(LinkFilter{}, [&](const LinkView& v) {
    if (v.index() == 2) return;
    Kept k{*v.name(), v.message()};
    if (__asan_address_is_poisoned) k.poisonedDuringCallback = poisoned(k.name.data()) || poisoned(k.message.data());
    EXPECT_EQ(std::string(k.name), v.index() == 1 ? "first-datagram" : "last-datagram");  // valid here
    kept.push_back(k);
  });
  return kept;
}

TEST(ViewLifetime, ReferencesKeptPastTheCallbackArePoisonedInTheSanitizerBuild) {
  Dump d;
  std::vector<Kept> kept = keepPastTheCallbacks(d);
  ASSERT_EQ(kept.size(), 2u);
  if (!__asan_address_is_poisoned) {
    // No ASan runtime (the Release build): nothing can report a late read here; the sanitizer
    // build runs the checks below. The callbacks saw the right values (checked above).
    std::printf("no AddressSanitizer runtime in this build: the poisoning is checked in the sanitizer build\n");
    return;
  }
  for (const Kept& k : kept) {
    EXPECT_FALSE(k.poisonedDuringCallback) << "the buffer was poisoned while its view was in its callback";
    // After the dump, every byte a view handed out is poisoned: a name, its message's header.
    std::size_t readable = 0;
    for (std::size_t i = 0; i < k.name.size(); ++i) readable += !poisoned(k.name.data() + i);
    EXPECT_EQ(readable, 0u) << "of the " << k.name.size() << " bytes of a name kept past its callback";
    EXPECT_TRUE(poisoned(k.message.data())) << "a message kept past its callback is readable";
  }
}

TEST(ViewLifetime, AViewOverAKeptMessageIsReportedByAsanWhereItIsRead) {
  Dump d;
  std::vector<Kept> kept = keepPastTheCallbacks(d);
  ASSERT_EQ(kept.size(), 2u);
  if (!__asan_address_is_poisoned) {
    std::printf("no AddressSanitizer runtime in this build: the late read is checked in the sanitizer build\n");
    return;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // LinkView's constructor (library code, instrumented) indexes the kept message's attributes:
  // the first read of a poisoned byte ends the process with ASan's report.
  for (const Kept& k : kept)
    EXPECT_DEATH(
        {
          LinkView late(k.message);
          std::fprintf(stderr, "read %u after the dump\n", late.index());
        },
        "AddressSanitizer: use-after-poison");
}

}  // namespace
}  // namespace fastlink
