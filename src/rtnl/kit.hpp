// The object kit: what every rtnetlink object does the same way, written once. An object is an
// Info type, a codec (encode(Info, Verb) -> Request, decode, a dump-request encoder, a match for
// what the kernel cannot filter) and a traits struct naming them for the templates below:
//
//   struct Traits : Object<Info, Filter, RTM_NEW..., families of dumped messages to keep> {
//     static constexpr const char* kNoun = "...";        // "NOUN show", "no NOUN in the reply"
//     static void devices(auto& info, auto&& visit);     // optional: every std::optional<Ifref> to resolve
//     static void encodeDump(core::MessageWriter&, const Filter&, const Indexes&);
//     static void decode(const nlmsghdr*, Info& out, const Filter&);
//     static bool matches(const Info&, const Filter&, const Indexes&);
//     static std::string show(const Filter&);           // optional: the dump's description
//     // optional: decodeMany(m) (one message, several objects), emptyOn(filter, error)
//   };
#pragma once

#include <linux/netlink.h>

#include <functional>
#include <span>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/engine.hpp"
#include "fastlink/view_run.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// The ifindex of device `name` (or altname) in the engine's namespace, std::nullopt when there
/// is none: SIOCGIFINDEX on the engine's socket (core::interfaceIndex), else RTM_GETLINK.
/// Throws Error for an invalid name.
std::optional<uint32_t> findIndex(core::Engine& engine, const std::string& name);

/// Name -> ifindex, the one way every object resolves devices (by findIndex). Lives for one
/// call; a name given twice is looked up once.
class Names {
 public:
  explicit Names(core::Engine& engine) : engine_(engine) {}
  /// An index is returned as is; a name is looked up (Error(ENODEV) if there is no such device).
  uint32_t index(const Ifref& dev);
  uint32_t index(const std::optional<Ifref>& dev) { return dev ? index(*dev) : 0; }
  void resolve(std::optional<Ifref>& dev) {
    if (dev && dev->isName()) dev = Ifref(index(*dev));
  }

 private:
  core::Engine& engine_;
  std::vector<std::pair<std::string, uint32_t>> cache_;
};

/// The ifinfomsg (and IFLA_IFNAME) naming one device, for link get/del and name lookups.
void putDevice(core::MessageWriter& writer, const Ifref& dev, const std::string& operation);

/// Ifindexes of a filter's devices (filter.dev; filter.master or filter.bridge), resolved once.
using Indexes = detail::DumpIndexes;


/// The base of every traits struct: the Info and Filter types, the RTM_NEW* type, the families.
template <class InfoT, class FilterT, uint16_t kNewType, uint64_t kFamilySet = kAnyFamily>
struct Object {
  using Info = InfoT;
  using Filter = FilterT;
  static constexpr uint16_t kNew = kNewType;
  static constexpr uint64_t kFamilies = kFamilySet;
  /// By default the device to resolve is info.dev, if the Info has one.
  static void devices(auto& info, auto&& visit) {
    if constexpr (requires { info.dev; }) visit(info.dev);
  }
};

inline void send(core::Engine& engine, const Request& r) { engine.execute(r); }

/// Sends a pipelined batch of `count` requests, counting the applied ones. Errors whose errno
/// is in `gone` (the object vanished meanwhile) are not failures; the first other one is thrown.
std::size_t runAll(core::Engine& engine, std::size_t count, const std::function<Request(std::size_t)>& request,
                   std::initializer_list<std::errc> gone);

/// `info` with every device name (T::devices) replaced by its ifindex.
template <class T>
typename T::Info resolved(core::Engine& engine, typename T::Info info) {
  Names names(engine);
  T::devices(info, [&](std::optional<Ifref>& d) { names.resolve(d); });
  return info;
}

/// The one check-resolve-send (Netlink::execute's, the objects' apply below, the CLI's): builds
/// the request with every name checked and at a placeholder index, so bad input is reported
/// before any lookup (a missing device must not hide the real mistake); then with the names
/// looked up (each once), and sends it.
void checkResolveSend(core::Engine& engine, const std::function<Request(const IndexOf& indexOf)>& build);

/// Resolves the names in `info` and sends build(info), by checkResolveSend. Without names
/// nothing is copied or looked up.
template <class T, class Build>
void apply(core::Engine& engine, const typename T::Info& info, Build build) {
  bool named = false;
  T::devices(info, [&](const std::optional<Ifref>& d) { named = named || (d && d->isName()); });
  if (!named) return send(engine, build(info));
  checkResolveSend(engine, [&](const IndexOf& indexOf) {
    typename T::Info copy = info;
    T::devices(copy, [&](std::optional<Ifref>& d) {
      if (d && d->isName()) d = Ifref(indexOf(d->name()));
    });
    return build(copy);
  });
}

