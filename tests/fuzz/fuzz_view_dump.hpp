// The view and the object through the API, as a program gets them: the input is one message of a
// dump that core::Engine reads from the scripted kernel of the unit tests
// (tests/unit/support/fake_kernel.hpp), and the same dump is taken twice per filter, as
// `Api::list(filter)` (decoded into one reused Info, filtered by the object's `matches`) and as
// `Api::forEach(filter, [](const View&) ...)` (filtered by `View::matches`, nothing decoded),
// under no filter and one more (`chosen`).
// Both must hand out the same messages, and every view accessor must read what list() decoded
// (support/view_agreement.hpp), also after a message of every field decoded into the same Info
// first (the "lead": a field the decoder forgot to reset would show here), and the view's
// toInfo() too. compareView (fuzz_decode.hpp) asks the decoder and the view directly; this asks
// the filters and the dump loops, which differ between the two paths (RouteView's family and
// path filters, LinkView's name pattern read without a copy).
//
// The dump: [lead, input] in a first datagram, [input, NLMSG_DONE] in a second, so views of two
// datagrams are handed out (the sanitizer build poisons the buffer between them).
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "unit/support/fake_kernel.hpp"

namespace fastlink::fuzz {

/// A message body written attribute by attribute (the leads of the view harnesses).
class Body {
 public:
  template <class Header>
  explicit Body(const Header& h) {
    put(&h, sizeof h);
  }
  Body& attr(uint16_t type, const void* payload, std::size_t size) {
    uint16_t length = static_cast<uint16_t>(4 + size);
    put(&length, 2);
    put(&type, 2);
    put(payload, size);
    bytes.resize((bytes.size() + 3) & ~std::size_t{3}, 0);
    return *this;
  }
  Body& u8(uint16_t type, uint8_t v) { return attr(type, &v, 1); }
  Body& u32(uint16_t type, uint32_t v) { return attr(type, &v, 4); }
  Body& str(uint16_t type, std::string_view s) {
    std::string z(s);
    return attr(type, z.c_str(), z.size() + 1);
  }
  Body& nest(uint16_t type, const Body& inner) { return attr(type, inner.bytes.data(), inner.bytes.size()); }
  /// Attributes only (a nest's payload).
  static Body none() { return Body(); }

  std::vector<uint8_t> bytes;

 private:
  Body() = default;
  void put(const void* p, std::size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
};

/// The engine every input of a harness shares (as fuzz_reply_reader: one per input would make
/// ASan poison a 64 KiB buffer each time), and the kernel that answers its dumps.
struct DumpHarness {
  test::FakeKernel* kernel = nullptr;  // owned by the engine
  std::unique_ptr<core::Engine> engine;

  static DumpHarness& get() {
    static DumpHarness h = [] {
      DumpHarness made;
      auto kernel = std::make_unique<test::FakeKernel>(64 * 1024);
      made.kernel = kernel.get();
      made.engine = std::make_unique<core::Engine>(std::move(kernel), NetlinkOptions{});
      return made;
    }();
    return h;
  }

  /// Every request gets the dump [lead, input] [input, DONE] of `type`.
  void answerWith(std::span<const uint8_t> lead, std::span<const uint8_t> input, uint16_t type) {
    kernel->setResponder([lead, input, type](test::FakeKernel& k, const nlmsghdr* request) {
      auto message = [&](std::span<const uint8_t> body) {
        return test::FakeKernel::message(request, type, NLM_F_MULTI, body);
      };
      k.queueDatagram({message(lead), message(input)});
      k.queueDatagram({message(input), test::FakeKernel::done(request)});
    });
  }
  /// Nothing left queued for the next input, whatever this one did.
  void clear() {
    kernel->queue.clear();
    kernel->sent.clear();
    kernel->setResponder({});
  }
};

}  // namespace fastlink::fuzz

// Defined by the seed replay (regression_main.cpp) only: there every input is dumped under every
// filter. Weak: in the libFuzzer build it stays undefined and its address null.
extern "C" __attribute__((weak)) const int fastlink_fuzz_every_filter;

namespace fastlink::fuzz {

/// The filters one input is dumped under. Fuzzing: the first (no filter) and one more, picked by
/// the input's bytes (FNV-1a), so an input always takes the same two (a crash replays) and the
/// corpus spreads over all of them; every filter for every input made the route harness ~10x
/// slower (two dumps per filter through the engine, under ASan), starving its decoder's fuzzing.
/// The seed replay (a few dozen inputs) takes every filter.
template <class Filter>
std::vector<const Filter*> chosen(const std::vector<Filter>& filters, const uint8_t* data, std::size_t size) {
  std::vector<const Filter*> out{&filters.front()};
  if (&fastlink_fuzz_every_filter != nullptr) {
    for (std::size_t i = 1; i < filters.size(); ++i) out.push_back(&filters[i]);
    return out;
  }
  if (filters.size() < 2) return out;
  uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  out.push_back(&filters[1 + h % (filters.size() - 1)]);
  return out;
}

[[noreturn]] inline void disagree(const char* view, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", view, what.c_str());
  __builtin_trap();
}

/// Takes the dump answered by `harness` under `filter` through `api.list` and `api.forEach` with
/// views, and traps when they differ: another count of messages, an accessor that reads another
/// value than list()'s object or throws where list() decoded (`disagreement(view, info)`, the
/// first field that differs), or a toInfo() (`toInfo(view)`) that disagrees with its view. When
/// list() refuses the dump (a malformed input) the views may refuse it too, or not (they read
/// lazily): then every accessor runs (an Error is fine, a crash is not).
template <class View, class Api, class Filter, typename Disagreement, typename ToInfo>
void compareDump(Api& api, const Filter& filter, const char* name, Disagreement disagreement, ToInfo toInfo) {
  using Info = std::remove_cvref_t<decltype(toInfo(std::declval<const View&>()))>;
  std::vector<Info> listed;
  bool listRefused = false;
  try {
    listed = api.list(filter);
  } catch (const Error&) {
    listRefused = true;
  }
  std::size_t seen = 0;
  try {
    api.forEach(filter, [&](const View& v) {
      if (listRefused) {
        (void)disagreement(v, Info{});  // every accessor runs
        return;
      }
      if (seen >= listed.size())
        disagree(name, "forEach handed out more messages than list() gave (" + std::to_string(listed.size()) + ")");
      std::string field = disagreement(v, listed[seen]);
      if (!field.empty()) disagree(name, "::" + field + " disagrees with list()'s object #" + std::to_string(seen));
      field = disagreement(v, toInfo(v));
      if (!field.empty()) disagree(name, "::toInfo()'s " + field + " disagrees with the view");
      ++seen;
    });
  } catch (const Error& e) {
    if (!listRefused) disagree(name, std::string("forEach refused a dump list() decoded: ") + e.what());
    return;
  }
  if (!listRefused && seen != listed.size())
    disagree(name, "forEach handed out " + std::to_string(seen) + " messages, list() gave " +
                       std::to_string(listed.size()));
}

}  // namespace fastlink::fuzz
