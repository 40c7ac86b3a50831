// fastlink._fastlink: the nanobind binding of the fastlink library (docs/python.md).
//
// It binds the C++ API as it is (Netlink, the object APIs, the request builders, batches): no
// netlink is encoded or decoded here. What it adds is the Python surface:
//   - the Info objects as plain classes with keyword construction (LinkInfo(name="v0", mtu=1400));
//     addresses, prefixes and MACs are strings, parsed when assigned, so bad input raises there,
//     long before anything is sent;
//   - fastlink.Error, an OSError subclass carrying errno, extack, operation and batch_index;
//   - the GIL released while a call waits for the kernel (Unlocked below).
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fastlink/addr.hpp"
#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "fastlink/types.hpp"

namespace nb = nanobind;
using namespace nb::literals;

// ---- Ifref: a device is a name (str) or an ifindex (int) -------------------------------------
namespace nanobind::detail {
template <>
struct type_caster<fastlink::Ifref> {
  using Value = fastlink::Ifref;
  static constexpr auto Name = const_name("str | int");
  template <typename T_>
  using Cast = movable_cast_t<T_>;
  template <typename T_>
  static constexpr bool can_cast() { return true; }
  explicit operator Value*() { return &value; }
  explicit operator Value&() { return value; }
  explicit operator Value&&() { return std::move(value); }
  Value value{0u};

  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    if (PyUnicode_Check(src.ptr())) {
      Py_ssize_t size = 0;
      const char* text = PyUnicode_AsUTF8AndSize(src.ptr(), &size);
      if (!text) {
        PyErr_Clear();
        return false;
      }
      value = fastlink::Ifref(std::string(text, static_cast<std::size_t>(size)));
      return true;
    }
    if (PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
      unsigned long long index = PyLong_AsUnsignedLongLong(src.ptr());
      if (PyErr_Occurred() || index > 0xffffffffull) {
        PyErr_Clear();
        return false;
      }
      value = fastlink::Ifref(static_cast<uint32_t>(index));
      return true;
    }
    return false;
  }
  static handle from_cpp(const Value& ref, rv_policy, cleanup_list*) noexcept {
    if (ref.isName()) return PyUnicode_FromStringAndSize(ref.name().data(), static_cast<Py_ssize_t>(ref.name().size()));
    return PyLong_FromUnsignedLong(ref.index());
  }
  template <typename T_, enable_if_t<std::is_same_v<std::remove_cv_t<T_>, Value>> = 0>
  static handle from_cpp(T_* p, rv_policy policy, cleanup_list* list) noexcept {
    if (!p) return none().release();
    return from_cpp(*p, policy, list);
  }
};
}  // namespace nanobind::detail

namespace {

using fastlink::Ifref;

// ---- fastlink.Error ----------------------------------------------------------------------------

PyObject* g_errorType = nullptr;

/// The errno a fastlink error stands for: its own value for errno codes, the nearest errno for
/// fastlink's own conditions (an interrupted dump is retryable: EAGAIN).
int errnoOf(const std::error_code& code) {
  if (code.category() == std::generic_category() || code.category() == std::system_category()) return code.value();
  switch (static_cast<fastlink::Errc>(code.value())) {
    case fastlink::Errc::dump_interrupted: return EAGAIN;
    case fastlink::Errc::truncated_reply: return EMSGSIZE;
    case fastlink::Errc::receive_overflow: return ENOBUFS;
    case fastlink::Errc::malformed_reply: return EBADMSG;
    case fastlink::Errc::not_sent: return ECANCELED;
  }
  return EIO;
}

template <class T>
nb::object optionalToPython(const std::optional<T>& value) {
  return value ? nb::cast(*value) : nb::none();
}

/// A fastlink.Error instance (not raised): OSError(errno, what()) plus the fastlink fields.
nb::object makeError(const fastlink::Error& error) {
  nb::object instance = nb::handle(g_errorType)(errnoOf(error.code()), error.what());
  instance.attr("extack") = error.extack();
  instance.attr("extack_offset") = optionalToPython(error.extackOffset());
  instance.attr("operation") = error.operation();
  instance.attr("batch_index") = optionalToPython(error.batchIndex());
  instance.attr("reason") = error.reason();
  return instance;
}

void translateErrors(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const fastlink::Error& error) {
    nb::object instance = makeError(error);
    PyErr_SetObject(g_errorType, instance.ptr());
  }
}

