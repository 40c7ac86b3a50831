// apply's parsed-document cache (cli/state/document_cache.cpp): a hit gives the State a parse
// gives, and a cache that is stale, corrupt, truncated or not private to the user is never used.
// The oracle is State::parse itself (the document written back by toYaml/toJson, and the bytes
// of an encoding of a fresh parse).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/state/document_cache.hpp"

namespace fastlink::cli {
namespace {

namespace fs = std::filesystem;

// Every field of every struct of a document, set (docs/cli/apply.md's document and then some).
constexpr const char* kEveryField = R"(interfaces:
  - name: br0
    type: linux-bridge
    state: up
    mtu: 1500
    mac-address: 02:00:00:00:00:01
    description: uplink bridge
    controller: ""
    fastlink-group: 7
    fastlink-ifindex: 40
    ipv4: { enabled: true, address: [ { ip: 192.0.2.1, prefix-length: 24 } ] }
    ipv6: { enabled: true, address: [ { ip: 2001:db8::1, prefix-length: 64 } ] }
    bridge:
      options: { stp: { enabled: false }, fastlink-vlan-filtering: true }
      port:
        - name: va0
          vlan: { mode: trunk, trunk-tags: [ { id: 101 }, { id-range: { min: 200, max: 299 } } ], enable-native: true, tag: 100 }
        - name: vb0
          vlan: { fastlink-vlans: [ { id: 5, pvid: true }, { id-range: { min: 7, max: 9 }, untagged: true } ] }
  - name: bond0
    type: bond
    state: down
    link-aggregation: { mode: active-backup, options: { miimon: 100 }, port: [ du1, du2 ] }
  - { name: du1, type: dummy }
  - { name: du2, type: dummy }
  - name: bond0.10
    type: vlan
    vlan: { base-iface: bond0, id: 10 }
  - name: vx0
    type: vxlan
    vxlan: { id: 42, base-iface: br0, local: 10.0.0.1, remote: 10.0.0.2, destination-port: 4789 }
  - name: vrf1
    type: vrf
    vrf: { route-table-id: 100, port: [ bond0.10 ] }
  - { name: va0, type: veth, veth: { peer: va1 } }
  - { name: vb0, type: veth, veth: { peer: vb1 } }
  - { name: mv0, type: mac-vlan, mac-vlan: { base-iface: br0, mode: bridge } }
  - { name: old0, state: absent }
routes:
  config:
    - { destination: 198.51.100.0/24, next-hop-address: 192.0.2.254, next-hop-interface: br0, metric: 100, table-id: 254, fastlink-protocol: static }
    - { destination: 2001:db8:1::/48, next-hop-interface: br0, table-id: 100 }
    - { destination: 203.0.113.0/24, state: absent }
route-rules:
  config:
    - { ip-from: 203.0.113.0/24, ip-to: 198.51.100.0/24, priority: 1000, route-table: 100, fwmark: 7, fwmask: 255 }
    - { family: ipv6, ip-from: 2001:db8::/32, priority: 1001, route-table: 100, state: absent }
fastlink-apply:
  mode: overridden
  owned-interfaces: [ "lab-*", "br*" ]
  ignore: [ "lab-keep*" ]
  route-protocol: boot
  route-tables: [ 254, 100 ]
)";

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void writeAll(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

class DocumentCache : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fastlink-document-cache-" + std::to_string(::getpid()));
    fs::create_directories(root_);
    document_ = (root_ / "host.yaml").string();
    cache_ = (root_ / "documents").string();
    writeAll(document_, kEveryField);
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Loads the document through the cache and returns what happened.
  CacheOutcome load(State* into = nullptr) const {
    CacheOutcome outcome = CacheOutcome::Unused;
    State state = loadDocument(document_, cache_, &outcome);
    if (into) *into = std::move(state);
    return outcome;
  }
  /// The one cache file.
  std::string cacheFile() const {
    for (const auto& entry : fs::directory_iterator(cache_)) return entry.path().string();
    return "";
  }
  static void expectSame(const State& a, const State& b) {
    EXPECT_EQ(a.toYaml(), b.toYaml());
    EXPECT_EQ(a.toJson(), b.toJson());
    EXPECT_EQ(encodeState(a), encodeState(b)) << "a field differs that the documents do not print (paths?)";
  }

  fs::path root_;
  std::string document_, cache_;
};

TEST(DocumentCacheEncoding, EveryFieldSurvivesAndAnyShortOrLongEncodingIsRefused) {
  State parsed = State::parse(kEveryField);
  std::string bytes = encodeState(parsed);
  std::optional<State> decoded = decodeState(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->toYaml(), parsed.toYaml());
  EXPECT_EQ(encodeState(*decoded), bytes);
  // What toYaml does not print: fastlink-apply's keys, and the paths the planner's errors name.
  EXPECT_EQ(decoded->mode, ApplyMode::Overridden);
  EXPECT_EQ(decoded->ownership.interfaces, parsed.ownership.interfaces);
  EXPECT_EQ(decoded->ownership.ignore, parsed.ownership.ignore);
  EXPECT_EQ(decoded->ownership.routeProtocol, 3);  // boot
  EXPECT_EQ(decoded->ownership.routeTables, (std::vector<uint32_t>{254, 100}));
  EXPECT_EQ(decoded->routes.at(2).path, parsed.routes.at(2).path);
  for (std::size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(decodeState(bytes.substr(0, n))) << "decoded from " << n << " bytes";
  EXPECT_FALSE(decodeState(bytes + '\0')) << "a trailing byte was ignored";
}

TEST_F(DocumentCache, AHitGivesWhatAParseGives) {
  State missed, hit;
  EXPECT_EQ(load(&missed), CacheOutcome::Miss);
  EXPECT_EQ(load(&hit), CacheOutcome::Hit);
  expectSame(missed, State::parse(kEveryField));
  expectSame(hit, State::parse(kEveryField));
}

TEST_F(DocumentCache, AnyByteChangedInTheDocumentIsAFullParse) {
  ASSERT_EQ(load(), CacheOutcome::Miss);
  std::string changed = kEveryField;
  changed[changed.find("mtu: 1500") + 8] = '1';  // mtu 1501: one byte
  writeAll(document_, changed);
  State state;
  EXPECT_EQ(load(&state), CacheOutcome::Stale);
  EXPECT_EQ(state.interfaces.at(0).mtu, 1501u);
  expectSame(state, State::parse(changed));
  EXPECT_EQ(load(), CacheOutcome::Hit) << "the new parse was not cached";
}

TEST_F(DocumentCache, AFlippedOrMissingByteInTheCacheIsAFullParse) {
  ASSERT_EQ(load(), CacheOutcome::Miss);
  std::string good = readAll(cacheFile());
  // A byte of a name in the payload (a cache that decodes, to another State), the header's
  // document hash, the last byte (the checksum), and a truncation.
  std::size_t name = good.find("uplink bridge");
  ASSERT_NE(name, std::string::npos);
  for (std::size_t at : {name, std::size_t{30}, good.size() - 1}) {
    std::string bad = good;
    bad[at] ^= 0x20;
    writeAll(cacheFile(), bad);
    State state;
    EXPECT_NE(load(&state), CacheOutcome::Hit) << "byte " << at << " flipped";
    EXPECT_EQ(state.interfaces.at(0).description, "uplink bridge") << "byte " << at << " flipped";
    expectSame(state, State::parse(kEveryField));
    EXPECT_EQ(readAll(cacheFile()), good) << "the cache was not written again from the parse";
  }
  writeAll(cacheFile(), good.substr(0, good.size() / 2));
  State state;
  EXPECT_EQ(load(&state), CacheOutcome::Corrupt);
  expectSame(state, State::parse(kEveryField));
}

TEST_F(DocumentCache, ADirectoryOthersCanWriteIsNotUsed) {
  ASSERT_EQ(load(), CacheOutcome::Miss);
  ASSERT_EQ(::chmod(cache_.c_str(), 0777), 0);
  State state;
  EXPECT_EQ(load(&state), CacheOutcome::Unused);
  expectSame(state, State::parse(kEveryField));
}

TEST_F(DocumentCache, ABadDocumentIsAnErrorAndNotCached) {
  writeAll(document_, "interfaces:\n  - name: x\n    mtu: many\n");
  EXPECT_THROW(load(), Error);
  EXPECT_THROW(load(), Error);
  EXPECT_TRUE(fs::is_empty(cache_));
}

}  // namespace
}  // namespace fastlink::cli
