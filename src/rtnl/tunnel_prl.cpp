// The potential router list of an ISATAP (sit) tunnel by the sit driver's private ioctls, made on
// the Netlink's rtnetlink socket so that its namespace applies (the kernel hands any socket's
// SIOCDEVPRIVATE range to the named device). No netlink message carries the list.
#include "fastlink/tunnel_prl.hpp"

// net/if.h before linux/if_tunnel.h: glibc's ifreq first, so that linux/if.h leaves it out.
#include <net/if.h>
#include <linux/if_tunnel.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/ioctl_device.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"

namespace fastlink {
namespace {

/// The request in ip's words, for errors: "ip tunnel prl prl-default 192.0.2.1 dev isatap0".
std::string operationOf(const char* word, const IpAddress& router, const Ifref& device) {
  return std::string("ip tunnel prl ") + word + " " + router.toString() + " dev " + device.toString();
}

/// One PRL ioctl carrying one entry; the errno of a refusal is thrown with `operation`.
void prlCall(core::Engine& engine, unsigned long command, const Ifref& device, const IpAddress& router, uint16_t flags,
             const std::string& operation) {
  if (!router.isV4()) throw Error::invalidArgument(operation, "a potential router is an IPv4 address, not " + router.toString());
  const int fd = engine.fd();
  const std::string name = core::ioctlDeviceName(fd, device, operation);
  ip_tunnel_prl entry{};
  std::memcpy(&entry.addr, router.bytes().data(), 4);  // already in network order
  entry.flags = flags;
  ifreq request{};
  name.copy(request.ifr_name, sizeof request.ifr_name - 1);
  request.ifr_data = reinterpret_cast<char*>(&entry);
  if (::ioctl(fd, command, &request) != 0) throw Error(std::error_code(errno, std::generic_category()), operation);
}

}  // namespace

void PrlApi::add(const Ifref& device, const IpAddress& router, bool isDefault) {
  prlCall(engine_, SIOCADDPRL, device, router, isDefault ? PRL_DEFAULT : 0,
          operationOf(isDefault ? "prl-default" : "prl-nodefault", router, device));
}

void PrlApi::change(const Ifref& device, const IpAddress& router, bool isDefault) {
  prlCall(engine_, SIOCCHGPRL, device, router, isDefault ? PRL_DEFAULT : 0,
          "potential router change " + router.toString() + (isDefault ? " default" : " nodefault") + " dev " +
              device.toString());
}

void PrlApi::remove(const Ifref& device, const IpAddress& router) {
  prlCall(engine_, SIOCDELPRL, device, router, 0, operationOf("prl-delete", router, device));
}

std::vector<PotentialRouter> PrlApi::list(const Ifref& device) {
  const std::string operation = "potential router list dev " + device.toString();
  const int fd = engine_.fd();
  const std::string name = core::ioctlDeviceName(fd, device, operation);
  // SIOCGETPRL fills the entries after the header it is given, as many as `datalen` bytes hold,
  // and writes the length it used back into datalen; a full buffer may mean more: ask again
  // with room for twice as many.
  for (std::size_t room = 16;; room *= 2) {
    std::vector<ip_tunnel_prl> buffer(room + 1);
    buffer[0].addr = 0;  // INADDR_ANY: every entry
    buffer[0].datalen = static_cast<uint32_t>(room * sizeof(ip_tunnel_prl));
    ifreq request{};
    name.copy(request.ifr_name, sizeof request.ifr_name - 1);
    request.ifr_data = reinterpret_cast<char*>(buffer.data());
    if (::ioctl(fd, SIOCGETPRL, &request) != 0) throw Error(std::error_code(errno, std::generic_category()), operation);
    const std::size_t count = std::min<std::size_t>(buffer[0].datalen / sizeof(ip_tunnel_prl), room);
    if (count == room && room < (1u << 16)) continue;
    std::vector<PotentialRouter> out;
    out.reserve(count);
    for (std::size_t i = 1; i <= count; ++i)
      out.push_back({IpAddress::fromBytes({reinterpret_cast<const uint8_t*>(&buffer[i].addr), 4}),
                     (buffer[i].flags & PRL_DEFAULT) != 0});
    return out;
  }
}

PrlApi& Netlink::potentialRouters() { return lazy(potentialRouters_); }

}  // namespace fastlink
