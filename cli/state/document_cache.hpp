// The parsed-document cache of `fastlink apply` (issue 26): a no-op apply of a 10,000-device
// document spent more CPU reading its 9 MB of YAML than planning; the second apply of the same
// bytes reads the State the first one parsed instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fastlink/state.hpp"

namespace fastlink::cli {

/// What loadDocument did with the cache. FASTLINK_TEST_DOCUMENT_CACHE=1 prints it on standard
/// error ("document cache: hit"), for the tests.
enum class CacheOutcome { Unused, Hit, Miss, Stale, Corrupt };

/// State::load(path) through a cache in `directory` (created 0700 when missing): one file per
/// document path, holding the State parsed from the document's bytes, the bytes' BLAKE2b-256 and
/// the identity of the fastlink binary that wrote it (a rebuilt parser may read the same bytes
/// differently), and a BLAKE2b-256 of all that. Used only when the document's bytes hash the
/// same, the binary is the same, the checksum holds and every field decodes in range: any byte
/// changed in the document or the cache means a full parse (and a new cache file). Standard
/// input, and a directory that cannot be made private to this user, are parsed as before, uncached.
/// Errors are State::load's (a document that does not parse is never cached).
State loadDocument(const std::string& path, const std::string& directory, CacheOutcome* outcome = nullptr);

/// The State's fields as the cache stores them (no header), and back. decodeState returns
/// nullopt for bytes that do not decode to a State (short, trailing bytes, a value out of range).
std::string encodeState(const State& state);
std::optional<State> decodeState(std::string_view bytes);

}  // namespace fastlink::cli
