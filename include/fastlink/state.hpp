// Declarative state (issue 26): a document that says what the host must look like (nmstate's
// keys and type names, YAML or JSON), the plan that gets it there (a diff against the kernel's
// dumps, in dependency order, sent as one pipelined batch), and the document of what a host is.
//
//   fastlink::State want = fastlink::State::load("host.yaml");  // throws Error naming the path
//   fastlink::Plan plan = fastlink::makePlan(nl, want);          // dumps + diff, sends nothing
//   std::cout << plan.toText();                                  // `fastlink apply --check`
//   fastlink::BatchResult r = fastlink::applyPlan(nl, plan);     // one batch, per-step results
//   fastlink::Plan rest = fastlink::makePlan(nl, want);          // verify: empty when applied
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/link.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"

namespace fastlink {

/// nmstate's interface `state:`.
enum class InterfaceAdmin : uint8_t { Up, Down, Absent };

/// `ipv4:` / `ipv6:` of an interface. `enabled: false` means no addresses of the family.
struct IpConfig {
  bool enabled = true;
  std::vector<Prefix> addresses;  ///< `address: [{ip, prefix-length}]`: the complete list
};

/// VLANs of one bridge port with the same flags: `first`..`last` (one VLAN when equal).
struct BridgeVlanRange {
  uint16_t first = 1;
  uint16_t last = 1;
  bool pvid = false;      ///< untagged frames arriving on the port get this VLAN (one per port)
  bool untagged = false;  ///< frames of this VLAN leave the port untagged
  bool operator==(const BridgeVlanRange&) const = default;
};

/// `bridge.port[].vlan` of a linux-bridge: the port's complete VLAN list. nmstate's keys (`mode:
/// access` with `tag`; `mode: trunk` with `trunk-tags` and `enable-native` + `tag`, the native
/// VLAN) are read into ranges; `fastlink-vlans` gives lists nmstate's keys cannot (a PVID that is
/// tagged, untagged VLANs beside the native one, none at all), as `show state` writes them.
struct BridgePortVlans {
  std::string port;
  std::vector<BridgeVlanRange> vlans;  ///< ascending, not overlapping
};

/// One entry of `interfaces:`. Unset optionals are keys the document did not give: in `merged`
/// mode they are left as the host has them.
struct InterfaceState {
  std::string path;  ///< where the entry is in the document ("interfaces[3]"), for errors
  std::string name;
  /// nmstate's type name: ethernet, loopback, linux-bridge, bond, vlan, vxlan, vrf, veth, dummy,
  /// mac-vlan; any other kernel kind (as `ip -d link` names it) for devices fastlink only changes.
  std::string type;
  InterfaceAdmin state = InterfaceAdmin::Up;
  std::optional<uint32_t> mtu;
  std::optional<MacAddress> macAddress;
  std::optional<std::string> description;  ///< the interface alias
  std::optional<std::string> controller;   ///< the master's name; "" = no master
  std::optional<uint32_t> group;           ///< `fastlink-group`: the interface group
  /// `fastlink-ifindex`: the index a device gets when it is created (not a veth: the kernel
  /// numbers its pair); ignored for a device that exists. Rollbacks recreate devices with it.
  std::optional<uint32_t> ifindex;
  std::optional<IpConfig> ipv4;
  std::optional<IpConfig> ipv6;
  /// The complete port list of a linux-bridge (`bridge.port`), bond (`link-aggregation.port`)
  /// or vrf (`vrf.port`).
  std::optional<std::vector<std::string>> ports;
  std::optional<bool> bridgeStp;  ///< `bridge.options.stp.enabled`
  /// `bridge.options.fastlink-vlan-filtering`; unset and a port with `vlan`: on (as nmstate).
  std::optional<bool> bridgeVlanFiltering;
  /// The ports of a linux-bridge whose `bridge.port[].vlan` is given (the others keep theirs).
  std::vector<BridgePortVlans> portVlans;
  std::optional<BondMode> bondMode;         ///< `link-aggregation.mode`
  std::optional<uint32_t> bondMiimon;       ///< `link-aggregation.options.miimon`
  std::optional<std::string> baseIface;     ///< vlan, vxlan, mac-vlan `base-iface`
  std::optional<uint16_t> vlanId;
  std::optional<uint32_t> vxlanId;
  std::optional<IpAddress> vxlanRemote;
  std::optional<IpAddress> vxlanLocal;
  std::optional<uint16_t> vxlanDstPort;
  std::optional<uint32_t> vrfTable;         ///< `vrf.route-table-id`
  std::optional<std::string> vethPeer;      ///< `veth.peer`
  std::optional<MacvlanMode> macvlanMode;   ///< `mac-vlan.mode`
};

/// One entry of `routes.config`.
struct RouteState {
  std::string path;
  Prefix destination;
  std::optional<IpAddress> nextHopAddress;
  std::optional<std::string> nextHopInterface;
  std::optional<uint32_t> metric;
  uint32_t table = 254;
  /// `fastlink-protocol` (a name from rt_protos or a number): the route's protocol, and only a
  /// route of it matches; unset: added as `fastlink-apply.route-protocol`, any matches. Journals
  /// and `show state` give it for routes that are not `static` (a routing daemon's, `boot`).
  std::optional<uint8_t> protocol;
  bool absent = false;  ///< `state: absent`: remove the routes that match the given fields
};

/// One entry of `route-rules.config`.
struct RuleState {
  std::string path;
  IpAddress::Family family = IpAddress::Family::v4;
  std::optional<Prefix> ipFrom;
  std::optional<Prefix> ipTo;
  std::optional<uint32_t> priority;
  std::optional<uint32_t> table;  ///< `route-table`
  std::optional<uint32_t> fwmark;
  std::optional<uint32_t> fwmask;
  bool absent = false;
};

/// How much of the host the document speaks for (`fastlink-apply: {mode: ...}`).
enum class ApplyMode : uint8_t {
  Merged,      ///< only the keys the document gives (default, as nmstate)
  Replaced,    ///< a named interface is exactly as written: no ipv4/ipv6 key = no addresses
  Overridden,  ///< also remove what fastlink owns and the document does not name
};

/// What fastlink owns in `overridden` mode (`fastlink-apply:` keys). Devices without a kind
/// (ethernet, loopback) are never removed.
struct Ownership {
  std::vector<std::string> interfaces{"*"};  ///< `owned-interfaces`: name globs
  std::vector<std::string> ignore;           ///< `ignore`: name globs never touched, in any mode
  uint8_t routeProtocol = 4;                 ///< `route-protocol`: routes fastlink adds and owns (static)
  std::vector<uint32_t> routeTables{254};    ///< `route-tables`: tables whose routes it owns
};

/// A parsed state document. Parsing checks everything that can be checked without the kernel
/// (types, ranges, duplicate names, ports of masters the document does not have, cyclic
/// masters, routes through missing devices); the errors name the path in the document.
struct State {
  std::vector<InterfaceState> interfaces;
  std::vector<RouteState> routes;
  std::vector<RuleState> rules;
  ApplyMode mode = ApplyMode::Merged;
  Ownership ownership;