// ---- helpers -----------------------------------------------------------------------------------

/// Runs `call` with the GIL released: other Python threads run while we wait for the kernel.
/// Only C++ values may be touched inside; results are converted after the GIL is back.
template <class Call>
auto unlocked(Call&& call) {
  nb::gil_scoped_release release;
  return call();
}

fastlink::Netns netnsOf(const nb::handle& where) {
  if (PyLong_Check(where.ptr())) return fastlink::Netns::fd(nb::cast<int>(where));
  if (!PyUnicode_Check(where.ptr())) throw nb::type_error("netns must be a name (str), a path (str starting with '/') or an fd (int)");
  std::string text = nb::cast<std::string>(where);
  if (text.empty()) throw nb::value_error("netns: empty name");
  return text.front() == '/' ? fastlink::Netns::path(text) : fastlink::Netns::named(text);
}

std::optional<fastlink::IpAddress::Family> familyOf(std::optional<int> family) {
  if (!family) return std::nullopt;
  if (*family == 4) return fastlink::IpAddress::Family::v4;
  if (*family == 6) return fastlink::IpAddress::Family::v6;
  throw nb::value_error("family must be 4, 6 or None");
}

std::optional<int> familyNumber(std::optional<fastlink::IpAddress::Family> family) {
  if (!family) return std::nullopt;
  return *family == fastlink::IpAddress::Family::v4 ? 4 : 6;
}

/// A rule's action as iproute2's word ("lookup", "goto", "nop", "blackhole", ...).
std::optional<fastlink::RuleAction> ruleActionParsed(const std::optional<std::string>& word) {
  if (!word) return std::nullopt;
  for (auto action : {fastlink::RuleAction::ToTable, fastlink::RuleAction::Goto, fastlink::RuleAction::Nop,
                      fastlink::RuleAction::Blackhole, fastlink::RuleAction::Unreachable, fastlink::RuleAction::Prohibit})
    if (fastlink::ruleActionName(action) == *word) return action;
  throw fastlink::Error::invalidArgument("rule", "unknown action '" + *word +
                                         "' (lookup, goto, nop, blackhole, unreachable, prohibit)");
}

// Text <-> value for the fields Python sees as strings. Parsing throws fastlink::Error (EINVAL)
// with the library's own message ("bad IP address '10.0.0.300'").
template <class V>
std::optional<std::string> textOf(const std::optional<V>& value) {
  return value ? std::optional(value->toString()) : std::nullopt;
}
template <class V>
std::optional<V> parsed(const std::optional<std::string>& text) {
  return text ? std::optional(V::parse(*text)) : std::nullopt;
}
std::optional<std::string> scopeText(const std::optional<fastlink::Scope>& s) {
  return s ? std::optional(fastlink::scopeName(*s)) : std::nullopt;
}
std::optional<fastlink::Scope> scopeParsed(const std::optional<std::string>& t) {
  return t ? std::optional(fastlink::parseScope(*t)) : std::nullopt;
}

/// Binds the fields of an Info type and gives it keyword construction and a readable repr:
///   LinkInfo(name="v0", mtu=1400)   ->   LinkInfo(name='v0', mtu=1400)
/// Each field is declared once: the attribute and the keyword use the same setter.
template <class T>
class Fields {
 public:
  Fields(nb::module_& m, const char* name, const char* doc) : cls_(m, name, doc), table_(std::make_shared<Table>()) {
    table_->typeName = name;
  }
  nb::class_<T>& cls() { return cls_; }

