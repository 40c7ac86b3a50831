// fastlink._fastlink: the nanobind binding of the fastlink library (docs/python.md).
//
// It binds the C++ API as it is (Netlink, the object APIs, the request builders, batches): no
// netlink is encoded or decoded here. What it adds is the Python surface:
//   - the Info objects as plain classes with keyword construction (LinkInfo(name="v0", mtu=1400));
//     addresses, prefixes and MACs are strings, parsed when assigned, so bad input raises there,
//     long before anything is sent;
//   - fastlink.Error, an OSError subclass carrying errno, extack, operation and batch_index;
//   - the GIL released while a call waits for the kernel (unlocked in binding.hpp).
// This file holds the module and the shared helpers; each object family binds itself in its own
// translation unit (binding.hpp lists them).
#include <cerrno>

#include "binding.hpp"

namespace fastlink::python {

PyObject* g_errorType = nullptr;
PyObject* g_overflowType = nullptr;

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

nb::object makeError(const fastlink::Error& error) {
  bool overflow = error.code() == fastlink::make_error_code(fastlink::Errc::receive_overflow);
  nb::object instance = nb::handle(overflow ? g_overflowType : g_errorType)(errnoOf(error.code()), error.what());
  instance.attr("extack") = error.extack();
  instance.attr("extack_offset") = optionalToPython(error.extackOffset());
  instance.attr("operation") = error.operation();
  instance.attr("batch_index") = optionalToPython(error.batchIndex());
  instance.attr("reason") = error.reason();
  return instance;
}

namespace {
void translateErrors(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const fastlink::Error& error) {
    nb::object instance = makeError(error);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(instance.ptr())), instance.ptr());
  }
}
}  // namespace

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

std::optional<std::string> scopeText(const std::optional<fastlink::Scope>& s) {
  return s ? std::optional(fastlink::scopeName(*s)) : std::nullopt;
}
std::optional<fastlink::Scope> scopeParsed(const std::optional<std::string>& t) {
  return t ? std::optional(fastlink::parseScope(*t)) : std::nullopt;
}

}  // namespace fastlink::python

NB_MODULE(_fastlink, m) {
  m.doc() = "fastlink: Linux network configuration over netlink, the C++ library from Python.";
  fastlink::python::g_errorType = PyErr_NewExceptionWithDoc(
      "fastlink.Error",
      "A failed netlink operation or bad input (an OSError): errno, strerror, and also extack (the "
      "kernel's message, '' when none), extack_offset, operation (what failed, in iproute2 words), "
      "batch_index (position in a batch, or None) and reason.",
      PyExc_OSError, nullptr);
  m.attr("Error") = nb::handle(fastlink::python::g_errorType);
  fastlink::python::g_overflowType = PyErr_NewExceptionWithDoc(
      "fastlink.EventOverflow",
      "The kernel dropped notifications because they were read too slowly (ENOBUFS), a fastlink.Error. "
      "The EventStream stays usable: list the objects again to resynchronise, then keep reading.",
      fastlink::python::g_errorType, nullptr);
  m.attr("EventOverflow") = nb::handle(fastlink::python::g_overflowType);
  nb::register_exception_translator(fastlink::python::translateErrors);

  using namespace fastlink::python;
  bindLinkTypes(m);
  bindAddrRouteNeighTypes(m);
  bindRequests(m);
  nb::class_<PyNetlink> netlink = bindNetlink(m);
  bindNexthopsAndBridge(m, netlink);
  bindTc(m, netlink);
  bindEthtool(m, netlink);
  bindPotentialRouters(m, netlink);
#ifdef FASTLINK_PY_WIREGUARD
  bindWireGuard(m, netlink);
#endif
  bindEvents(m, netlink);
  bindApply(m);
}