  /// Parses YAML or JSON (JSON is YAML). `origin` names the source in errors. Throws
  /// fastlink::Error (EINVAL): "interfaces[3].vlan.id: expected an integer (in ORIGIN)".
  static State parse(std::string_view text, const std::string& origin = "document");
  /// Reads and parses a file; "-" reads standard input.
  static State load(const std::string& path);
  /// The text load() parses: the file's bytes ("-": standard input). Throws Error as load() does
  /// for a file that cannot be read (EISDIR for a directory).
  static std::string read(const std::string& path);

  /// The document as YAML (`fastlink show state --yaml`) or JSON (`-j`), in the shape parse reads.
  std::string toYaml() const;
  std::string toJson() const;

  const InterfaceState* findInterface(std::string_view name) const;
};

/// One change of a plan: what it is about, what it changes, and how its request is encoded.
struct PlanStep {
  enum class Action : uint8_t { Create, Change, Delete };
  Action action = Action::Change;
  std::string object;  ///< "interface br0", "address 10.0.0.1/24 dev br0", "route 10.1.0.0/16 table 254"
  std::string detail;  ///< what differs: "mtu 1500 -> 9000", "controller none -> br0"
  /// Encodes the request. Devices the plan creates get their ifindex while it runs, so the
  /// request is encoded when the batch sends it (makePlan has encoded each once already, with
  /// placeholder indexes, so bad input fails before anything is sent).
  std::function<Request()> encode;
};

/// The difference between a State and the host, in the order it must be applied: routes,
/// rules and addresses deleted first, then devices (ports before masters), then devices
/// created (masters and base devices before what uses them), changed and brought up, then
/// addresses, routes and rules added.
class Plan {
 public:
  std::vector<PlanStep> steps;
  /// steps[0, firstPart) (deletions, veth pairs) are sent first; then `resolve` looks up the
  /// indexes the kernel gave the new veths and numbers the other new devices above them; then
  /// the rest is sent. Both parts are pipelined batches.
  std::size_t firstPart = 0;
  std::function<void(Netlink&)> resolve;
  /// With makePlan(..., recordUndo = true) and a plan that changes something: the document that
  /// puts back what the plan changes, applied as any document (merged mode). Devices the plan
  /// creates are `state: absent`, routes and rules it adds are absent entries; every host device,
  /// route and rule it changes or deletes is there as it was (with what the kernel changes along:
  /// the other end of a deleted veth, the devices on a deleted one and its ports, the routes
  /// through a changed device). It plans to nothing on the host the plan started from, and from
  /// any state part of the way (the journal of an apply killed half-way, see Checkpoint).
  std::optional<State> undo;
  bool empty() const { return steps.empty(); }
  std::size_t size() const { return steps.size(); }
  /// One line per step: "+ interface br0: type linux-bridge", "~ interface v0: mtu 1500 -> 9000".
  std::string toText() const;
  /// The steps as JSON: [{"action":"create","object":...,"detail":...}] (with results when given).
  std::string toJson(const BatchResult* results = nullptr) const;
};

/// Dumps what the document involves (one dump per object class: links, addresses, and routes
/// and rules when the document has them or owns them) and returns the plan. Sends no change.
/// Throws fastlink::Error when the document cannot be applied to this host (a port of a device
/// that neither exists nor is created, a type that differs from the existing device's, ...).
Plan makePlan(Netlink& netlink, const State& want, bool recordUndo = false);

/// Sends the plan as one pipelined batch (stops at the first failure; every step has a result).
BatchResult applyPlan(Netlink& netlink, const Plan& plan, const ResultSink& sink = {});

/// The host as a state document: every device, its addresses (not the kernel's IPv6 link-local
/// ones), every route that is not the kernel's own (protocol kernel, table local, IPv6
/// multicast), the rules that are not the kernel's defaults.
/// `fastlink show state > f; fastlink apply f` changes nothing.
State captureState(Netlink& netlink);

/// The journal of the last apply in one network namespace (issue 26, step 4), in its own
/// directory: `undo.yaml` (Plan::undo, a state document `fastlink apply` also reads), `record`
/// (where the apply is: id, status, --confirm deadline, the file applied) and `lock` (flock: one
/// apply, commit or rollback at a time per namespace). Each file is written to a temporary
/// name, fsync'd and renamed, and the directory fsync'd, before the first change is sent: a
/// crash or SIGKILL at any point leaves either no journal or a whole one.
class Checkpoint {
 public:
  enum class Status : uint8_t {
    Applying,        ///< written before sending; still so: the apply was killed half-way
    Applied,         ///< sent and verified, no --confirm: `fastlink rollback` undoes it on demand
    AwaitingCommit,  ///< sent with --confirm: rolled back at the deadline unless committed
  };
  struct Record {
    std::string id;
    Status status = Status::Applying;
    std::optional<int64_t> deadlineMs;  ///< --confirm: Unix time (ms) of the automatic rollback
    std::string document;               ///< the file applied, for messages
  };