  /// A plain field (numbers, bools, str, Ifref, nested Info objects, lists of them).
  template <class M>
  Fields& rw(const char* name, M T::*member, const char* doc = "") {
    cls_.def_rw(name, member, doc);
    table_->add(name, [member](T& t, nb::handle v) { t.*member = nb::cast<M>(v); });
    return *this;
  }
  /// A read-only field (reported by the kernel, never sent).
  template <class M>
  Fields& ro(const char* name, M T::*member, const char* doc = "") {
    cls_.def_ro(name, member, doc);
    table_->names.push_back(name);
    return *this;
  }
  /// A field with its own conversion (text <-> address, prefix, scope, ...).
  template <class V, class Get, class Set>
  Fields& prop(const char* name, Get get, Set set, const char* doc = "") {
    cls_.def_prop_rw(name, get, set, doc);
    table_->add(name, [set](T& t, nb::handle v) { set(t, nb::cast<V>(v)); });
    return *this;
  }
  /// An address-like field stored as std::optional<V> (V::parse / toString), seen as str | None.
  template <class V>
  Fields& text(const char* name, std::optional<V> T::*member, const char* doc = "") {
    return prop<std::optional<std::string>>(
        name, [member](const T& t) { return textOf(t.*member); },
        [member](T& t, std::optional<std::string> v) { t.*member = parsed<V>(v); }, doc);
  }

  /// Ends the binding: keyword __init__ and __repr__.
  void done() {
    auto table = table_;
    cls_.def(
        "__init__",
        [table](T* self, nb::kwargs kwargs) {
          T value;
          for (auto [key, item] : kwargs) {
            std::string field = nb::cast<std::string>(key);
            auto setter = table->setters.find(field);
            if (setter == table->setters.end())
              throw nb::type_error((table->typeName + "() has no field '" + field + "'").c_str());
            try {
              setter->second(value, item);
            } catch (const std::bad_cast&) {
              std::string got = nb::cast<std::string>(nb::str(item.type().attr("__name__")));
              throw nb::type_error((table->typeName + "(" + field + "=...): wrong type " + got).c_str());
            }
          }
          new (self) T(std::move(value));
        },
        "Keyword construction: every field is optional, an unset field (None) is never sent.");
    cls_.def("__repr__", [table](nb::handle self) {
      std::string out = table->typeName + "(";
      bool first = true;
      for (const auto& name : table->names) {
        nb::object value = self.attr(name.c_str());
        if (value.is_none()) continue;
        if (nb::isinstance<nb::list>(value) && nb::len(value) == 0) continue;
        out += (first ? "" : ", ") + name + "=" + nb::cast<std::string>(nb::repr(value));
        first = false;
      }
      return out + ")";
    });
    cls_.def("__eq__", [table](nb::handle a, nb::handle b) {
      if (!a.type().is(b.type())) return false;
      for (const auto& name : table->names)
        if (!a.attr(name.c_str()).equal(b.attr(name.c_str()))) return false;
      return true;
    });
  }

 private:
  struct Table {
    std::string typeName;
    std::vector<std::string> names;
    std::map<std::string, std::function<void(T&, nb::handle)>> setters;
    void add(const char* name, std::function<void(T&, nb::handle)> setter) {
      names.push_back(name);
      setters.emplace(name, std::move(setter));
    }
  };
  nb::class_<T> cls_;
  std::shared_ptr<Table> table_;
};

// ---- Netlink and the object APIs ---------------------------------------------------------------

/// fastlink.Netlink: the sockets of one namespace. A context manager: leaving the `with` block
/// closes them; a closed Netlink raises ValueError.
struct PyNetlink {
  std::optional<fastlink::Netlink> netlink;

  fastlink::Netlink& get() {
    if (!netlink) throw nb::value_error("this fastlink.Netlink is closed");
    return *netlink;
  }
};

// Each API object is a view of its Netlink (kept alive by it).
struct PyLinks { PyNetlink* owner; fastlink::LinkApi& api() { return owner->get().links(); } };
struct PyAddresses { PyNetlink* owner; fastlink::AddrApi& api() { return owner->get().addresses(); } };
struct PyRoutes { PyNetlink* owner; fastlink::RouteApi& api() { return owner->get().routes(); } };
struct PyNeighbours { PyNetlink* owner; fastlink::NeighApi& api() { return owner->get().neighbours(); } };
struct PyRules { PyNetlink* owner; fastlink::RuleApi& api() { return owner->get().rules(); } };

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

