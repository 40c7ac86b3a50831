// libFuzzer harness for the iproute2 name files the library reads itself (RouteNames:
// rt_tables, rt_protos and rt_tables.d/*.conf). The input is written as rt_tables (up to the
// first NUL) and rt_protos (after it) of a private configuration directory; then every word of
// the input is looked up as a table and a protocol name, and the name of every id found must be
// accepted again (not necessarily as the same id: a file may give one name to two ids, e.g.
// "127 local" beside the built-in local = 255, and iproute2 resolves that the same way).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "fastlink/error.hpp"
#include "fastlink/route.hpp"

namespace {

const std::string& configDir() {
  // Never destroyed: the atexit cleanup is registered before the string's own destructor would
  // be, so it runs after it (ASan saw it read the freed string).
  static const std::string& dir = *new std::string([] {
    // tmpfs: on ext4, rewriting a file through truncation makes close() start its writeback
    // (auto_da_alloc), which held this harness at a few hundred executions a second.
    char shm[] = "/dev/shm/fastlink-fuzz-rt-XXXXXX";
    char tmp[] = "/tmp/fastlink-fuzz-rt-XXXXXX";
    char* pattern = mkdtemp(shm) ? shm : mkdtemp(tmp);
    if (!pattern) std::abort();
    std::string d = pattern;
    std::atexit([] {
      std::remove((configDir() + "/rt_tables").c_str());
      std::remove((configDir() + "/rt_protos").c_str());
      rmdir(configDir().c_str());
    });
    return d;
  }());
  return dir;
}

void writeFile(const std::string& path, std::string_view text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), f);  // an empty view may hold a null pointer
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t nul = text.find('\0');
  writeFile(configDir() + "/rt_tables", text.substr(0, nul));
  writeFile(configDir() + "/rt_protos", nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1));
  fastlink::RouteNames names({configDir()});
  // Each distinct word once: an unknown one costs two exceptions, which under ASan were most of
  // this harness's time, and a repeated word tells nothing new.
  std::unordered_set<std::string_view> seen;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find_first_of(" \t\n#", at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (!seen.insert(word).second) continue;
    try {
      uint32_t id = names.tableId(word);
      (void)names.tableId(names.tableName(id));
    } catch (const fastlink::Error& e) {
      if (e.code() != std::errc::invalid_argument) __builtin_trap();
    }
    try {
      fastlink::RouteProtocol p = names.protocol(word);
      (void)names.protocol(names.protocolName(p));
    } catch (const fastlink::Error& e) {
      if (e.code() != std::errc::invalid_argument) __builtin_trap();
    }
  }
  return 0;
}