  /// An exclusive flock on the journal's lock file, released when destroyed (or the process dies).
  class Lock {
   public:
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Lock& operator=(Lock&&) = delete;
    ~Lock();

   private:
    int fd_;
  };

  explicit Checkpoint(std::string directory) : directory_(std::move(directory)) {}
  /// ROOT/netns-COOKIE: one journal per network namespace, named by its cookie (netnsCookie():
  /// never reused, where a freed namespace's inode goes to the next one, which would inherit
  /// a journal left behind).
  static Checkpoint forNamespace(const std::string& root, uint64_t netnsCookie);
  const std::string& directory() const { return directory_; }

  /// Takes the lock (creating the directory). wait = false: throws Error (EWOULDBLOCK,
  /// "another apply, commit or rollback runs in this namespace") when it is held.
  Lock lock(bool wait) const;
  /// The record; nullopt when there is no journal.
  std::optional<Record> record() const;
  /// The undo document. Throws Error when it cannot be read.
  State undo() const;
  /// Writes the undo document, then the record: from here on a rollback can restore.
  void begin(const State& undo, const Record& record) const;
  /// Replaces the record (status, deadline).
  void update(const Record& record) const;
  /// Removes the journal (commit, or after a rollback).
  void remove() const;

 private:
  std::string directory_;
};

}  // namespace fastlink
