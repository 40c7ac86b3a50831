// The kinds of bad input whose exit status differs between ip and tc, beside UsageError and
// BadValueError (kit/args.hpp): kept out of args.hpp, which nearly every CLI file includes, since
// only Args::value and the tc parsers need them.
#pragma once

#include "kit/args.hpp"

namespace fastlink::cli {

/// A keyword without the value it needs (Args::value at the end of the words): ip's and tc's
/// "Command line is not complete", 255 also where tc exits 1 for a value that does not parse.
class MissingValueError : public UsageError {
 public:
  using UsageError::UsageError;
};

/// Runs `parse` with tc's exit statuses for the options of a qdisc, class or filter kind: what
/// does not parse exits 1 (tc's kind parser fails: BadValueError), a keyword missing its value
/// 255 as everywhere.
template <class Parse>
auto asKindOptionError(Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const MissingValueError&) {
    throw;
  } catch (const BadValueError&) {
    throw;
  } catch (const UsageError& e) {
    throw BadValueError(e.what());
  }
}

}  // namespace fastlink::cli
