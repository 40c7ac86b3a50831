// The device of a device ioctl (SIOCETHTOOL, the sit driver's SIOC*PRL): the ioctls take a name,
// the library's APIs an Ifref; shared by src/ethtool/ethtool.cpp and src/rtnl/tunnel_prl.cpp.
#pragma once

#include <net/if.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "fastlink/error.hpp"
#include "fastlink/types.hpp"

namespace fastlink::core {

/// `device`'s name: a name as given (checked), an ifindex looked up by SIOCGIFNAME on `fd` (a
/// socket of the namespace it is in); a failure is thrown with its errno and `operation`.
inline std::string ioctlDeviceName(int fd, const Ifref& device, const std::string& operation) {
  if (device.isName()) {
    validateIfname(device.name());
    return device.name();
  }
  ifreq request{};
  request.ifr_ifindex = static_cast<int>(device.index());
  if (::ioctl(fd, SIOCGIFNAME, &request) != 0) throw Error(std::error_code(errno, std::generic_category()), operation);
  return request.ifr_name;
}

}  // namespace fastlink::core
