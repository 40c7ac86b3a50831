// Events and the state mirror (docs/python.md, "Events"): nl.events(...) is an EventStream, its
// fd pollable, iterable (blocking), and async-iterable through fastlink._aio (imported only when
// asked, so `import fastlink` does not pay for asyncio); nl.mirror(...) is a StateMirror seen as
// a read-only view. An overflow (the kernel dropped notifications) is fastlink.EventOverflow,
// raised after the events read before it, and the stream stays usable.
#include <deque>
#include <variant>

#include "binding.hpp"
#include "fastlink/events.hpp"
#include "fastlink/mirror.hpp"

namespace fastlink::python {

namespace {

using fastlink::Event;
using fastlink::ObjectKind;

constexpr ObjectKind kAllKinds[] = {ObjectKind::Link,    ObjectKind::Address, ObjectKind::Route, ObjectKind::Neighbour,
                                    ObjectKind::Rule,    ObjectKind::Nexthop, ObjectKind::Fdb,   ObjectKind::Qdisc,
                                    ObjectKind::Class,   ObjectKind::Filter};

ObjectKind kindParsed(const std::string& word) {
  for (ObjectKind kind : kAllKinds)
    if (fastlink::objectKindName(kind) == word) return kind;
  if (word == "neighbour") return ObjectKind::Neighbour;
  throw nb::value_error(("unknown event kind '" + word +
                         "' (link, address, route, neigh, rule, nexthop, fdb, qdisc, class, filter)")
                            .c_str());
}

/// The event's object as its Python class; None for a kind whose Info type is not bound.
nb::object objectOf(const Event& event) {
  return std::visit(
      [](const auto& object) -> nb::object {
        if constexpr (std::is_same_v<std::decay_t<decltype(object)>, std::monostate>) {
          return nb::none();
        } else {
          try {
            return nb::cast(object);
          } catch (const nb::cast_error&) {
            return nb::none();
          }
        }
      },
      event.object);
}

/// The overflow raised to Python: fastlink.EventOverflow (ENOBUFS), a fastlink.Error.
[[noreturn]] void raiseOverflow(const char* operation) {
  throw fastlink::Error(fastlink::make_error_code(fastlink::Errc::receive_overflow), operation);
}

/// Events read but not yet handed to Python, and an overflow seen after them. Read in C++ with
/// the GIL released; converted to Python objects one at a time.
struct Pending {
  std::deque<Event> events;
  bool overflow = false;

  /// The queued events as a list; raises the overflow when nothing came before it.
  nb::list take(const char* operation) {
    if (events.empty() && overflow) {
      overflow = false;
      raiseOverflow(operation);
    }
    nb::list out;
    while (!events.empty()) {
      out.append(nb::cast(std::move(events.front())));
      events.pop_front();
    }
    return out;
  }
};

/// The operation an overflow names ("receive buffer overflowed: replies were lost (events)").
constexpr const char* kStreamOverflow = "events";

/// fastlink.EventStream: nl.events("link", "route", ...).
struct PyEventStream {
  std::optional<fastlink::EventStream> stream;
  Pending pending;

  fastlink::EventStream& get() {
    if (!stream) throw nb::value_error("this fastlink.EventStream is closed");
    return *stream;
  }
  /// Reads what is queued (timeout 0), up to `timeout` ms, or until something comes (nullopt).
  void read(std::optional<double> timeout) {
    fastlink::EventStream& s = get();
    auto onEvent = [this](const Event& e) { pending.events.push_back(e); };
    auto onOverflow = [this] { pending.overflow = true; };
    nb::gil_scoped_release release;
    if (!timeout) s.wait(onEvent, onOverflow);
    else if (*timeout <= 0) s.process(onEvent, onOverflow);
    else s.wait(onEvent, std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000)), onOverflow);
  }
};

/// fastlink.Mirror: nl.mirror(...). The StateMirror dumps through its Netlink's request socket,
/// so every call checks that the Netlink is still open (ValueError otherwise).
struct PyMirror {
  PyNetlink* owner;
  std::optional<fastlink::StateMirror> mirror;
  Pending pending;

  fastlink::StateMirror& get() {
    owner->get();
    if (!mirror) throw nb::value_error("this fastlink.Mirror is closed");
    return *mirror;
  }
  void read(std::optional<double> timeout) {
    fastlink::StateMirror& m = get();
    auto onChange = [this](const Event& e) { pending.events.push_back(e); };
    nb::gil_scoped_release release;
    if (timeout && *timeout > 0) m.wait(onChange, std::chrono::milliseconds(static_cast<int64_t>(*timeout * 1000)));
    else m.process(onChange);
  }
};

/// Blocking iteration: the next event, waiting for one (Ctrl-C interrupts the wait).
template <class Stream>
nb::object nextEvent(Stream& s, const char* operation) {
  while (s.pending.events.empty()) {
    if (s.pending.overflow) s.pending.take(operation);  // raises
    s.read(std::nullopt);
    if (s.pending.events.empty() && PyErr_CheckSignals() != 0) throw nb::python_error();
  }
  nb::object event = nb::cast(std::move(s.pending.events.front()));
  s.pending.events.pop_front();
  return event;
}

