// Generic netlink families (`genl ctrl list`): looking a family up by name, cached per Netlink.
//
// Generic netlink families (WireGuard, ethtool, netdev, ...) get their message type (the family
// id) from the kernel when their module registers them, so a client must ask the controller
// ("nlctrl") for the id before it can build a request. fastlink resolves a family the first time
// it is used and keeps the answer for the life of the Netlink: later lookups send nothing.
//
// Request builders stay free of I/O: they take a resolved `GenlFamily` value (name, id, version)
// and only encode. The API object resolves once, then builds and sends:
//
//   // In a family's API (e.g. src/ethtool/ethtool.cpp), families_ = the Netlink's families():
//   const GenlFamily& eth = families_.get("ethtool");           // first call: one round trip; then free
//   Request r = EthtoolRequests::getChannels(eth, "eth0");      // pure encoding, testable with a
//   engine_.execute(r);                                         // made-up GenlFamily{"ethtool", 0x15}
//
//   // A user who only wants to know whether a family is there:
//   fastlink::Netlink nl;
//   if (const GenlFamilyInfo* f = nl.families().find("wireguard"))
//     std::printf("wireguard is family %u\n", unsigned(f->id));
//
// A family that the kernel does not have is Error(ENOENT) with "generic netlink family
// \"NAME\" not found: is the module loaded?".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/request.hpp"

namespace fastlink {

/// A resolved generic netlink family: what a request builder needs to address it. A plain
/// value, so builders (and their golden tests) need no socket.
struct GenlFamily {
  std::string name;
  uint16_t id = 0;       ///< the message type of the family's requests, assigned by the kernel
  uint32_t version = 0;  ///< the family's protocol version as the kernel reports it

  friend bool operator==(const GenlFamily&, const GenlFamily&) = default;
};

/// Capability bits of a family's command (GenlOperation::flags), as `genl ctrl list` prints them.
inline constexpr uint32_t kGenlOpAdminPerm = 0x01;     ///< "requires admin permission"
inline constexpr uint32_t kGenlOpCanDo = 0x02;         ///< "can doit"
inline constexpr uint32_t kGenlOpCanDump = 0x04;       ///< "can dumpit"
inline constexpr uint32_t kGenlOpHasPolicy = 0x08;     ///< "has policy"
inline constexpr uint32_t kGenlOpUnsAdminPerm = 0x10;  ///< admin permission in the user namespace

/// One command a family supports.
struct GenlOperation {
  uint32_t id = 0;     ///< the command number (genl's "ID-0x3")
  uint32_t flags = 0;  ///< kGenlOp* bits

  bool canDo() const { return flags & kGenlOpCanDo; }
  bool canDump() const { return flags & kGenlOpCanDump; }
  bool hasPolicy() const { return flags & kGenlOpHasPolicy; }
  bool adminPerm() const { return flags & kGenlOpAdminPerm; }
  bool unsAdminPerm() const { return flags & kGenlOpUnsAdminPerm; }

  friend bool operator==(const GenlOperation&, const GenlOperation&) = default;
};

/// One multicast group of a family: subscribe to `id` to receive its notifications.
struct GenlGroup {
  std::string name;
  uint32_t id = 0;

  friend bool operator==(const GenlGroup&, const GenlGroup&) = default;
};

/// Everything the controller reports about a family (`genl ctrl get name NAME`). A
/// GenlFamilyInfo is a GenlFamily, so it can be handed to request builders directly.
struct GenlFamilyInfo : GenlFamily {
  uint32_t headerSize = 0;  ///< bytes of family header after the generic header (0 for most)
  uint32_t maxAttr = 0;     ///< highest attribute type the family accepts
  std::vector<GenlOperation> ops;
  std::vector<GenlGroup> groups;

  /// The multicast group `groupName` (its `id` is what to subscribe to), or nullptr.
  const GenlGroup* group(std::string_view groupName) const;
  /// The operation with command number `cmd`, or nullptr.
  const GenlOperation* op(uint32_t cmd) const;