/// Netlink::run over a Python iterable: the C++ batch pulls one request at a time (taking the
/// GIL only for that), and results are kept only for failures. An exception raised by the
/// iterable ends the stream and is raised again once the batch has stopped.
fastlink::BatchResult runStreamed(fastlink::Netlink& netlink, nb::handle requests, const fastlink::BatchOptions& options) {
  nb::object iterator = nb::steal(PyObject_GetIter(requests.ptr()));
  if (!iterator.is_valid()) throw nb::python_error();
  nb::object pending;  // the exception the iterable raised, raised again after the run
  std::vector<fastlink::RequestResult> failures;
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
  fastlink::ResultSink sink = [&](std::size_t, const fastlink::RequestResult& result) {
    if (result.status != fastlink::RequestStatus::Applied) failures.push_back(result);
  };
  fastlink::BatchResult result = unlocked([&] { return netlink.run(source, options, sink); });
  result.results = std::move(failures);
  if (pending.is_valid()) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(pending.ptr())), pending.ptr());
    throw nb::python_error();
  }
  return result;
}

// ---- bindings, one function per area -----------------------------------------------------------

void bindLinkTypes(nb::module_& m) {
  nb::class_<fastlink::LinkStats>(m, "LinkStats", "Interface counters (64-bit).")
      .def_ro("rx_packets", &fastlink::LinkStats::rxPackets)
      .def_ro("tx_packets", &fastlink::LinkStats::txPackets)
      .def_ro("rx_bytes", &fastlink::LinkStats::rxBytes)
      .def_ro("tx_bytes", &fastlink::LinkStats::txBytes)
      .def_ro("rx_errors", &fastlink::LinkStats::rxErrors)
      .def_ro("tx_errors", &fastlink::LinkStats::txErrors)
      .def_ro("rx_dropped", &fastlink::LinkStats::rxDropped)
      .def_ro("tx_dropped", &fastlink::LinkStats::txDropped)
      .def_ro("multicast", &fastlink::LinkStats::multicast)
      .def_ro("collisions", &fastlink::LinkStats::collisions);

  using fastlink::VethInfo;
  Fields<VethInfo> veth(m, "VethInfo", "veth options: `ip link add NAME type veth peer name P [netns N]`.");
  veth.rw("peer_name", &VethInfo::peerName)
      .prop<std::optional<nb::object>>(
          "peer_netns", [](const VethInfo& v) { return v.peerNetns ? std::optional(v.peerNetns->toString()) : std::nullopt; },
          [](VethInfo& v, std::optional<nb::object> where) {
            v.peerNetns = where ? std::optional(netnsOf(*where)) : std::nullopt;
          },
          "Create the peer in this namespace: a name, a path or an fd.")
      .text("peer_address", &VethInfo::peerAddress)
      .done();

  using fastlink::BridgeInfo;
  Fields<BridgeInfo> bridge(m, "BridgeInfo", "bridge options: `ip link add NAME type bridge ...` (times in centiseconds).");
  bridge.rw("vlan_filtering", &BridgeInfo::vlanFiltering)
      .rw("vlan_default_pvid", &BridgeInfo::vlanDefaultPvid)
      .rw("stp_state", &BridgeInfo::stpState)
      .rw("ageing_time", &BridgeInfo::ageingTime)
      .rw("forward_delay", &BridgeInfo::forwardDelay)
      .rw("hello_time", &BridgeInfo::helloTime)
      .rw("max_age", &BridgeInfo::maxAge)
      .rw("priority", &BridgeInfo::priority)
      .rw("mcast_snooping", &BridgeInfo::mcastSnooping)
      .done();

  using fastlink::VxlanInfo;
  Fields<VxlanInfo> vxlan(m, "VxlanInfo", "vxlan options: `ip link add NAME type vxlan id N ...`.");
  vxlan.rw("vni", &VxlanInfo::vni)
      .text("local", &VxlanInfo::local)
      .text("remote", &VxlanInfo::remote)
      .rw("dst_port", &VxlanInfo::dstPort)
      .rw("dev", &VxlanInfo::dev)
      .rw("learning", &VxlanInfo::learning)
      .rw("ttl", &VxlanInfo::ttl)
      .done();

  using fastlink::VlanInfo;
  Fields<VlanInfo> vlan(m, "VlanInfo", "vlan options: `ip link add NAME link PARENT type vlan id N`.");
  vlan.rw("id", &VlanInfo::id).done();

  using fastlink::VrfInfo;
  Fields<VrfInfo> vrf(m, "VrfInfo", "vrf options: `ip link add NAME type vrf table N`.");
  vrf.rw("table", &VrfInfo::table).done();

  using fastlink::LinkInfo;
  Fields<LinkInfo> link(m, "LinkInfo",
                        "A network device. Every field is optional: an unset field (None) is never sent, "
                        "a field the kernel did not report stays None.");
  link.rw("name", &LinkInfo::name)
      .rw("index", &LinkInfo::index)
      .rw("kind", &LinkInfo::kind, "'veth', 'bridge', ...")
      .rw("mtu", &LinkInfo::mtu)
      .text("address", &LinkInfo::address, "MAC address 'aa:bb:cc:dd:ee:ff'")
      .rw("group", &LinkInfo::group)
      .rw("master", &LinkInfo::master, "reported as an ifindex; set by name or index; 0 = no master")
      .rw("admin", &LinkInfo::admin, "administratively up (`ip link set up`)")
      .rw("txqlen", &LinkInfo::txqlen)
      .rw("alias", &LinkInfo::alias)
      .rw("num_tx_queues", &LinkInfo::numTxQueues)
      .rw("num_rx_queues", &LinkInfo::numRxQueues)
      .rw("parent", &LinkInfo::parent, "`link DEV`: the lower device (vlan, macvlan, ...)")
      .prop<std::optional<nb::object>>(
          "netns", [](const LinkInfo& l) { return l.netns ? std::optional(l.netns->toString()) : std::nullopt; },
          [](LinkInfo& l, std::optional<nb::object> where) { l.netns = where ? std::optional(netnsOf(*where)) : std::nullopt; },
          "move the device to this namespace (`netns NAME`): a name, a path or an fd")
      .rw("veth", &LinkInfo::veth)
      .rw("bridge", &LinkInfo::bridge)
      .rw("vxlan", &LinkInfo::vxlan)
      .rw("vlan", &LinkInfo::vlan)
      .rw("vrf", &LinkInfo::vrf)
      .ro("master_name", &LinkInfo::masterName, "the master's name (reported)")
      .ro("flags", &LinkInfo::flags, "IFF_* bits (reported)")
      .ro("oper_state", &LinkInfo::operState, "'UP', 'DOWN', 'UNKNOWN', ... (reported)")
      .ro("carrier", &LinkInfo::carrier)
      .ro("min_mtu", &LinkInfo::minMtu)
      .ro("max_mtu", &LinkInfo::maxMtu)
      .ro("qdisc", &LinkInfo::qdisc)
      .ro("slave_kind", &LinkInfo::slaveKind, "kind of the master when enslaved ('bridge')")
      .ro("stats", &LinkInfo::stats, "counters, when asked for (stats=True)")
      .done();
  link.cls()
      .def_prop_ro("is_up", &LinkInfo::isUp, "IFF_UP")
      .def_prop_ro("is_running", &LinkInfo::isRunning, "IFF_RUNNING");
}