/// The dump's datagrams: resolves the filter's devices, sends T's dump request and hands each
/// datagram's replies to `onRun(messages, indexes)` (every reply before NLMSG_DONE, of any type
/// or family: the caller keeps those it wants, see `isT`). DUMP_INTR restarts call `restart`
/// first. The decoding loop (dump) and the views (forEachViewRun) run over it.
template <class T, class OnRun>
void dumpRuns(core::Engine& engine, const typename T::Filter& filter, OnRun&& onRun,
              const std::function<void()>& restart) {
  Names names(engine);
  Indexes ix;
  if constexpr (requires { filter.bridge; }) ix.master = names.index(filter.bridge);
  if constexpr (requires { filter.dev; }) ix.dev = names.index(filter.dev);
  if constexpr (requires { filter.master; }) ix.master = names.index(filter.master);
  core::MessageWriter w(static_cast<uint16_t>(T::kNew + 2), 0);
  T::encodeDump(w, filter, ix);
  auto run = [&](std::span<const nlmsghdr* const> messages) { onRun(messages, ix); };
  try {
    std::string operation;
    if constexpr (requires { T::show(filter); }) operation = T::show(filter);
    else operation = std::string(T::kNoun) + " show";
    engine.dumpRuns(w.bytes(), operation, run, restart);
  } catch (const Error& e) {
    if constexpr (requires { T::emptyOn(filter, e); })
      if (T::emptyOn(filter, e)) return;
    throw;
  }
}

/// Whether a dumped message is one of T's: its type and one of its families.
template <class T>
bool isT(const nlmsghdr* m) {
  return m->nlmsg_type == T::kNew && hasFamily(m, T::kFamilies);
}

/// The one dump loop: decodes every message of T's type and families into one reused Info, and
/// hands those T::matches accepts to `sink` (as Info&, which it may move from). The loop over a
/// datagram is this template's own code, so the decoder and the sink are inlined into it rather
/// than reached through a std::function per message.
template <class T, class Sink>
void dump(core::Engine& engine, const typename T::Filter& filter, Sink&& sink, const std::function<void()>& restart) {
  typename T::Info slot;
  dumpRuns<T>(
      engine, filter,
      [&](std::span<const nlmsghdr* const> messages, const Indexes& ix) {
        for (const nlmsghdr* m : messages) {
          if (!isT<T>(m)) continue;
          if constexpr (requires { T::decodeMany(m); }) {
            for (auto& one : T::decodeMany(m))
              if (T::matches(one, filter, ix)) sink(one);
          } else {
            T::decode(m, slot, filter);
            if (T::matches(slot, filter, ix)) sink(slot);
          }
        }
      },
      restart);
}

/// The dump as views, one datagram at a time: the messages of T's type and families go to
/// `sink` with the filter's resolved devices; the caller's template (detail::viewRun) builds the
/// views, matches them (T::View::matches) and calls its callback inline. The messages are
/// gathered into one array sized once per datagram (a store each, no push_back).
template <class T>
void forEachViewRun(core::Engine& engine, const typename T::Filter& filter, detail::RunSink sink,
                    const std::function<void()>& restart) {
  std::vector<const uint8_t*> run;
  dumpRuns<T>(
      engine, filter,
      [&](std::span<const nlmsghdr* const> messages, const Indexes& ix) {
        if (run.size() < messages.size()) run.resize(messages.size());
        std::size_t n = 0;
        for (const nlmsghdr* m : messages)
          if (isT<T>(m)) run[n++] = reinterpret_cast<const uint8_t*>(m);
        if (n) sink(std::span<const uint8_t* const>(run.data(), n), ix);
      },
      restart);
}

/// forEach of every object API.
template <class T>
void forEach(core::Engine& engine, const typename T::Filter& filter,
             const std::function<void(const typename T::Info&)>& each, const std::function<void()>& restart) {
  dump<T>(engine, filter, [&](typename T::Info& x) { each(x); }, restart);
}

/// list of every object API: the dump collected (moved, not copied), restarted from empty.
template <class T>
std::vector<typename T::Info> list(core::Engine& engine, const typename T::Filter& filter) {
  std::vector<typename T::Info> out;
  dump<T>(engine, filter, [&](typename T::Info& x) { out.push_back(std::move(x)); }, [&] { out.clear(); });
  return out;
}

