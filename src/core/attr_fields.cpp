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
  // `what` becomes a string only for an error: every request with a device passes here (twice
  // a line of a tc filter -batch with mirred).
  auto refuse = [what](std::string_view why, bool named) -> Error {
    std::string w(what);
    return Error::invalidArgument(w, named ? w + std::string(why) : std::string(why));
  };
  if (ref.isName()) throw refuse(" \"" + ref.name() + "\" must be resolved to an ifindex first (LinkApi does this)", true);
  if (nonzero && ref.index() == 0) throw refuse("ifindex 0 names no device", false);
  if (nonzero && ref.index() > INT_MAX) throw refuse(": ifindex out of range", true);
  return ref.index();
}

}  // namespace fastlink::core