void bindAddrRouteNeighTypes(nb::module_& m) {
  using fastlink::AddrInfo;
  Fields<AddrInfo> addr(m, "AddrInfo", "An interface address (`ip addr`).");
  addr.text("address", &AddrInfo::address, "'10.0.0.1/24'")
      .rw("dev", &AddrInfo::dev, "required to add/delete; reported as an ifindex")
      .text("peer", &AddrInfo::peer)
      .text("broadcast", &AddrInfo::broadcast)
      .rw("label", &AddrInfo::label)
      .prop<std::optional<std::string>>(
          "scope", [](const AddrInfo& a) { return scopeText(a.scope); },
          [](AddrInfo& a, std::optional<std::string> v) { a.scope = scopeParsed(v); }, "'global', 'link', 'host', ...")
      .rw("flags", &AddrInfo::flags, "IFA_F_* bits")
      .rw("valid_lifetime", &AddrInfo::validLifetime, "seconds; 0xffffffff = forever")
      .rw("preferred_lifetime", &AddrInfo::preferredLifetime)
      .rw("metric", &AddrInfo::metric)
      .done();

  using fastlink::RoutePath;
  Fields<RoutePath> path(m, "RoutePath", "One path of a multipath route: `nexthop via GW dev D weight W`.");
  path.text("gateway", &RoutePath::gateway)
      .rw("dev", &RoutePath::dev)
      .rw("weight", &RoutePath::weight)
      .rw("onlink", &RoutePath::onlink)
      .done();

  using fastlink::RouteMetrics;
  Fields<RouteMetrics> metrics(m, "RouteMetrics", "Route metrics: `ip route add ... mtu N advmss N`.");
  metrics.rw("mtu", &RouteMetrics::mtu)
      .rw("advmss", &RouteMetrics::advmss)
      .rw("window", &RouteMetrics::window)
      .rw("hoplimit", &RouteMetrics::hoplimit)
      .rw("initcwnd", &RouteMetrics::initcwnd)
      .rw("initrwnd", &RouteMetrics::initrwnd)
      .done();

  using fastlink::RouteInfo;
  Fields<RouteInfo> route(m, "RouteInfo", "A route (`ip route`). dst is required to add or delete one.");
  route.text("dst", &RouteInfo::dst, "'10.1.0.0/16', 'default' is '0.0.0.0/0'")
      .rw("table", &RouteInfo::table, "default: main (254)")
      .prop<std::optional<std::string>>(
          "type", [](const RouteInfo& r) { return r.type ? std::optional(fastlink::routeTypeName(*r.type)) : std::nullopt; },
          [](RouteInfo& r, std::optional<std::string> v) {
            r.type = v ? std::optional(fastlink::parseRouteType(*v)) : std::nullopt;
          },
          "'unicast', 'blackhole', 'unreachable', 'local', ...")
      .prop<std::optional<uint8_t>>(
          "protocol",
          [](const RouteInfo& r) { return r.protocol ? std::optional(static_cast<uint8_t>(*r.protocol)) : std::nullopt; },
          [](RouteInfo& r, std::optional<uint8_t> v) {
            r.protocol = v ? std::optional(static_cast<fastlink::RouteProtocol>(*v)) : std::nullopt;
          },
          "who installed it, 0-255 (4 static, 186 bgp, ...)")
      .prop<std::optional<std::string>>(
          "scope", [](const RouteInfo& r) { return scopeText(r.scope); },
          [](RouteInfo& r, std::optional<std::string> v) { r.scope = scopeParsed(v); })
      .text("gateway", &RouteInfo::gateway)
      .rw("dev", &RouteInfo::dev)
      .rw("metric", &RouteInfo::metric)
      .text("prefsrc", &RouteInfo::prefsrc)
      .rw("tos", &RouteInfo::tos)
      .rw("nhid", &RouteInfo::nhid)
      .rw("metrics", &RouteInfo::metrics)
      .rw("paths", &RouteInfo::paths, "multipath: set instead of gateway/dev")
      .rw("onlink", &RouteInfo::onlink)
      .done();

  using fastlink::NeighInfo;
  Fields<NeighInfo> neigh(m, "NeighInfo", "A neighbour (ARP/NDP) entry (`ip neigh`).");
  neigh.text("dst", &NeighInfo::dst)
      .rw("dev", &NeighInfo::dev)
      .text("lladdr", &NeighInfo::lladdr)
      .prop<std::optional<std::string>>(
          "state",
          [](const NeighInfo& n) { return n.state ? std::optional(fastlink::neighStateName(*n.state)) : std::nullopt; },
          [](NeighInfo& n, std::optional<std::string> v) {
            n.state = v ? std::optional(fastlink::parseNeighState(*v)) : std::nullopt;
          },
          "'PERMANENT', 'REACHABLE', 'STALE', ... (iproute2's words)")
      .rw("router", &NeighInfo::router)
      .rw("proxy", &NeighInfo::proxy)
      .rw("extern_learn", &NeighInfo::externLearn)
      .rw("protocol", &NeighInfo::protocol)
      .done();

  using fastlink::RuleInfo;
  Fields<RuleInfo> rule(m, "RuleInfo", "A policy routing rule (`ip rule`).");
  rule.prop<std::optional<int>>(
          "family", [](const RuleInfo& r) { return familyNumber(r.family); },
          [](RuleInfo& r, std::optional<int> v) { r.family = familyOf(v); }, "4 or 6; taken from src/dst when unset")
      .rw("priority", &RuleInfo::priority, "`pref N`")
      .text("src", &RuleInfo::src, "`from PREFIX`")
      .text("dst", &RuleInfo::dst, "`to PREFIX`")
      .rw("iif", &RuleInfo::iif)
      .rw("oif", &RuleInfo::oif)
      .rw("fwmark", &RuleInfo::fwmark)
      .rw("fwmask", &RuleInfo::fwmask)
      .rw("tos", &RuleInfo::tos)
      .rw("table", &RuleInfo::table, "`lookup TABLE` (main when no action is given)")
      .prop<std::optional<std::string>>(
          "action", [](const RuleInfo& r) { return r.action ? std::optional(fastlink::ruleActionName(*r.action)) : std::nullopt; },
          [](RuleInfo& r, std::optional<std::string> v) { r.action = ruleActionParsed(v); },
          "'lookup', 'goto', 'nop', 'blackhole', 'unreachable', 'prohibit'")
      .rw("goto_target", &RuleInfo::gotoTarget, "`goto PRIORITY`")
      .rw("l3mdev", &RuleInfo::l3mdev)
      .rw("ip_proto", &RuleInfo::ipProto)
      .rw("invert", &RuleInfo::invert, "`not`")
      .rw("protocol", &RuleInfo::protocol)
      .done();
}

