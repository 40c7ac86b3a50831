// The shared kit of the nanobind binding (docs/python.md): the Ifref caster, fastlink.Error,
// the GIL helper, text <-> value conversions, the Fields table that gives every Info type keyword
// construction, and fastlink.Netlink itself. One translation unit per object family includes it
// (python/CMakeLists.txt), so a parallel build compiles the families side by side.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
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

namespace fastlink::python {

using fastlink::Ifref;

// ---- fastlink.Error ----------------------------------------------------------------------------

/// fastlink.Error (an OSError subclass), made when the module is loaded.
extern PyObject* g_errorType;
/// fastlink.EventOverflow, its subclass for Errc::receive_overflow.
extern PyObject* g_overflowType;

/// The errno a fastlink error stands for: its own value for errno codes, the nearest errno for
/// fastlink's own conditions (an interrupted dump is retryable: EAGAIN).
int errnoOf(const std::error_code& code);

template <class T>
nb::object optionalToPython(const std::optional<T>& value) {
  return value ? nb::cast(*value) : nb::none();
}

/// A fastlink.Error instance (not raised): OSError(errno, what()) plus the fastlink fields.
nb::object makeError(const fastlink::Error& error);

/// Runs `call` with the GIL released: other Python threads run while we wait for the kernel.
/// Only C++ values may be touched inside; results are converted after the GIL is back.
template <class Call>
auto unlocked(Call&& call) {
  nb::gil_scoped_release release;
  return call();
}

/// A namespace given from Python: a name under /run/netns, a path, or an fd.
fastlink::Netns netnsOf(const nb::handle& where);

/// 4 / 6 / None <-> the address family.
std::optional<fastlink::IpAddress::Family> familyOf(std::optional<int> family);
std::optional<int> familyNumber(std::optional<fastlink::IpAddress::Family> family);

template <class V>
std::optional<std::string> textOf(const std::optional<V>& value) {
  return value ? std::optional(value->toString()) : std::nullopt;
}
template <class V>
std::optional<V> parsed(const std::optional<std::string>& text) {
  return text ? std::optional(V::parse(*text)) : std::nullopt;
}
std::optional<std::string> scopeText(const std::optional<fastlink::Scope>& s);
std::optional<fastlink::Scope> scopeParsed(const std::optional<std::string>& t);

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

  /// A secret (a private key): its repr shows '<hidden>', never the value.
  Fields& hide(const char* name) {
    table_->hidden.push_back(name);
    return *this;
  }

