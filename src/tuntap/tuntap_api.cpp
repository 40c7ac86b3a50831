// TunTapApi: create with ioctls on /dev/net/tun (in the Netlink's namespace), read through
// rtnetlink's `tun` link info (src/rtnl/link_kinds/tun.cpp) with sysfs for what it lacks, delete
// with RTM_DELLINK.
#include <grp.h>
#include <linux/if_tun.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/tuntap.hpp"
#include "fastlink/types.hpp"
#include "tuntap/tun_file.hpp"

namespace fastlink {
namespace {

constexpr const char* kKind = "tun";

std::string describeAdd(const TunTapInfo& d) {
  std::string s = "tuntap add";
  if (!d.name.empty()) s += " dev " + d.name;
  if (d.mode) s += std::string(" mode ") + std::string(tunTapModeName(*d.mode));
  if (d.backpressure.value_or(false)) s += " backpressure";
  return s;
}

// A decimal id, or nullopt when `text` is not all digits. (uint32_t)-1 means "none" to the
// kernel, so it is not an id.
std::optional<uint32_t> parseId(std::string_view text) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v == UINT32_MAX) return std::nullopt;
  return v;
}

// The id of user or group `nameOrId` (a number, or a name for getpwnam_r / getgrnam_r to look
// up); `what` ("user", "group") names it in the error.
template <class Entry, class Id>
uint32_t nssId(std::string_view nameOrId, int (*lookUp)(const char*, Entry*, char*, std::size_t, Entry**),
               int bufferSize, Id Entry::*id, const std::string& what) {
  if (auto number = parseId(nameOrId)) return *number;
  std::string name(nameOrId);
  long size = sysconf(bufferSize);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  Entry entry{};
  Entry* found = nullptr;
  lookUp(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (!found) throw Error::invalidArgument("tuntap " + what, what + " \"" + name + "\" does not exist");
  return static_cast<uint32_t>(found->*id);
}

TunTapInfo fromLink(const LinkInfo& link) {
  TunTapInfo d;
  if (const auto* t = link.kindOptions<TunTapInfo>()) d = *t;
  d.name = link.name.value_or("");
  d.index = link.index;
  // The link info lacks one_queue and napi (and is missing before 4.15): sysfs has them when it
  // shows this very device.
  if (link.index && link.type) {
    std::string address = link.address ? link.address->toString() : "";
    if (auto s = tuntap::readSysfsTun(d.name, *link.index, *link.type, address)) tuntap::mergeSysfs(d, *s);
  }
  return d;
}

// The link of tun/tap device `name`; Error naming `operation` when there is none or it is another kind.
LinkInfo tunTapLink(ILinkApi& links, const std::string& name, const std::string& operation) {
  std::optional<LinkInfo> link = links.find(name);
  if (!link) throw Error(std::make_error_code(std::errc::no_such_device), operation, "Cannot find device \"" + name + "\"");
  if (link->kind != kKind)
    throw Error::invalidArgument(operation, "\"" + link->name.value_or("") + "\" is not a tun/tap device (type " +
                                                 link->kind.value_or("none") + ")");
  return std::move(*link);
}

}  // namespace

std::string_view tunTapModeName(TunTapMode mode) { return mode == TunTapMode::Tap ? "tap" : "tun"; }

TunTapInfo& TunTapInfo::setOwner(std::string_view nameOrId) {
  return setOwner(nssId(nameOrId, getpwnam_r, _SC_GETPW_R_SIZE_MAX, &passwd::pw_uid, "user"));
}

TunTapInfo& TunTapInfo::setGroup(std::string_view nameOrId) {
  return setGroup(nssId(nameOrId, getgrnam_r, _SC_GETGR_R_SIZE_MAX, &::group::gr_gid, "group"));
}

TunTapApi& Netlink::tuntap() { return lazy(tuntap_, links(), options_.netns); }

std::string TunTapApi::add(const TunTapInfo& device) {
  const std::string operation = describeAdd(device);
  if (!device.mode) throw Error::invalidArgument(operation, "a mode is needed (mode tun or mode tap)");
  if (!device.name.empty()) {
    try {
      validateIfname(device.name);
    } catch (const Error& e) {
      throw Error::invalidArgument(operation, e.reason());
    }
  }
  if (device.owner && *device.owner == UINT32_MAX) throw Error::invalidArgument(operation, "uid 4294967295 is not a user");
  if (device.group && *device.group == UINT32_MAX) throw Error::invalidArgument(operation, "gid 4294967295 is not a group");
  tuntap::TunFile file(netns_, false, operation);
  // tun ignores TUNSETIFF flags it does not know: ask before creating anything.
  if (device.backpressure.value_or(false))
    tuntap::requireFeatures(device, file.features(operation), tuntap::kernelRelease(), operation);
  // IFF_TUN_EXCL: fail on an existing name instead of attaching to that device.
  std::string name = file.setIff(device.name, tuntap::iffFlags(device) | IFF_TUN_EXCL, operation);
  // Until TUNSETPERSIST the device lives only as long as the file: any failure below leaves
  // nothing behind.
  if (device.owner) file.control(TUNSETOWNER, *device.owner, "TUNSETOWNER", operation);
  if (device.group) file.control(TUNSETGROUP, *device.group, "TUNSETGROUP", operation);
  file.control(TUNSETPERSIST, 1, "TUNSETPERSIST", operation);
  return name;
}

void TunTapApi::del(const std::string& name, std::optional<TunTapMode> mode) {
  std::string operation = "tuntap del dev " + name;
  if (mode) operation += std::string(" mode ") + std::string(tunTapModeName(*mode));
  validateIfname(name);
  LinkInfo link = tunTapLink(links_, name, operation);
  const auto* t = link.kindOptions<TunTapInfo>();
  if (mode && t && t->mode && *t->mode != *mode)
    throw Error::invalidArgument(operation, "\"" + name + "\" is a " + std::string(tunTapModeName(*t->mode)) +
                                                " device, not " + std::string(tunTapModeName(*mode)));
  // By index: the device checked above is the one deleted even if the name moves meanwhile.
  try {
    links_.del(Ifref(*link.index));
  } catch (const Error& e) {
    throw Error(e.code(), operation, e.extack(), e.extackOffset());
  }
}

std::vector<TunTapInfo> TunTapApi::list() {
  std::vector<TunTapInfo> out;
  links_.forEach(LinkFilter().setKind(kKind), [&](const LinkInfo& l) { out.push_back(fromLink(l)); },
                           [&] { out.clear(); });
  return out;
}

std::optional<TunTapInfo> TunTapApi::find(const std::string& name) {
  std::optional<LinkInfo> link = links_.find(name);
  if (!link || link->kind != kKind) return std::nullopt;
  return fromLink(*link);
}

TunTapInfo TunTapApi::get(const std::string& name) {
  return fromLink(tunTapLink(links_, name, "tuntap show dev " + name));
}

}  // namespace fastlink