void bindRequests(nb::module_& m) {
  nb::class_<fastlink::Request>(m, "Request", "One encoded request, for a Batch (built by LinkRequests & co).")
      .def_prop_ro("operation", &fastlink::Request::operation, "what it does, in iproute2 words")
      .def("__repr__", [](const fastlink::Request& r) { return "<fastlink.Request " + r.operation() + ">"; });

  nb::class_<fastlink::Batch>(m, "Batch", "Requests sent pipelined by Netlink.run(batch).")
      .def(nb::init<>())
      .def("add", [](fastlink::Batch& b, fastlink::Request r) { b.add(std::move(r)); }, "request"_a)
      .def("clear", &fastlink::Batch::clear)
      .def("__len__", &fastlink::Batch::size);

  nb::class_<fastlink::RequestResult>(m, "RequestResult", "The outcome of one request of a batch.")
      .def_prop_ro("status", [](const fastlink::RequestResult& r) { return statusName(r.status); },
                   "'applied', 'failed' or 'not_sent'")
      .def_prop_ro("error", [](const fastlink::RequestResult& r) { return r.error ? makeError(*r.error) : nb::none(); },
                   "a fastlink.Error (not raised), or None")
      .def("__repr__", [](const fastlink::RequestResult& r) {
        return std::string("RequestResult(") + statusName(r.status) + (r.error ? ", " + std::string(r.error->what()) : "") + ")";
      });

  nb::class_<fastlink::BatchResult>(m, "BatchResult", "Per-request results of Netlink.run, in the order queued.")
      .def_ro("results", &fastlink::BatchResult::results)
      .def_ro("applied", &fastlink::BatchResult::applied)
      .def_ro("failed", &fastlink::BatchResult::failed)
      .def_ro("not_sent", &fastlink::BatchResult::notSent)
      .def_prop_ro("ok", &fastlink::BatchResult::ok)
      .def_prop_ro("first_error", [](const fastlink::BatchResult& r) {
        const fastlink::Error* e = r.firstError();
        return e ? makeError(*e) : nb::none();
      })
      .def("raise_for_error", [](const fastlink::BatchResult& r) {
        if (const fastlink::Error* e = r.firstError()) throw *e;
      }, "Raises the first failure as fastlink.Error.")
      .def("__len__", [](const fastlink::BatchResult& r) { return r.results.size(); })
      .def("__repr__", [](const fastlink::BatchResult& r) {
        return "BatchResult(applied=" + std::to_string(r.applied) + ", failed=" + std::to_string(r.failed) +
               ", not_sent=" + std::to_string(r.notSent) + ")";
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

void bindApis(nb::module_& m) {
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

  nb::class_<PyNetlink>(m, "Netlink",
                        "The netlink sockets of one network namespace and the APIs over them. Use it as a "
                        "context manager (`with fastlink.Netlink(netns='blue') as nl:`). Not thread-safe: "
                        "one Netlink per thread.")
      .def(
          "__init__",
          [](PyNetlink* self, std::optional<nb::object> netns) {
            fastlink::NetlinkOptions options;
            if (netns) options.netns = netnsOf(*netns);
            new (self) PyNetlink{unlocked([&] { return std::optional<fastlink::Netlink>(std::in_place, options); })};
          },
          "netns"_a = nb::none(),
          "netns: a name under /run/netns (like `ip -n NAME`), a path ('/proc/PID/ns/net') or an open fd; "
          "default: the caller's namespace")
      .def_prop_ro("links", [](PyNetlink& n) { n.get(); return PyLinks{&n}; }, nb::keep_alive<0, 1>())
      .def_prop_ro("addresses", [](PyNetlink& n) { n.get(); return PyAddresses{&n}; }, nb::keep_alive<0, 1>())
      .def_prop_ro("routes", [](PyNetlink& n) { n.get(); return PyRoutes{&n}; }, nb::keep_alive<0, 1>())
      .def_prop_ro("neighbours", [](PyNetlink& n) { n.get(); return PyNeighbours{&n}; }, nb::keep_alive<0, 1>())
      .def_prop_ro("rules", [](PyNetlink& n) { n.get(); return PyRules{&n}; }, nb::keep_alive<0, 1>())
      .def(
          "run",
          [](PyNetlink& n, const fastlink::Batch& batch, const std::string& onError, std::size_t window) {
            auto options = batchOptions(onError, window);
            fastlink::Netlink& netlink = n.get();
            return unlocked([&] { return netlink.run(batch, options); });
          },
          "batch"_a, "on_error"_a = "stop", "window"_a = 0,
          "Sends the batch pipelined; returns per-request results (never raises for a failed request: "
          "see BatchResult.raise_for_error). on_error='stop' stops at the first failure like `ip -batch`; "
          "'continue' sends everything.")
      .def(
          "run",
          [](PyNetlink& n, nb::iterable requests, const std::string& onError, std::size_t window) {
            auto options = batchOptions(onError, window);
            fastlink::Netlink& netlink = n.get();
            return runStreamed(netlink, requests, options);
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
}

}  // namespace

NB_MODULE(_fastlink, m) {
  m.doc() = "fastlink: Linux network configuration over netlink, the C++ library from Python.";
  g_errorType = PyErr_NewExceptionWithDoc(
      "fastlink.Error",
      "A failed netlink operation or bad input (an OSError): errno, strerror, and also extack (the "
      "kernel's message, '' when none), extack_offset, operation (what failed, in iproute2 words), "
      "batch_index (position in a batch, or None) and reason.",
      PyExc_OSError, nullptr);
  m.attr("Error") = nb::handle(g_errorType);
  nb::register_exception_translator(translateErrors);

  bindLinkTypes(m);
  bindAddrRouteNeighTypes(m);
  bindRequests(m);
  bindApis(m);
}