  /// Ends the binding: keyword __init__ and __repr__.
  void done() {
    auto table = table_;
    cls_.def(
        "__init__",
        [table](T* self, nb::kwargs kwargs) {
          // Built in place (no second object moved in): a RouteInfo per route is the hot path of
          // a Python batch (docs/BENCHMARKS.md, "Python": the binding against the C++ calls).
          new (self) T();
          try {
            for (auto [key, item] : kwargs) table->set(*self, key, item);
          } catch (...) {
            self->~T();
            throw;
          }
        },
        "Keyword construction: every field is optional, an unset field (None) is never sent.");
    cls_.def("__repr__", [table](nb::handle self) {
      std::string out = table->typeName + "(";
      bool first = true;
      for (const auto& name : table->names) {
        nb::object value = self.attr(name.c_str());
        if (value.is_none()) continue;
        if (nb::isinstance<nb::list>(value) && nb::len(value) == 0) continue;
        bool hidden = std::find(table->hidden.begin(), table->hidden.end(), name) != table->hidden.end();
        out += (first ? "" : ", ") + name + "=" + (hidden ? std::string("'<hidden>'") : nb::cast<std::string>(nb::repr(value)));
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
    using Setter = std::function<void(T&, nb::handle)>;
    struct Field {
      PyObject* key;  ///< the interned name; one reference kept for the life of the process
      Setter set;
    };
    std::string typeName;
    std::vector<std::string> names;
    std::vector<std::string> hidden;
    std::vector<Field> fields;

    void add(const char* name, Setter setter) {
      names.push_back(name);
      fields.push_back({PyUnicode_InternFromString(name), std::move(setter)});
    }
    /// Sets the field named `key` (a keyword's str) of `value` from `item`.
    void set(T& value, nb::handle key, nb::handle item) const {
      const Setter* setter = find(key.ptr());
      if (!setter) throw nb::type_error((typeName + "() has no field '" + nb::cast<std::string>(key) + "'").c_str());
      try {
        (*setter)(value, item);
      } catch (const std::bad_cast&) {
        std::string got = nb::cast<std::string>(nb::str(item.type().attr("__name__")));
        throw nb::type_error((typeName + "(" + nb::cast<std::string>(key) + "=...): wrong type " + got).c_str());
      }
    }
    /// The keywords written at a call site are interned strings: found by identity first (no
    /// string is built or compared), by value otherwise (a **dict with computed keys).
    const Setter* find(PyObject* key) const {
      for (const Field& f : fields)
        if (f.key == key) return &f.set;
      for (const Field& f : fields)
        if (PyUnicode_Compare(f.key, key) == 0) return &f.set;
      return nullptr;
    }
  };
  nb::class_<T> cls_;
  std::shared_ptr<Table> table_;
};

// ---- fastlink.Netlink --------------------------------------------------------------------------

/// fastlink.Netlink: the sockets of one namespace. A context manager: leaving the `with` block
/// closes them; a closed Netlink raises ValueError.
struct PyNetlink {
  std::optional<fastlink::Netlink> netlink;

  fastlink::Netlink& get() {
    if (!netlink) throw nb::value_error("this fastlink.Netlink is closed");
    return *netlink;
  }
};

/// Each API object (nl.links, nl.nexthops, ...) is a view of its Netlink (kept alive by it).
template <class Api, Api& (fastlink::Netlink::*Accessor)()>
struct PyApi {
  PyNetlink* owner;
  Api& api() { return (owner->get().*Accessor)(); }
};

/// The property `nl.NAME` giving a PyApi view (checks that the Netlink is open).
template <class View>
void addApi(nb::class_<PyNetlink>& netlink, const char* name) {
  netlink.def_prop_ro(name, [](PyNetlink& n) { n.get(); return View{&n}; }, nb::keep_alive<0, 1>());
}

// ---- the families, one translation unit each ---------------------------------------------------

void bindLinkTypes(nb::module_& m);                           // links.cpp
void bindAddrRouteNeighTypes(nb::module_& m);                 // addr_route.cpp
void bindRequests(nb::module_& m);                            // netlink.cpp
nb::class_<PyNetlink> bindNetlink(nb::module_& m);            // netlink.cpp
void bindEvents(nb::module_& m, nb::class_<PyNetlink>& netlink);  // events.cpp: nl.events(), nl.mirror()
void bindApply(nb::module_& m);                               // apply.cpp: fastlink.apply()
void bindNexthopsAndBridge(nb::module_& m, nb::class_<PyNetlink>& netlink);  // nexthop_bridge.cpp
void bindTc(nb::module_& m, nb::class_<PyNetlink>& netlink);                 // tc.cpp
void bindEthtool(nb::module_& m, nb::class_<PyNetlink>& netlink);            // ethtool.cpp
void bindPotentialRouters(nb::module_& m, nb::class_<PyNetlink>& netlink);   // tunnel_prl.cpp
void bindWireGuard(nb::module_& m, nb::class_<PyNetlink>& netlink);          // wireguard.cpp (with libsodium)

// ---- batch results ------------------------------------------------------------------------------

/// What a run returns, kept small: the totals, one status byte per request and the errors by
/// index. (A fastlink::RequestResult is 216 bytes: 21 MB for 100,000 requests that all applied.)
struct BatchOutcome {
  std::size_t applied = 0, failed = 0, notSent = 0;
  /// A status for every request (a Batch); false: only the failures are kept (a streamed run).
  bool perRequest = true;
  std::vector<uint8_t> statuses;  ///< the fastlink::RequestStatus of each request (perRequest)
  std::vector<std::pair<std::size_t, fastlink::Error>> errors;  ///< (index, error), in order

  void add(std::size_t index, const fastlink::RequestResult& result);
  const fastlink::Error* firstError() const;
  static BatchOutcome of(const fastlink::BatchResult& result);
};

/// fastlink.BatchResult: an outcome, and the list of RequestResult objects, made the first time
/// `results` is read.
struct PyBatchResult {
  BatchOutcome outcome;
  nb::object results;
};

/// on_error="stop" pipelined with an exact undo (stop_pipeline.cpp): the same results and the same
/// kernel state as one request at a time. Call with the GIL released.
fastlink::BatchResult runStopPipelined(fastlink::Netlink& netlink, const fastlink::RequestSource& source,
                                       const fastlink::ResultSink& sink);

}  // namespace fastlink::python
