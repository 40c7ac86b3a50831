// The parsed-document cache (see document_cache.hpp).
//
// A cache file: the magic, the writing binary's identity, the document's BLAKE2b-256, the
// payload's length, the payload (encodeState), and a BLAKE2b-256 of everything before it. The
// payload is one field list per struct (fieldsOf), walked by the writer and by the reader alike.
#include "state/document_cache.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "fastlink/error.hpp"

namespace fastlink::cli {
namespace {

// A field added to a document struct must be added to fieldsOf below (and kFormat bumped): these
// fail the build until it is (the sizes of x86-64's libstdc++, where CI builds).
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(InterfaceState) == 568 && sizeof(RouteState) == 128 && sizeof(RuleState) == 112 &&
                  sizeof(Ownership) == 80 && sizeof(State) == 160,
              "a state document field changed: update fieldsOf in document_cache.cpp and bump kFormat");
#endif

constexpr std::array<char, 8> kMagic{'f', 'l', 's', 't', 'a', 't', 'e', '\n'};
constexpr uint32_t kFormat = 1;
constexpr std::size_t kHash = crypto_generichash_BYTES;  // 32: BLAKE2b-256
using Hash = std::array<uint8_t, kHash>;

/// The payload could not be decoded (short, or a value out of range).
struct Undecodable {};

class Writer {
 public:
  std::string bytes;

