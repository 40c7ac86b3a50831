// Namespace ids: RTM_GETNSID for each namespace named under /run/netns.
#include "fastlink/netns_ids.hpp"

#include <dirent.h>
#include <sys/socket.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/raw.hpp"

namespace fastlink {
namespace {

/// The names under /run/netns (ip's NETNS_RUN_DIR), in directory order.
std::vector<std::string> netnsNames() {
  std::vector<std::string> names;
  DIR* dir = opendir("/run/netns");
  if (!dir) return names;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  closedir(dir);
  return names;
}

/// The id the socket's namespace gives the namespace open as `fd`, if it has one: the kernel
/// answers NETNSA_NSID -1 (NETNSA_NSID_NOT_ASSIGNED) and assigns none.
std::optional<int32_t> nsidOf(RawApi& raw, int fd, const std::string& name) {
  RawMessage ask;
  ask.type = RTM_GETNSID;
  ask.header.assign(sizeof(rtgenmsg), 0);  // rtgen_family AF_UNSPEC
  uint32_t fdValue = static_cast<uint32_t>(fd);
  ask.attributes.append(NETNSA_FD, {reinterpret_cast<const uint8_t*>(&fdValue), sizeof fdValue});
  RawMessage reply = raw.query(ask, "netns id of " + name);
  auto id = reply.attributes.find(NETNSA_NSID);
  if (!id || id->payload.size() < sizeof(int32_t)) return std::nullopt;
  int32_t value;
  std::memcpy(&value, id->payload.data(), sizeof value);
  return value >= 0 ? std::optional(value) : std::nullopt;
}

}  // namespace

std::map<int32_t, std::string> namedNetnsIds(const std::optional<Netns>& ns) {
  std::map<int32_t, std::string> ids;
  std::vector<std::string> names = netnsNames();
  if (names.empty()) return ids;
  NetlinkOptions options;
  options.netns = ns;
  Netlink own(options);
  RawApi raw = own.raw(Protocol::Route);
  for (const std::string& name : names) {
    // A name that is no namespace (a bind mount left behind), or that we may not open, is
    // skipped, as ip skips it. Two names of one namespace: the last read wins, as in ip's map.
    try {
      auto named = NetnsHandle::open(Netns::named(name));
      if (auto id = nsidOf(raw, named->fd(), name)) ids.insert_or_assign(*id, name);
    } catch (const Error&) {
    }
  }
  return ids;
}

}  // namespace fastlink
