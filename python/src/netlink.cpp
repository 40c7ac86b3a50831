// fastlink.Netlink, the object APIs over it (nl.links, nl.routes, ...), requests and batches.
#include "binding.hpp"

#include <deque>

#include "fastlink/addr.hpp"
#include "fastlink/link.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/request.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"

namespace fastlink::python {

namespace {

using PyLinks = PyApi<fastlink::LinkApi, &fastlink::Netlink::links>;
using PyAddresses = PyApi<fastlink::AddrApi, &fastlink::Netlink::addresses>;
using PyRoutes = PyApi<fastlink::RouteApi, &fastlink::Netlink::routes>;
using PyNeighbours = PyApi<fastlink::NeighApi, &fastlink::Netlink::neighbours>;
using PyRules = PyApi<fastlink::RuleApi, &fastlink::Netlink::rules>;

fastlink::BatchOptions batchOptions(const std::string& onError, std::size_t window) {
  fastlink::BatchOptions options;
  if (onError == "stop") options.onError = fastlink::OnError::Stop;
  else if (onError == "continue") options.onError = fastlink::OnError::Continue;
  else throw nb::value_error("on_error must be 'stop' or 'continue'");
  options.window = window;
  return options;
}

const char* statusName(fastlink::RequestStatus status) {
  switch (status) {
    case fastlink::RequestStatus::Applied: return "applied";
    case fastlink::RequestStatus::Failed: return "failed";
    case fastlink::RequestStatus::NotSent: return "not_sent";
  }
  return "unknown";
}

/// on_error="stop" with the automatic window goes through runStopPipelined (stop_pipeline.cpp);
/// an explicit window keeps the library's Stop (requests in flight with a failure may apply).
bool pipelinedStop(const fastlink::BatchOptions& options) {
  return options.onError == fastlink::OnError::Stop && options.window == 0;
}

/// fastlink.Batch: a copy of each queued Request. Holding a reference to the Python object
/// instead saves ~650 instructions per add but keeps the object too: 645 instead of 331 bytes per
/// queued route (docs/BENCHMARKS.md, "Python"). A deque, not fastlink::Batch's vector: growing
/// never copies what is queued nor holds two arrays at once (at 100,000 requests the vector's
/// last growth alone held 21 MB).
struct PyBatch {
  std::deque<fastlink::Request> requests;
  /// Netlink.run is reading the queue with the GIL released: add and clear must wait.
  std::size_t running = 0;

