#include "tuntap/tun_file.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/netns_guard.hpp"
#include "core/whole_file.hpp"
#include "fastlink/error.hpp"

namespace fastlink::tuntap {
namespace {

Error ioctlError(int err, const std::string& operation, const std::string& sentence) {
  return Error(std::error_code(err, std::generic_category()), operation, sentence);
}

int openTun(bool nonBlocking) {
  return ::open("/dev/net/tun", O_RDWR | O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0));
}

// The first line, as getline reads it: nullopt for a file that cannot be read or is empty.
std::optional<std::string> readLine(const std::string& path) {
  std::optional<std::string> text = core::readWholeFile(path);
  if (!text || text->empty()) return std::nullopt;
  return text->substr(0, text->find('\n'));
}

// "-1" (no owner) or a number; nullopt for "-1".
std::optional<uint32_t> readId(const std::string& text) {
  long long v = std::stoll(text);
  if (v < 0) return std::nullopt;
  return static_cast<uint32_t>(v);
}

std::string fmtHex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "%#x", v);
  return text;
}

}  // namespace

TunFile::TunFile(const std::optional<Netns>& netns, bool nonBlocking, const std::string& operation) {
  {
    std::optional<core::NetnsGuard> guard;
    if (netns) guard.emplace(*netns);
    fd_ = openTun(nonBlocking);
  }
  if (fd_ < 0) {
    int err = errno;
    throw ioctlError(err, operation,
                     err == ENOENT ? "/dev/net/tun does not exist (is the tun module loaded?)"
                                   : std::string("cannot open /dev/net/tun: ") + std::strerror(err));
  }
}

TunFile::~TunFile() {
  if (fd_ >= 0) ::close(fd_);
}

int TunFile::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

std::string TunFile::setIff(const std::string& name, uint32_t flags, const std::string& operation) {
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, name.data(), std::min(name.size(), sizeof ifr.ifr_name - 1));
  // ifr_flags is a short; IFF_TUN_EXCL is its sign bit.
  ifr.ifr_flags = static_cast<short>(static_cast<uint16_t>(flags));
  if (ioctl(fd_, TUNSETIFF, &ifr) < 0) {
    int err = errno;
    std::string sentence;
    if (err == EBUSY && (flags & IFF_TUN_EXCL)) sentence = "device \"" + name + "\" already exists";
    else if (err == EBUSY) sentence = "\"" + name + "\" is busy: a single-queue device takes one queue";
    else if (err == EINVAL) sentence = "\"" + name + "\" exists with another mode or queue setting (Invalid argument)";
    else if (err == EPERM) sentence = "not permitted (needs CAP_NET_ADMIN, or the device's user or group)";
    else sentence = std::string("TUNSETIFF: ") + std::strerror(err);
    throw ioctlError(err, operation, sentence);
  }
  return std::string(ifr.ifr_name, strnlen(ifr.ifr_name, sizeof ifr.ifr_name));
}

uint32_t TunFile::features(const std::string& operation) {
  unsigned int features = 0;
  if (ioctl(fd_, TUNGETFEATURES, &features) < 0) {
    int err = errno;
    throw ioctlError(err, operation, std::string("TUNGETFEATURES: ") + std::strerror(err));
  }
  return features;
}

void TunFile::control(unsigned long request, unsigned long value, const char* what, const std::string& operation) {
  if (ioctl(fd_, request, value) < 0) {
    int err = errno;
    throw ioctlError(err, operation, std::string(what) + ": " + std::strerror(err));
  }
}

uint32_t iffFlags(const TunTapInfo& d) {
  uint32_t flags = d.mode == TunTapMode::Tap ? IFF_TAP : IFF_TUN;
  if (!d.pi.value_or(false)) flags |= IFF_NO_PI;
  if (d.vnetHdr.value_or(false)) flags |= IFF_VNET_HDR;
  if (d.multiQueue.value_or(false)) flags |= IFF_MULTI_QUEUE;
  if (d.oneQueue.value_or(false)) flags |= IFF_ONE_QUEUE;
  if (d.napi.value_or(false)) flags |= IFF_NAPI;
  if (d.napiFrags.value_or(false)) flags |= IFF_NAPI_FRAGS;
  if (d.backpressure.value_or(false)) flags |= kIffBackpressure;
  return flags;
}

void requireFeatures(const TunTapInfo& device, uint32_t features, const std::string& kernelRelease,
                     const std::string& operation) {
  if ((iffFlags(device) & kIffBackpressure) && !(features & kIffBackpressure))
    throw ioctlError(EOPNOTSUPP, operation,
                     "kernel " + kernelRelease +
                         " has no tun qdisc backpressure (IFF_BACKPRESSURE is not in its TUNGETFEATURES " +
                         fmtHex(features) + "); nothing was created");
}

std::string kernelRelease() {
  utsname u{};
  if (uname(&u) != 0) return "(unknown release)";
  return u.release;
}

std::optional<SysfsTun> readSysfsTun(const std::string& name, uint32_t index, uint16_t type,
                                     const std::string& address, const std::string& classNet) {
  const std::string dir = classNet + name + "/";
  auto ifindex = readLine(dir + "ifindex");
  auto linkType = readLine(dir + "type");
  auto sysAddress = readLine(dir + "address");
  auto flags = readLine(dir + "tun_flags");
  auto owner = readLine(dir + "owner");
  auto group = readLine(dir + "group");
  if (!ifindex || !linkType || !sysAddress || !flags || !owner || !group) return std::nullopt;
  try {
    if (std::stoul(*ifindex) != index || std::stoul(*linkType) != type || *sysAddress != address) return std::nullopt;
    SysfsTun s;
    s.flags = static_cast<uint32_t>(std::stoul(*flags, nullptr, 16));
    s.owner = readId(*owner);
    s.group = readId(*group);
    return s;
  } catch (const std::exception&) {
    return std::nullopt;  // not what a tun device's sysfs looks like
  }
}

void mergeSysfs(TunTapInfo& d, const SysfsTun& s) {
  auto fill = [](std::optional<bool>& field, bool value) {
    if (!field) field = value;
  };
  if (!d.mode) d.mode = (s.flags & IFF_TAP) ? TunTapMode::Tap : TunTapMode::Tun;
  fill(d.pi, !(s.flags & IFF_NO_PI));
  fill(d.vnetHdr, s.flags & IFF_VNET_HDR);
  fill(d.multiQueue, s.flags & IFF_MULTI_QUEUE);
  fill(d.persist, s.flags & IFF_PERSIST);
  d.oneQueue = (s.flags & IFF_ONE_QUEUE) != 0;
  d.napi = (s.flags & IFF_NAPI) != 0;
  d.napiFrags = (s.flags & IFF_NAPI_FRAGS) != 0;
  d.backpressure = (s.flags & kIffBackpressure) != 0;
  constexpr uint32_t kNamed = IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE | IFF_PERSIST |
                              IFF_ONE_QUEUE | IFF_NAPI | IFF_NAPI_FRAGS | kIffBackpressure;
  if (s.flags & ~kNamed) d.otherFlags = s.flags & ~kNamed;
  if (!d.owner) d.owner = s.owner;
  if (!d.group) d.group = s.group;
  d.fromSysfs = true;
}

}  // namespace fastlink::tuntap