  friend bool operator==(const GenlFamilyInfo&, const GenlFamilyInfo&) = default;
};

/// Builds controller requests without sending them (for tests and raw use).
struct GenlRequests {
  /// Equivalent to: genl ctrl get name NAME
  static Request getFamily(std::string_view name);
  /// Equivalent to: genl ctrl list (send it as a dump)
  static Request listFamilies();
};

/// The family lookups, as an interface so that users can mock them (GoogleMock).
class IGenlApi {
 public:
  virtual ~IGenlApi() = default;
  /// Every family the kernel has, in the kernel's order. Refreshes the cache of every family
  /// listed. Equivalent to: genl ctrl list
  virtual std::vector<GenlFamilyInfo> list() = 0;
  /// The family `name`, resolved on first use and cached: a later call sends nothing. The
  /// reference stays valid as long as the API (its Netlink) does; refresh() updates it in place
  /// (only a refresh() that finds the family gone drops the entry, and with it the reference).
  /// Throws Error(ENOENT) "generic netlink family "NAME" not found: is the module loaded?".
  /// Equivalent to: genl ctrl get name NAME
  virtual const GenlFamilyInfo& get(std::string_view name) = 0;
  /// Like get(), but nullptr when the kernel has no such family (a missing family is not
  /// cached: its module may be loaded later). Other failures still throw.
  virtual const GenlFamilyInfo* find(std::string_view name) = 0;
  /// Asks the kernel again even if `name` is cached (after its module was reloaded, its id may
  /// have changed). Throws like get(); on ENOENT the cached entry is dropped.
  virtual const GenlFamilyInfo& refresh(std::string_view name) = 0;
};

/// The kernel-backed IGenlApi over the Netlink's generic netlink socket. Obtain it from
/// Netlink::families(); family APIs (WireGuard, ethtool, netdev) share it, so one lookup serves all.
class GenlApi final : public IGenlApi {
 public:
  ~GenlApi() override;
  GenlApi(const GenlApi&) = delete;
  GenlApi& operator=(const GenlApi&) = delete;

  std::vector<GenlFamilyInfo> list() override;
  const GenlFamilyInfo& get(std::string_view name) override;
  const GenlFamilyInfo* find(std::string_view name) override;
  const GenlFamilyInfo& refresh(std::string_view name) override;

  /// Counters of the generic netlink socket (requests sent, ...): shows that a cached lookup
  /// sends nothing.
  const SocketCounters& counters() const;

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit GenlApi(core::Engine& engine);
  struct Cache;
  core::Engine& engine_;
  std::unique_ptr<Cache> cache_;
};

/// The base of every generic netlink family's API (EthtoolApi, NetdevApi, MptcpApi, WireGuard's
/// kernel backend): the Netlink's generic netlink socket and the family's name, resolved through
/// the Netlink's GenlApi on first use and cached there (one round trip per Netlink, shared by
/// every API of that family). A family's accessor builds it: `lazy(slot, families(),
/// genericEngine())`; nothing else reaches the engine.
class GenlFamilyApi {
 public:
  /// The resolved family (name, id, version, commands, groups): what request builders take.
  /// `operation` names the request that needed it in the error.
  const GenlFamilyInfo& family(const std::string& operation = {});
  /// The family, checked to have command `cmd`; otherwise EOPNOTSUPP "this kernel's NAME
  /// family has no COMMAND (Linux SINCE+)", before anything is encoded.
  const GenlFamilyInfo& familyWith(uint8_t cmd, const std::string& operation, std::string_view command,
                                   std::string_view sinceLinux);

 protected:
  /// `sinceLinux` ("6.3"): when the kernel has no such family, family() throws EOPNOTSUPP
  /// "this kernel has no NAME generic netlink family (Linux 6.3+)" instead of the lookup's
  /// ENOENT ("... is the module loaded?", right for a family a module provides).
  GenlFamilyApi(GenlApi& families, core::Engine& engine, std::string name, std::string sinceLinux = {});
  ~GenlFamilyApi() = default;
  GenlFamilyApi(const GenlFamilyApi&) = default;
  GenlFamilyApi& operator=(const GenlFamilyApi&) = delete;

  /// One request and its ACK; throws fastlink::Error.
  void execute(const Request& request);
  /// A request answered by one message, handed to `onReply`.
  void query(const Request& request, const std::function<void(const nlmsghdr*)>& onReply);
  /// The same, the reply decoded by `decode(const nlmsghdr*) -> Info`.
  template <class Info, class Decode>
  Info queryOne(const Request& request, Decode decode) {
    Info out;
    query(request, [&](const nlmsghdr* m) { out = decode(m); });
    return out;
  }
  /// A dump: every reply message to `onMessage`; `onRestart` before an interrupted dump restarts.
  void dump(const Request& request, const std::function<void(const nlmsghdr*)>& onMessage,
            const std::function<void()>& onRestart);
  /// The engine itself, for what the three above do not cover (pipelined batches, the fd).
  core::Engine& engine() const { return engine_; }
  GenlApi& families() const { return families_; }

 private:
  GenlApi& families_;
  core::Engine& engine_;
  std::string name_;
  std::string sinceLinux_;
};

}  // namespace fastlink