/// flush of every object API: list, then one pipelined delete. `key` keeps what a delete needs
/// of a listed object (std::nullopt: leave it); `del` builds the delete; `gone` as in runAll.
template <class T, class Key, class Del>
std::size_t flush(core::Engine& engine, const typename T::Filter& filter, Key key, Del del,
                  std::initializer_list<std::errc> gone) {
  using K = typename std::invoke_result_t<Key, const typename T::Info&>::value_type;
  std::vector<K> keys;
  dump<T>(
      engine, filter, [&](const typename T::Info& x) { if (auto k = key(x)) keys.push_back(std::move(*k)); },
      [&] { keys.clear(); });
  return runAll(engine, keys.size(), [&](std::size_t i) { return del(keys[i]); }, gone);
}

/// get of every object API: sends the request in `w` and decodes its one reply.
template <class T>
typename T::Info get(core::Engine& engine, const core::MessageWriter& w, const std::string& operation,
                     const typename T::Filter& filter = {}) {
  std::optional<typename T::Info> out;
  engine.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    if (m->nlmsg_type == T::kNew) T::decode(m, out.emplace(), filter);
  });
  if (!out) throw malformed(operation, std::string("no ") + T::kNoun + " in the reply");
  return std::move(*out);
}

/// find of every object API: get, or std::nullopt when the kernel answers `missing`.
template <class Get>
auto find(std::errc missing, Get&& get) -> std::optional<decltype(get())> {
  try {
    return get();
  } catch (const Error& e) {
    if (e.code() == missing) return std::nullopt;
    throw;
  }
}

}  // namespace fastlink::rtnl

// One verb of an object: its request builder (encode with Verb::verb) and its API method
// (resolve names, send). FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, QdiscTraits, addQdisc, Add,
// encodeQdisc) defines TcRequests::addQdisc and TcApi::addQdisc over QdiscTraits::Info.
#define FASTLINK_RTNL_VERB_OF(Requests, Api, T, name, verb, encode)                                       \
  Request Requests::name(const T::Info& x) { return rtnl::encode(x, rtnl::Verb::verb); }                  \
  void Api::name(const T::Info& x) { rtnl::apply<T>(engine_, x, Requests::name); }

// The same for an object named alike throughout: FASTLINK_RTNL_VERB(Fdb, append, Append,
// encodeFdb) defines FdbRequests::append and FdbApi::append; the file's traits struct is `Traits`.
#define FASTLINK_RTNL_VERB(Object, name, verb, encode) \
  FASTLINK_RTNL_VERB_OF(Object##Requests, Object##Api, Traits, name, verb, encode)

/// Defines Api::forEach and Api::list (which every object API has, the same way) over the kit.
#define FASTLINK_RTNL_LIST_API(Api, T)                                                                  \
  void Api::forEach(const T::Filter& filter, const std::function<void(const T::Info&)>& each,          \
                    const std::function<void()>& restart) {                                            \
    rtnl::forEach<T>(engine_, filter, each, restart);                                                  \
  }                                                                                                    \
  std::vector<T::Info> Api::list(const T::Filter& filter) { return rtnl::list<T>(engine_, filter); }

/// Defines Api::forEach over views (T::View, valid during the call only) over the kit, and the
/// free function `Free` (forEachAddr) doing the same on `netlink.accessor()`.
#define FASTLINK_RTNL_VIEW_API(Api, T, Free, accessor)                                                  \
  void Api::forEach(const T::Filter& filter, const std::function<void(const T::View&)>& each,          \
                    const std::function<void()>& restart) {                                            \
    auto run = detail::viewRun<T::View>(filter, each);                                                  \
    forEachRun(filter, detail::RunSink(run), restart);                                                  \
  }                                                                                                     \
  void Api::forEachRun(const T::Filter& filter, detail::RunSink sink, const std::function<void()>& restart) { \
    rtnl::forEachViewRun<T>(engine_, filter, sink, restart);                                            \
  }                                                                                                     \
  bool T::View::matches(const T::View& view, const T::Filter& filter, const detail::DumpIndexes& indexes) { \
    return T::matchesView(view, filter, indexes);                                                       \
  }                                                                                                     \
  void Free(Netlink& netlink, const T::Filter& filter, const std::function<void(const T::View&)>& each,  \
            const std::function<void()>& restart) {                                                     \
    netlink.accessor().forEach(filter, each, restart);                                                  \
  }