  void add(const fastlink::Request& request) {
    refuseWhileRunning();
    requests.push_back(request);
  }
  void clear() {
    refuseWhileRunning();
    requests.clear();
  }
  void refuseWhileRunning() const {
    if (running) throw std::runtime_error("this fastlink.Batch is being run (Netlink.run in another thread)");
  }
};

/// Runs `source` as the options say (GIL released), each result into `outcome`.
void runInto(fastlink::Netlink& netlink, const fastlink::RequestSource& source, const fastlink::BatchOptions& options,
             BatchOutcome& outcome) {
  fastlink::ResultSink sink = [&](std::size_t index, const fastlink::RequestResult& r) { outcome.add(index, r); };
  if (pipelinedStop(options)) runStopPipelined(netlink, source, sink);
  else netlink.run(source, options, sink);
}

/// Netlink::run over a Batch: each request copied as it is sent (the Batch can be run again).
BatchOutcome runBatch(fastlink::Netlink& netlink, const PyBatch& batch, const fastlink::BatchOptions& options) {
  BatchOutcome outcome;
  outcome.statuses.reserve(batch.requests.size());
  auto next = batch.requests.begin();
  runInto(netlink, [&]() -> std::optional<fastlink::Request> {
    if (next == batch.requests.end()) return std::nullopt;
    return *next++;
  }, options, outcome);
  return outcome;
}

/// The list of RequestResult objects of `result.results`, made once (typed for the stubs).
using ResultList = nb::typed<nb::list, fastlink::RequestResult>;
ResultList resultList(PyBatchResult& result) {
  if (result.results.is_valid()) return nb::borrow<ResultList>(result.results);
  const BatchOutcome& o = result.outcome;
  nb::list list;
  if (o.perRequest) {
    auto error = o.errors.begin();
    for (std::size_t i = 0; i < o.statuses.size(); ++i) {
      fastlink::RequestResult r{static_cast<fastlink::RequestStatus>(o.statuses[i]), std::nullopt};
      if (error != o.errors.end() && error->first == i) r.error = (error++)->second;
      list.append(nb::cast(std::move(r)));
    }
  } else {
    for (const auto& [index, error] : o.errors) list.append(nb::cast(fastlink::RequestResult{fastlink::RequestStatus::Failed, error}));
  }
  result.results = list;
  return nb::borrow<ResultList>(list);
}

/// Netlink::run over a Python iterable: the C++ batch pulls one request at a time (taking the
/// GIL only for that), and results are kept only for failures. An exception raised by the
/// iterable ends the stream and is raised again once the batch has stopped.
BatchOutcome runStreamed(fastlink::Netlink& netlink, nb::handle requests, const fastlink::BatchOptions& options) {
  nb::object iterator = nb::steal(PyObject_GetIter(requests.ptr()));
  if (!iterator.is_valid()) throw nb::python_error();
  nb::object pending;  // the exception the iterable raised, raised again after the run
  fastlink::RequestSource source = [&]() -> std::optional<fastlink::Request> {
    nb::gil_scoped_acquire gil;
    if (pending.is_valid()) return std::nullopt;
    nb::object item = nb::steal(PyIter_Next(iterator.ptr()));
    if (!item.is_valid()) {
      if (PyErr_Occurred()) {
        nb::python_error error;  // takes the error indicator
        pending = nb::borrow(error.value());
      }
      return std::nullopt;
    }
    fastlink::Request* request = nullptr;
    if (!nb::try_cast<fastlink::Request*>(item, request) || !request) {
      pending = nb::handle(PyExc_TypeError)("run(): every item must be a fastlink.Request");
      return std::nullopt;
    }
    return *request;
  };
  BatchOutcome result;
  result.perRequest = false;
  unlocked([&] { runInto(netlink, source, options, result); });
  if (pending.is_valid()) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(pending.ptr())), pending.ptr());
    throw nb::python_error();
  }
  return result;
}

}  // namespace

void BatchOutcome::add(std::size_t index, const fastlink::RequestResult& result) {
  switch (result.status) {
    case fastlink::RequestStatus::Applied: ++applied; break;
    case fastlink::RequestStatus::Failed: ++failed; break;
    case fastlink::RequestStatus::NotSent: ++notSent; break;
  }
  if (perRequest) statuses.push_back(static_cast<uint8_t>(result.status));
  if (result.error && (perRequest || result.status == fastlink::RequestStatus::Failed))
    errors.emplace_back(index, *result.error);
}

const fastlink::Error* BatchOutcome::firstError() const {
  for (const auto& [index, error] : errors)
    if (!perRequest || statuses[index] == static_cast<uint8_t>(fastlink::RequestStatus::Failed)) return &error;
  return nullptr;
}

BatchOutcome BatchOutcome::of(const fastlink::BatchResult& result) {
  BatchOutcome outcome;
  outcome.statuses.reserve(result.results.size());
  for (std::size_t i = 0; i < result.results.size(); ++i) outcome.add(i, result.results[i]);
  return outcome;
}

