// The out-of-line errors of the attribute tables (core/attr_fields.hpp).
#include "core/attr_fields.hpp"

#include <climits>
#include <string>

#include "fastlink/error.hpp"

namespace fastlink::core {

void badAddressLength(std::size_t size, const char* what) {
  throw Error(make_error_code(Errc::malformed_reply), what, "address attribute of " + std::to_string(size) + " bytes");
}

uint32_t requireIndex(const Ifref& ref, std::string_view what, bool nonzero) {
  std::string w(what);
  if (ref.isName())
    throw Error::invalidArgument(w, w + " \"" + ref.name() + "\" must be resolved to an ifindex first (LinkApi does this)");
  if (nonzero && ref.index() == 0) throw Error::invalidArgument(w, "ifindex 0 names no device");
  if (nonzero && ref.index() > INT_MAX) throw Error::invalidArgument(w, w + ": ifindex out of range");
  return ref.index();
}

}  // namespace fastlink::core
