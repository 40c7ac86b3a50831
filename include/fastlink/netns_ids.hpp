// Namespace ids (nsids): the numbers by which one network namespace knows another, as links
// report them (LinkInfo::linkNetnsId, `link-netnsid N`), and the API that reads and assigns them
// (RTM_GETNSID, RTM_NEWNSID; the kernel reports a freed id as RTM_DELNSID).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/netns.hpp"
#include "fastlink/request.hpp"

namespace fastlink {

/// One id the asking namespace (or the target of a `targetNsid` dump) has given another.
struct NsidInfo {
  static constexpr int32_t kNotAssigned = -1;  ///< NETNSA_NSID_NOT_ASSIGNED
  int32_t nsid = kNotAssigned;                 ///< NETNSA_NSID
  /// NETNSA_CURRENT_NSID: in a dump with a target, the id the *asking* namespace has in the
  /// namespace the nsid points to (ip's `current-nsid`); unassigned = kNotAssigned.
  std::optional<int32_t> currentNsid;
  bool deleted = false;  ///< an RTM_DELNSID notification (monitor): the id was freed
  friend bool operator==(const NsidInfo&, const NsidInfo&) = default;
};

/// Which ids a list shows: with targetNsid, the ids known to the namespace that *this* one
/// calls targetNsid, each with the asker's own id there (currentNsid).
struct NsidFilter {
  std::optional<int32_t> targetNsid;
};

/// The requests, for batches and golden tests.
struct NetnsIdRequests {
  /// RTM_NEWNSID: give the namespace open as `fd` (pid 0) or of process `pid` the id `nsid`;
  /// NsidInfo::kNotAssigned lets the kernel choose the lowest free one. `name` describes it.
  /// Equivalent to: ip netns set NAME NSID|auto
  static Request set(int fd, pid_t pid, int32_t nsid, const std::string& name);
  /// RTM_GETNSID by NETNSA_FD (pid 0) or NETNSA_PID. Equivalent to: ip netns list (its `(id: N)`)
  static Request get(int fd, pid_t pid, const std::string& name);
  /// RTM_GETNSID by id, optionally in the target's view. Equivalent to: ip netns list-id nsid N
  static Request find(int32_t nsid, std::optional<int32_t> targetNsid);
  /// RTM_GETNSID dump. Equivalent to: ip netns list-id [target-nsid N]
  static Request list(const NsidFilter& filter);
};

/// nsids of one namespace (the Netlink's): `nl.netns()`.
class NetnsApi {
 public:
  /// The id this namespace gives `target` (by name, path, fd or pid), or nullopt when it has none;
  /// asking assigns none. Throws Error when `target` cannot be opened.
  /// Equivalent to: ip netns list (the `(id: N)` after NAME)
  std::optional<int32_t> id(const Netns& target);
  /// Gives `target` the id `nsid` (nullopt: the kernel picks the lowest free id). An id is set
  /// once: a namespace that has one, or an id already taken, is refused (EEXIST).
  /// Equivalent to: ip netns set NAME NSID|auto
  void setId(const Netns& target, std::optional<int32_t> nsid);
  /// Every id this namespace (or, with filter.targetNsid, the namespace it calls so) has given.
  /// Equivalent to: ip netns list-id [target-nsid N]
  std::vector<NsidInfo> list(const NsidFilter& filter = {});
  /// The one id `nsid`, in the view of `targetNsid`; throws Error (ENOENT, "Peer netns
  /// reference is invalid") when no namespace has it.
  /// Equivalent to: ip netns list-id [target-nsid T] nsid N
  NsidInfo find(int32_t nsid, std::optional<int32_t> targetNsid = std::nullopt);

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit NetnsApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

/// The namespaces named under /run/netns that namespace `ns` (empty: the calling thread's) knows
/// by an id (nsid -> name): the names a link's linkNetnsId stands for. Asks over a socket of its
/// own (so it may be called while another socket's dump is being read). Asking assigns no id; a
/// name without an id, or whose file cannot be opened, is left out.
/// Equivalent to: ip netns list-id (the names `ip link show` prints as `link-netns NAME`)
std::map<int32_t, std::string> namedNetnsIds(const std::optional<Netns>& ns = std::nullopt);

}  // namespace fastlink