void bindRequests(nb::module_& m) {
  nb::class_<fastlink::Request>(m, "Request", "One encoded request, for a Batch (built by LinkRequests & co).")
      .def_prop_ro("operation", &fastlink::Request::operation, "what it does, in iproute2 words")
      .def("__repr__", [](const fastlink::Request& r) { return "<fastlink.Request " + r.operation() + ">"; });

  nb::class_<PyBatch>(m, "Batch", "Requests sent pipelined by Netlink.run(batch).")
      .def(nb::init<>())
      .def("add", &PyBatch::add, "request"_a)
      .def("clear", &PyBatch::clear)
      .def("__len__", [](const PyBatch& b) { return b.requests.size(); });

  nb::class_<fastlink::RequestResult>(m, "RequestResult", "The outcome of one request of a batch.")
      .def_prop_ro("status", [](const fastlink::RequestResult& r) { return statusName(r.status); },
                   "'applied', 'failed' or 'not_sent'")
      .def_prop_ro("error", [](const fastlink::RequestResult& r) { return r.error ? makeError(*r.error) : nb::none(); },
                   "a fastlink.Error (not raised), or None")
      .def("__repr__", [](const fastlink::RequestResult& r) {
        return std::string("RequestResult(") + statusName(r.status) + (r.error ? ", " + std::string(r.error->what()) : "") + ")";
      });

  nb::class_<PyBatchResult>(m, "BatchResult", "Per-request results of Netlink.run, in the order queued.")
      .def_prop_ro("results", &resultList,
                   "a RequestResult per request (a streamed run: per failed request), made on first read")
      .def_prop_ro("applied", [](const PyBatchResult& r) { return r.outcome.applied; })
      .def_prop_ro("failed", [](const PyBatchResult& r) { return r.outcome.failed; })
      .def_prop_ro("not_sent", [](const PyBatchResult& r) { return r.outcome.notSent; })
      .def_prop_ro("ok", [](const PyBatchResult& r) { return r.outcome.failed == 0 && r.outcome.notSent == 0; })
      .def_prop_ro("first_error", [](const PyBatchResult& r) {
        const fastlink::Error* e = r.outcome.firstError();
        return e ? makeError(*e) : nb::none();
      })
      .def("raise_for_error", [](const PyBatchResult& r) {
        if (const fastlink::Error* e = r.outcome.firstError()) throw *e;
      }, "Raises the first failure as fastlink.Error.")
      .def("__len__", [](const PyBatchResult& r) {
        return r.outcome.perRequest ? r.outcome.statuses.size() : r.outcome.errors.size();
      })
      .def("__repr__", [](const PyBatchResult& r) {
        return "BatchResult(applied=" + std::to_string(r.outcome.applied) + ", failed=" + std::to_string(r.outcome.failed) +
               ", not_sent=" + std::to_string(r.outcome.notSent) + ")";
      });

  // Builders: the same validation as the direct calls, nothing sent. Devices the kernel only
  // takes by index (addresses, routes, masters) must be indexes here (Netlink.links.index).
  nb::class_<fastlink::LinkRequests>(m, "LinkRequests", "Link requests for a Batch.")
      .def_static("add", &fastlink::LinkRequests::add, "link"_a, "ip link add ...")
      .def_static("set", &fastlink::LinkRequests::set, "dev"_a, "changes"_a, "ip link set dev DEV ...")
      .def_static("replace", &fastlink::LinkRequests::replace, "link"_a)
      .def_static("delete", &fastlink::LinkRequests::del, "dev"_a, "ip link del dev DEV")
      .def_static("set_group", &fastlink::LinkRequests::setGroup, "group"_a, "changes"_a)
      .def_static("delete_group", &fastlink::LinkRequests::delGroup, "group"_a);
  nb::class_<fastlink::AddrRequests>(m, "AddrRequests", "Address requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::AddrRequests::add, "addr"_a)
      .def_static("replace", &fastlink::AddrRequests::replace, "addr"_a)
      .def_static("delete", &fastlink::AddrRequests::del, "addr"_a);
  nb::class_<fastlink::RouteRequests>(m, "RouteRequests", "Route requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::RouteRequests::add, "route"_a)
      .def_static("replace", &fastlink::RouteRequests::replace, "route"_a)
      .def_static("delete", &fastlink::RouteRequests::del, "route"_a)
      .def_static("append", &fastlink::RouteRequests::append, "route"_a)
      .def_static("change", &fastlink::RouteRequests::change, "route"_a);
  nb::class_<fastlink::NeighRequests>(m, "NeighRequests", "Neighbour requests for a Batch (dev as ifindex).")
      .def_static("add", &fastlink::NeighRequests::add, "neigh"_a)
      .def_static("replace", &fastlink::NeighRequests::replace, "neigh"_a)
      .def_static("delete", &fastlink::NeighRequests::del, "neigh"_a);
  nb::class_<fastlink::RuleRequests>(m, "RuleRequests", "Rule requests for a Batch.")
      .def_static("add", &fastlink::RuleRequests::add, "rule"_a)
      .def_static("delete", &fastlink::RuleRequests::del, "rule"_a);
}

nb::class_<PyNetlink> bindNetlink(nb::module_& m) {
  nb::class_<PyLinks>(m, "Links", "Network devices (`ip link`): Netlink.links.")
      .def("add", [](PyLinks& s, const fastlink::LinkInfo& l) { unlocked([&] { s.api().add(l); }); }, "link"_a,
           "ip link add NAME [type KIND] ... (fastlink.Error EEXIST if it exists)")
      .def("set", [](PyLinks& s, const Ifref& dev, const fastlink::LinkInfo& c) { unlocked([&] { s.api().set(dev, c); }); },
           "dev"_a, "changes"_a, "ip link set dev DEV ... (only the fields set in changes are sent)")
      .def("replace", [](PyLinks& s, const fastlink::LinkInfo& l) { unlocked([&] { s.api().replace(l); }); }, "link"_a)
      .def("delete", [](PyLinks& s, const Ifref& dev) { unlocked([&] { s.api().del(dev); }); }, "dev"_a,
           "ip link del dev DEV")
      .def("get", [](PyLinks& s, const Ifref& dev, bool stats) { return unlocked([&] { return s.api().get(dev, stats); }); },
           "dev"_a, "stats"_a = false, "ip -d link show dev DEV (fastlink.Error ENODEV if missing)")
      .def("find", [](PyLinks& s, const Ifref& dev, bool stats) { return unlocked([&] { return s.api().find(dev, stats); }); },
           "dev"_a, "stats"_a = false, "like get, None when the device does not exist")
      .def(
          "list",
          [](PyLinks& s, std::optional<std::string> kind, std::optional<Ifref> master, std::optional<uint32_t> group,
             std::optional<std::string> name, bool stats) {
            fastlink::LinkFilter filter;
            filter.kind = std::move(kind);
            filter.master = std::move(master);
            filter.group = group;
            filter.namePattern = std::move(name);
            filter.withStats = stats;
            return unlocked([&] { return s.api().list(filter); });
          },
          "kind"_a = nb::none(), "master"_a = nb::none(), "group"_a = nb::none(), "name"_a = nb::none(),
          "stats"_a = false,
          "ip -d link show [type KIND] [master M] [group G]: kind and master filtered in the kernel; "
          "name is a shell glob ('veth*')")
      .def("set_group", [](PyLinks& s, uint32_t g, const fastlink::LinkInfo& c) { unlocked([&] { s.api().setGroup(g, c); }); },
           "group"_a, "changes"_a, "ip link set group G ... (one request for the whole group)")
      .def("delete_group", [](PyLinks& s, uint32_t g) { unlocked([&] { s.api().delGroup(g); }); }, "group"_a)
      .def("index", [](PyLinks& s, const Ifref& dev) { return unlocked([&] { return s.api().indexOf(dev); }); }, "dev"_a,
           "the ifindex of a device (fastlink.Error ENODEV if missing)");

  nb::class_<PyAddresses>(m, "Addresses", "Interface addresses (`ip addr`): Netlink.addresses.")
      .def("add", [](PyAddresses& s, const fastlink::AddrInfo& a) { unlocked([&] { s.api().add(a); }); }, "addr"_a,
           "ip addr add ADDR/LEN dev D ...")
      .def("replace", [](PyAddresses& s, const fastlink::AddrInfo& a) { unlocked([&] { s.api().replace(a); }); }, "addr"_a)
      .def("delete", [](PyAddresses& s, const fastlink::AddrInfo& a) { unlocked([&] { s.api().del(a); }); }, "addr"_a)
      .def(
          "list",
          [](PyAddresses& s, std::optional<Ifref> dev, std::optional<int> family) {
            fastlink::AddrFilter filter;
            filter.dev = std::move(dev);
            filter.family = familyOf(family);
            return unlocked([&] { return s.api().list(filter); });
          },
          "dev"_a = nb::none(), "family"_a = nb::none(), "ip addr show [dev D] [-4|-6]")
      .def(
          "flush",
          [](PyAddresses& s, std::optional<Ifref> dev, std::optional<int> family) {
            fastlink::AddrFilter filter;
            filter.dev = std::move(dev);
            filter.family = familyOf(family);
            return unlocked([&] { return s.api().flush(filter); });
          },
          "dev"_a = nb::none(), "family"_a = nb::none(), "ip addr flush dev D: returns how many were deleted");

  auto routeFilter = [](std::optional<uint32_t> table, std::optional<int> family, std::optional<uint8_t> protocol,
                        std::optional<Ifref> dev) {
    fastlink::RouteFilter filter;
    filter.table = table;
    filter.family = familyOf(family);
    if (protocol) filter.protocol = static_cast<fastlink::RouteProtocol>(*protocol);
    filter.dev = std::move(dev);
    return filter;
  };
  nb::class_<PyRoutes>(m, "Routes", "Routes (`ip route`): Netlink.routes.")
      .def("add", [](PyRoutes& s, const fastlink::RouteInfo& r) { unlocked([&] { s.api().add(r); }); }, "route"_a,
           "ip route add PREFIX ... (fastlink.Error EEXIST if it exists)")
      .def("replace", [](PyRoutes& s, const fastlink::RouteInfo& r) { unlocked([&] { s.api().replace(r); }); }, "route"_a)
      .def("append", [](PyRoutes& s, const fastlink::RouteInfo& r) { unlocked([&] { s.api().append(r); }); }, "route"_a)
      .def("change", [](PyRoutes& s, const fastlink::RouteInfo& r) { unlocked([&] { s.api().change(r); }); }, "route"_a)
      .def("delete", [](PyRoutes& s, const fastlink::RouteInfo& r) { unlocked([&] { s.api().del(r); }); }, "route"_a)
      .def(
          "get",
          [](PyRoutes& s, const std::string& dst, std::optional<std::string> source, std::optional<Ifref> oif) {
            fastlink::RouteQuery query(fastlink::IpAddress::parse(dst));
            if (source) query.setFrom(fastlink::IpAddress::parse(*source));
            if (oif) query.setOif(*oif);
            return unlocked([&] { return s.api().get(query); });
          },
          "dst"_a, "source"_a = nb::none(), "oif"_a = nb::none(), "ip route get ADDR [from A] [oif D]")
      .def(
          "list",
          [routeFilter](PyRoutes& s, std::optional<uint32_t> table, std::optional<int> family,
                        std::optional<uint8_t> protocol, std::optional<Ifref> dev) {
            auto filter = routeFilter(table, family, protocol, std::move(dev));
            return unlocked([&] { return s.api().list(filter); });
          },
          "table"_a = nb::none(), "family"_a = nb::none(), "protocol"_a = nb::none(), "dev"_a = nb::none(),
          "ip route show [table T] [proto P] [dev D]; every table unless one is named")
      .def(
          "flush",
          [routeFilter](PyRoutes& s, std::optional<uint32_t> table, std::optional<int> family,
                        std::optional<uint8_t> protocol, std::optional<Ifref> dev) {
            auto filter = routeFilter(table, family, protocol, std::move(dev));
            return unlocked([&] { return s.api().flush(filter); });
          },
          "table"_a = nb::none(), "family"_a = nb::none(), "protocol"_a = nb::none(), "dev"_a = nb::none(),
          "ip route flush ...: returns how many were deleted");

  nb::class_<PyNeighbours>(m, "Neighbours", "Neighbour entries (`ip neigh`): Netlink.neighbours.")
      .def("add", [](PyNeighbours& s, const fastlink::NeighInfo& n) { unlocked([&] { s.api().add(n); }); }, "neigh"_a)
      .def("replace", [](PyNeighbours& s, const fastlink::NeighInfo& n) { unlocked([&] { s.api().replace(n); }); }, "neigh"_a)
      .def("delete", [](PyNeighbours& s, const fastlink::NeighInfo& n) { unlocked([&] { s.api().del(n); }); }, "neigh"_a)
      .def(
          "list",
          [](PyNeighbours& s, std::optional<Ifref> dev, std::optional<int> family) {
            fastlink::NeighFilter filter;
            filter.dev = std::move(dev);
            filter.family = familyOf(family);
            return unlocked([&] { return s.api().list(filter); });
          },
          "dev"_a = nb::none(), "family"_a = nb::none(), "ip neigh show [dev D] [-4|-6]");

  nb::class_<PyRules>(m, "Rules", "Policy routing rules (`ip rule`): Netlink.rules.")
      .def("add", [](PyRules& s, const fastlink::RuleInfo& r) { unlocked([&] { s.api().add(r); }); }, "rule"_a,
           "ip rule add [pref N] [from P] [to P] ... [lookup TABLE | goto N | blackhole ...]")
      .def("delete", [](PyRules& s, const fastlink::RuleInfo& r) { unlocked([&] { s.api().del(r); }); }, "rule"_a,
           "ip rule del ... (the first rule matching every field set)")
      .def(
          "list",
          [](PyRules& s, std::optional<int> family, std::optional<uint32_t> table, std::optional<uint32_t> priority) {
            fastlink::RuleFilter filter;
            filter.family = familyOf(family);
            filter.table = table;
            filter.priority = priority;
            return unlocked([&] { return s.api().list(filter); });
          },
          "family"_a = nb::none(), "table"_a = nb::none(), "priority"_a = nb::none(),
          "ip rule show [table T] [pref N]; IPv4 and IPv6 unless a family is named");

  nb::class_<PyNetlink> cls(m, "Netlink",
                        "The netlink sockets of one network namespace and the APIs over them. Use it as a "
                        "context manager (`with fastlink.Netlink(netns='blue') as nl:`). Not thread-safe: "
                        "one Netlink per thread.");
  cls.def(
          "__init__",
          [](PyNetlink* self, std::optional<nb::object> netns) {
            fastlink::NetlinkOptions options;
            if (netns) options.netns = netnsOf(*netns);
            new (self) PyNetlink{unlocked([&] { return std::optional<fastlink::Netlink>(std::in_place, options); })};
          },
          "netns"_a = nb::none(),
          "netns: a name under /run/netns (like `ip -n NAME`), a path ('/proc/PID/ns/net') or an open fd; "
          "default: the caller's namespace")
      .def(
          "run",
          [](PyNetlink& n, PyBatch& batch, const std::string& onError, std::size_t window) {
            auto options = batchOptions(onError, window);
            fastlink::Netlink& netlink = n.get();
            ++batch.running;
            struct Done {
              PyBatch& batch;
              ~Done() { --batch.running; }
            } done{batch};
            return PyBatchResult{unlocked([&] { return runBatch(netlink, batch, options); }), {}};
          },
          "batch"_a, "on_error"_a = "stop", "window"_a = 0,
          "Sends the batch pipelined; returns per-request results (never raises for a failed request: "
          "see BatchResult.raise_for_error). on_error='stop' stops at the first failure like `ip -batch`: "
          "nothing after it stays applied (adds are pipelined and what the kernel applied behind the "
          "failure is deleted again); with window=N, N requests are in flight and those sent with the "
          "failure may stay applied (their results say so). 'continue' sends everything.")
      .def(
          "run",
          [](PyNetlink& n, nb::iterable requests, const std::string& onError, std::size_t window) {
            auto options = batchOptions(onError, window);
            fastlink::Netlink& netlink = n.get();
            return PyBatchResult{runStreamed(netlink, requests, options), {}};
          },
          "requests"_a, "on_error"_a = "stop", "window"_a = 0,
          "Streamed: requests is any iterable of Request (a generator), each encoded and sent as it "
          "comes, so memory stays constant however many there are. The result has the totals; its "
          "results list holds only the failed requests (their errors carry batch_index).")
      .def("execute", [](PyNetlink& n, const fastlink::Request& r) {
        fastlink::Netlink& netlink = n.get();
        unlocked([&] { netlink.execute(r); });
      }, "request"_a, "Sends one request and waits for its ACK.")
      .def("close", [](PyNetlink& n) { n.netlink.reset(); }, "Closes the sockets (also done by `with`).")
      .def_prop_ro("closed", [](PyNetlink& n) { return !n.netlink.has_value(); })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyNetlink& n, nb::handle, nb::handle, nb::handle) { n.netlink.reset(); return false; },
           "exc_type"_a.none(), "exc"_a.none(), "traceback"_a.none());
  addApi<PyLinks>(cls, "links");
  addApi<PyAddresses>(cls, "addresses");
  addApi<PyRoutes>(cls, "routes");
  addApi<PyNeighbours>(cls, "neighbours");
  addApi<PyRules>(cls, "rules");
  return cls;
}

}  // namespace fastlink::python