  template <class T>
    requires std::is_integral_v<T>
  void io(const T& v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <class T>
    requires std::is_enum_v<T>
  void io(const T& v) {
    io(static_cast<std::underlying_type_t<T>>(v));
  }
  void io(const std::string& s) {
    io(static_cast<uint32_t>(s.size()));
    bytes += s;
  }
  /// An address's bytes after their count.
  void io(std::span<const uint8_t> b) {
    io(static_cast<uint8_t>(b.size()));
    bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  void io(const IpAddress& a) { io(a.bytes()); }
  void io(const Prefix& p) {
    io(p.address());
    io(p.length());
  }
  void io(const MacAddress& m) { io(m.bytes()); }
  template <class T>
  void io(const std::optional<T>& v) {
    io(static_cast<uint8_t>(v.has_value()));
    if (v) io(*v);
  }
  template <class T>
  void io(const std::vector<T>& list) {
    io(static_cast<uint32_t>(list.size()));
    for (const auto& v : list) io(v);
  }
  template <class T>
    requires std::is_class_v<T>
  void io(const T& s) {
    fieldsOf(*this, s);
  }
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }

  template <class T>
    requires std::is_integral_v<T>
  void io(T& v) {
    std::memcpy(&v, take(sizeof v), sizeof v);
  }
  void io(bool& v) {
    uint8_t b;
    io(b);
    if (b > 1) throw Undecodable{};
    v = b;
  }
  template <class T>
    requires std::is_enum_v<T>
  void io(T& v) {
    std::underlying_type_t<T> raw;
    io(raw);
    v = static_cast<T>(raw);
    if (!known(v)) throw Undecodable{};
  }
  void io(std::string& s) {
    uint32_t size;
    io(size);
    s.assign(take(size), size);
  }
  /// An address's bytes after their count, at most `max`.
  std::span<const uint8_t> counted(std::size_t max) {
    uint8_t size;
    io(size);
    if (size > max) throw Undecodable{};
    return {reinterpret_cast<const uint8_t*>(take(size)), size};
  }
  void io(IpAddress& a) {
    std::span<const uint8_t> b = counted(16);
    if (b.size() != 4 && b.size() != 16) throw Undecodable{};
    a = IpAddress::fromBytes(b);
  }
  void io(Prefix& p) {
    IpAddress address;
    uint8_t length;
    io(address);
    io(length);
    if (length > (address.isV4() ? 32 : 128)) throw Undecodable{};
    p = Prefix(address, length);
  }
  void io(MacAddress& m) { m = MacAddress(counted(MacAddress::kMaxLength)); }
  template <class T>
  void io(std::optional<T>& v) {
    bool has;
    io(has);
    if (!has) return;
    v.emplace();
    io(*v);
  }
  template <class T>
  void io(std::vector<T>& list) {
    uint32_t size;
    io(size);
    // Each element takes a byte at least: a corrupt count cannot reserve gigabytes.
    if (size > rest_.size()) throw Undecodable{};
    list.resize(size);
    for (auto& v : list) io(v);
  }
  template <class T>
    requires std::is_class_v<T>
  void io(T& s) {
    fieldsOf(*this, s);
  }

 private:
  const char* take(std::size_t n) {
    if (n > rest_.size()) throw Undecodable{};
    const char* at = rest_.data();
    rest_.remove_prefix(n);
    return at;
  }
  static bool known(InterfaceAdmin v) { return v <= InterfaceAdmin::Absent; }
  static bool known(ApplyMode v) { return v <= ApplyMode::Overridden; }
  static bool known(BondMode v) { return v <= BondMode::BalanceAlb; }
  static bool known(IpAddress::Family v) { return v == IpAddress::Family::v4 || v == IpAddress::Family::v6; }
  static bool known(MacvlanMode v) {
    auto raw = static_cast<uint32_t>(v);
    return raw != 0 && (raw & (raw - 1)) == 0 && raw <= static_cast<uint32_t>(MacvlanMode::Source);
  }

  std::string_view rest_;
};

// The field lists, in the order they are stored. Io is Writer (S const) or Reader.
template <class Io, class S>
void fieldsOf(Io& io, S& s) {
  using T = std::remove_const_t<S>;
  if constexpr (std::is_same_v<T, IpConfig>) {
    io.io(s.enabled), io.io(s.addresses);
  } else if constexpr (std::is_same_v<T, BridgeVlanRange>) {
    io.io(s.first), io.io(s.last), io.io(s.pvid), io.io(s.untagged);
  } else if constexpr (std::is_same_v<T, BridgePortVlans>) {
    io.io(s.port), io.io(s.vlans);
  } else if constexpr (std::is_same_v<T, InterfaceState>) {
    io.io(s.path), io.io(s.name), io.io(s.type), io.io(s.state), io.io(s.mtu), io.io(s.macAddress), io.io(s.description);
    io.io(s.controller), io.io(s.group), io.io(s.ifindex), io.io(s.ipv4), io.io(s.ipv6), io.io(s.ports), io.io(s.bridgeStp);
    io.io(s.bridgeVlanFiltering), io.io(s.portVlans), io.io(s.bondMode), io.io(s.bondMiimon), io.io(s.baseIface);
    io.io(s.vlanId), io.io(s.vxlanId), io.io(s.vxlanRemote), io.io(s.vxlanLocal), io.io(s.vxlanDstPort), io.io(s.vrfTable);
    io.io(s.vethPeer), io.io(s.macvlanMode);
  } else if constexpr (std::is_same_v<T, RouteState>) {
    io.io(s.path), io.io(s.destination), io.io(s.nextHopAddress), io.io(s.nextHopInterface), io.io(s.metric);
    io.io(s.table), io.io(s.protocol), io.io(s.absent);
  } else if constexpr (std::is_same_v<T, RuleState>) {
    io.io(s.path), io.io(s.family), io.io(s.ipFrom), io.io(s.ipTo), io.io(s.priority), io.io(s.table), io.io(s.fwmark);
    io.io(s.fwmask), io.io(s.absent);
  } else if constexpr (std::is_same_v<T, Ownership>) {
    io.io(s.interfaces), io.io(s.ignore), io.io(s.routeProtocol), io.io(s.routeTables);
  } else if constexpr (std::is_same_v<T, State>) {
    io.io(s.interfaces), io.io(s.routes), io.io(s.rules), io.io(s.mode), io.io(s.ownership);
  } else {
    static_assert(sizeof(T) == 0, "a struct the state documents store has no field list here");
  }
}

Hash blake2b(std::string_view bytes) {
  Hash h;
  crypto_generichash(h.data(), h.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  return h;
}

/// The binary that parses: a cache written by another build (whose parser may read the same
/// document differently) is not used. The file /proc/self/exe names, stat'd by that name (under
/// valgrind the link itself leads to valgrind's tool, which every build would share). "" when it
/// cannot be read (a binary replaced since it started): then nothing is cached.
std::string binaryIdentity() {
  char path[4096];
  ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return {};
  path[length] = '\0';
  struct stat st {};
  if (::stat(path, &st) != 0) return {};
  Writer w;
  w.io(static_cast<uint64_t>(st.st_dev)), w.io(static_cast<uint64_t>(st.st_ino)), w.io(static_cast<uint64_t>(st.st_size));
  w.io(static_cast<int64_t>(st.st_mtim.tv_sec)), w.io(static_cast<int64_t>(st.st_mtim.tv_nsec));
  return w.bytes;
}

/// The header of a cache file of `document`'s bytes, up to the payload's length.
std::string headerOf(const Hash& document, const std::string& identity) {
  std::string h(kMagic.begin(), kMagic.end());
  Writer w;
  w.io(kFormat);
  w.io(identity);
  h += w.bytes;
  h.append(reinterpret_cast<const char*>(document.data()), document.size());
  return h;
}

/// The directory, made if missing; false unless it is this user's and nobody else can write in
/// it (a cache file there could be planted otherwise).
bool privateDirectory(const std::string& directory) {
  std::size_t slash = directory.rfind('/');
  if (slash != std::string::npos && slash > 0) ::mkdir(directory.substr(0, slash).c_str(), 0755);
  ::mkdir(directory.c_str(), 0700);
  struct stat st {};
  return ::lstat(directory.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0;
}

/// The cache file of a document path: named by a hash of its absolute path (one file per
/// document, replaced when the document changes); "" when the path cannot be resolved.
std::string cacheFileOf(const std::string& path, const std::string& directory) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) return {};
  std::string absolute = resolved;
  std::free(resolved);
  Hash h = blake2b(absolute);
  char hex[2 * 16 + 1];
  sodium_bin2hex(hex, sizeof hex, h.data(), 16);
  return directory + "/" + hex;
}

/// A regular file's bytes, mapped read-only and populated (a hit reads ~15 MB of document and
/// cache at the 10,000-device scale: copied into fresh buffers, their page faults and copies were
/// a tenth of the process). Empty when the file is not a regular, non-empty one (or, with
/// `ownOnly`, not this user's, or a symbolic link).
class MappedFile {
 public:
  MappedFile(const std::string& path, bool ownOnly) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (ownOnly ? O_NOFOLLOW : 0));
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (!ownOnly || st.st_uid == ::geteuid())) {
      void* at = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (at != MAP_FAILED) {
        data_ = at;
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  bool mapped() const { return data_ != nullptr; }
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

/// The State a cache file holds for this header, or why not.
std::optional<State> readCache(const MappedFile& file, const std::string& header, CacheOutcome& outcome) {
  outcome = CacheOutcome::Miss;
  if (!file.mapped()) return std::nullopt;
  std::string_view bytes = file.bytes();
  // The header names the document's hash and the binary: another one is stale, not corrupt.
  if (bytes.size() < header.size() || bytes.substr(0, header.size()) != header) {
    outcome = bytes.substr(0, kMagic.size()) == std::string_view(kMagic.data(), kMagic.size()) ? CacheOutcome::Stale
                                                                                             : CacheOutcome::Corrupt;
    return std::nullopt;
  }
  outcome = CacheOutcome::Corrupt;
  if (bytes.size() < header.size() + sizeof(uint64_t) + kHash) return std::nullopt;
  std::string_view signedPart = bytes.substr(0, bytes.size() - kHash);
  Hash sum = blake2b(signedPart);
  if (sodium_memcmp(sum.data(), bytes.data() + signedPart.size(), kHash) != 0) return std::nullopt;
  uint64_t length;
  std::memcpy(&length, bytes.data() + header.size(), sizeof length);
  std::string_view payload = signedPart.substr(header.size() + sizeof length);
  if (length != payload.size()) return std::nullopt;
  std::optional<State> state = decodeState(payload);
  if (state) outcome = CacheOutcome::Hit;
  return state;
}

/// Writes the cache file (a temporary name, then renamed over the old one: a reader sees a whole
/// file or the old one). A cache that cannot be written is no error: the next apply parses.
void writeCache(const std::string& file, const std::string& header, const State& state) {
  std::string payload = encodeState(state);
  std::string bytes = header;
  Writer w;
  w.io(static_cast<uint64_t>(payload.size()));
  bytes += w.bytes;
  bytes += payload;
  Hash sum = blake2b(bytes);
  bytes.append(reinterpret_cast<const char*>(sum.data()), sum.size());
  std::string temporary = file + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  std::size_t put = 0;
  while (put < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + put, bytes.size() - put);
    if (n <= 0) break;
    put += static_cast<std::size_t>(n);
  }
  bool whole = ::close(fd) == 0 && put == bytes.size();
  if (!whole || ::rename(temporary.c_str(), file.c_str()) != 0) ::unlink(temporary.c_str());
}

const char* nameOf(CacheOutcome o) {
  switch (o) {
    case CacheOutcome::Hit: return "hit";
    case CacheOutcome::Miss: return "miss";
    case CacheOutcome::Stale: return "stale";
    case CacheOutcome::Corrupt: return "corrupt";
    case CacheOutcome::Unused: break;
  }
  return "unused";
}

State loadThroughCache(const std::string& path, const std::string& directory, CacheOutcome& outcome) {
  outcome = CacheOutcome::Unused;
  if (path == "-" || ::sodium_init() < 0) return State::load(path);
  MappedFile document(path, false);
  // Not a regular file (or empty): read as load() reads it, with its errors, and uncached.
  if (!document.mapped()) return State::load(path);
  std::string identity = binaryIdentity();
  std::string file = !identity.empty() && privateDirectory(directory) ? cacheFileOf(path, directory) : "";
  if (file.empty()) return State::parse(document.bytes(), path);
  if (std::optional<State> cached = readCache(MappedFile(file, true), headerOf(blake2b(document.bytes()), identity), outcome))
    return std::move(*cached);
  // A miss parses a copy, and caches it under the copy's hash: a document changed while it was
  // mapped cannot be cached under the other version's hash.
  std::string text(document.bytes());
  State state = State::parse(text, path);
  writeCache(file, headerOf(blake2b(text), identity), state);
  return state;
}

}  // namespace

std::string encodeState(const State& state) {
  Writer w;
  w.io(state);
  return std::move(w.bytes);
}

std::optional<State> decodeState(std::string_view bytes) {
  try {
    Reader r(bytes);
    State state;
    r.io(state);
    if (!r.done()) return std::nullopt;
    return state;
  } catch (const Undecodable&) {
    return std::nullopt;
  } catch (const Error&) {  // a value a constructor refuses
    return std::nullopt;
  }
}

State loadDocument(const std::string& path, const std::string& directory, CacheOutcome* outcome) {
  CacheOutcome happened;
  State state = loadThroughCache(path, directory, happened);
  if (outcome) *outcome = happened;
  if (const char* test = std::getenv("FASTLINK_TEST_DOCUMENT_CACHE"); test && *test == '1')
    std::fprintf(stderr, "document cache: %s\n", nameOf(happened));
  return state;
}

}  // namespace fastlink::cli