/// `async for ev in stream`: fastlink._aio.iterate(stream) (asyncio imported on first use).
nb::object asyncIterator(nb::handle self) { return nb::module_::import_("fastlink._aio").attr("iterate")(self); }

}  // namespace

void bindEvents(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  nb::class_<Event>(m, "Event", "One change: what happened (action) to which object (kind, object).")
      .def_prop_ro("action", [](const Event& e) { return std::string(fastlink::eventActionName(e.action)); },
                   "'new', 'changed' (only from a Mirror) or 'deleted'")
      .def_prop_ro("kind", [](const Event& e) { return std::string(fastlink::objectKindName(e.kind)); },
                   "'link', 'address', 'route', 'neigh', 'rule', 'nexthop', 'fdb', 'qdisc', 'class', 'filter'")
      .def_ro("created", &Event::created, "the kernel marked the message as creating the object")
      .def_ro("replaced", &Event::replaced, "the kernel marked the message as replacing an object")
      .def_ro("nsid", &Event::nsid, "the sender namespace's id (all_namespaces=True), None for our own")
      .def_prop_ro("object", &objectOf, "the object (LinkInfo, AddrInfo, RouteInfo, ...)")
      .def("__repr__", [](const Event& e) {
        nb::object object = objectOf(e);
        return "Event(" + std::string(fastlink::eventActionName(e.action)) + " " +
               std::string(fastlink::objectKindName(e.kind)) + " " + nb::cast<std::string>(nb::repr(object)) + ")";
      });

  nb::class_<PyEventStream>(m, "EventStream",
                            "Kernel notifications decoded into Info objects (`ip monitor`). Poll fileno() "
                            "and call read(), iterate it (blocking), or `async for ev in stream`. A context "
                            "manager. fastlink.EventOverflow when the kernel dropped notifications.")
      .def("fileno", [](PyEventStream& s) { return s.get().fd(); }, "the socket to poll/select for input")
      .def(
          "read",
          [](PyEventStream& s, double timeout) {
            if (timeout < 0) throw nb::value_error("timeout must be >= 0 seconds");
            s.read(timeout);
            return s.pending.take(kStreamOverflow);
          },
          "timeout"_a = 0.0,
          "The events queued now (timeout=0, never blocks), or waiting up to timeout seconds for some. "
          "Raises EventOverflow when the kernel dropped notifications (after the events read before it).")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__", [](PyEventStream& s) { return nextEvent(s, kStreamOverflow); })
      .def("__aiter__", &asyncIterator)
      .def_prop_ro("overflows", [](PyEventStream& s) { return s.get().subscription().overflows(); },
                   "overflows seen so far")
      .def("close", [](PyEventStream& s) { s.stream.reset(); })
      .def_prop_ro("closed", [](PyEventStream& s) { return !s.stream; })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyEventStream& s, nb::handle, nb::handle, nb::handle) { s.stream.reset(); return false; },
           "exc_type"_a.none(), "exc"_a.none(), "traceback"_a.none());

  nb::class_<fastlink::MirrorStats>(m, "MirrorStats", "Counters of a Mirror's work.")
      .def_ro("notifications", &fastlink::MirrorStats::notifications)
      .def_ro("overflows", &fastlink::MirrorStats::overflows)
      .def_ro("resyncs", &fastlink::MirrorStats::resyncs)
      .def_ro("table_rereads", &fastlink::MirrorStats::tableRereads)
      .def_ro("objects", &fastlink::MirrorStats::objects)
      .def_ro("bytes", &fastlink::MirrorStats::bytes);

  using Links = std::vector<fastlink::LinkInfo>;
  nb::class_<PyMirror>(m, "Mirror",
                       "A read-only, self-repairing copy of the namespace's links, addresses, routes and "
                       "neighbours (the C++ StateMirror). read() applies the kernel's notifications and returns "
                       "what changed ('new', 'changed', 'deleted'); after an overflow it re-dumps by itself. "
                       "Lookups return copies: nothing here changes the kernel or the mirror.")
      .def("fileno", [](PyMirror& s) { return s.get().fd(); })
      .def(
          "read",
          [](PyMirror& s, double timeout) {
            if (timeout < 0) throw nb::value_error("timeout must be >= 0 seconds");
            s.read(timeout);
            return s.pending.take("");
          },
          "timeout"_a = 0.0, "Applies the queued notifications (waiting up to timeout seconds); returns the changes.")
      .def("__aiter__", &asyncIterator)
      .def("resync", [](PyMirror& s) {
        fastlink::StateMirror& m = s.get();
        std::vector<Event> changes;
        unlocked([&] { m.resync([&](const Event& e) { changes.push_back(e); }); });
        return changes;
      }, "Re-dumps the mirrored tables now; returns the differences.")
      .def(
          "link",
          [](PyMirror& s, const Ifref& dev) {
            fastlink::StateMirror& m = s.get();
            return dev.isName() ? m.link(dev.name()) : m.link(dev.index());
          },
          "dev"_a, "the link by name or index, None when the mirror has none")
      .def_prop_ro("links", [](PyMirror& s) {
        Links out;
        s.get().forEachLink([&](const fastlink::LinkInfo& l) { out.push_back(l); });
        return out;
      }, "every link (a list of copies)")
      .def(
          "addresses",
          [](PyMirror& s, std::optional<uint32_t> dev) {
            std::vector<fastlink::AddrInfo> out;
            if (dev) return s.get().addresses(*dev);
            s.get().forEachAddress([&](const fastlink::AddrInfo& a) { out.push_back(a); });
            return out;
          },
          "dev"_a = nb::none(), "the addresses of one device (by ifindex), or all")
      .def_prop_ro("routes", [](PyMirror& s) {
        std::vector<fastlink::RouteInfo> out;
        s.get().forEachRoute([&](const fastlink::RouteInfo& r) { out.push_back(r); });
        return out;
      })
      .def(
          "route",
          [](PyMirror& s, const std::string& dst, uint32_t table) {
            return s.get().route(table, fastlink::Prefix::parse(dst));
          },
          "dst"_a, "table"_a = 254, "the route to exactly dst in table (lowest metric), None if none")
      .def_prop_ro("neighbours", [](PyMirror& s) {
        std::vector<fastlink::NeighInfo> out;
        s.get().forEachNeighbour([&](const fastlink::NeighInfo& n) { out.push_back(n); });
        return out;
      })
      .def("count", [](PyMirror& s, const std::string& kind) { return s.get().count(kindParsed(kind)); }, "kind"_a)
      .def_prop_ro("stats", [](PyMirror& s) { return s.get().stats(); })
      .def("close", [](PyMirror& s) { s.mirror.reset(); })
      .def_prop_ro("closed", [](PyMirror& s) { return !s.mirror; })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyMirror& s, nb::handle, nb::handle, nb::handle) { s.mirror.reset(); return false; },
           "exc_type"_a.none(), "exc"_a.none(), "traceback"_a.none());

  netlink.def(
      "events",
      [](PyNetlink& n, nb::args kinds, bool allNamespaces, int receiveBuffer) {
        std::vector<ObjectKind> parsedKinds;
        for (nb::handle kind : kinds) {
          if (!PyUnicode_Check(kind.ptr())) throw nb::type_error("events(): kinds are strings ('link', 'route', ...)");
          parsedKinds.push_back(kindParsed(nb::cast<std::string>(kind)));
        }
        if (parsedKinds.empty()) parsedKinds.assign(std::begin(kAllKinds), std::end(kAllKinds));
        if (receiveBuffer <= 0) throw nb::value_error("receive_buffer must be > 0 bytes");
        fastlink::EventOptions options;
        options.subscription.allNamespaces = allNamespaces;
        options.subscription.receiveBufferBytes = receiveBuffer;
        fastlink::Netlink& netlink = n.get();
        auto* stream = new PyEventStream;
        try {
          unlocked([&] { stream->stream.emplace(netlink, parsedKinds, options); });
        } catch (...) {
          delete stream;
          throw;
        }
        return stream;
      },
      "kinds"_a, "all_namespaces"_a = false, "receive_buffer"_a = 4 * 1024 * 1024, nb::rv_policy::take_ownership,
      "Subscribes to the kernel's notifications about these kinds ('link', 'address', 'route', 'neigh', "
      "'rule', 'nexthop', 'fdb', 'qdisc', 'class', 'filter'; none: all). Like `ip monitor`.");
  netlink.def(
      "mirror",
      [](PyNetlink& n, bool links, bool addresses, bool routes, bool neighbours, int receiveBuffer) {
        if (receiveBuffer <= 0) throw nb::value_error("receive_buffer must be > 0 bytes");
        fastlink::MirrorOptions options;
        options.links = links;
        options.addresses = addresses;
        options.routes = routes;
        options.neighbours = neighbours;
        options.subscription.receiveBufferBytes = receiveBuffer;
        fastlink::Netlink& netlink = n.get();
        auto* mirror = new PyMirror{&n, std::nullopt, {}};
        try {
          unlocked([&] { mirror->mirror.emplace(netlink, options); });
        } catch (...) {
          delete mirror;
          throw;
        }
        return mirror;
      },
      "links"_a = true, "addresses"_a = true, "routes"_a = true, "neighbours"_a = true,
      "receive_buffer"_a = 4 * 1024 * 1024, nb::rv_policy::take_ownership, nb::keep_alive<0, 1>(),
      "A Mirror of the chosen tables: subscribes, then dumps; read() keeps it current.");
}

}  // namespace fastlink::python
