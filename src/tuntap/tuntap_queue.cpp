// TunTapQueue (one attached /dev/net/tun file) and TunTapApi's queue openers.
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/tuntap.hpp"
#include "tuntap/tun_file.hpp"

namespace fastlink {
namespace {

void setQueue(int fd, const std::string& device, short flag) {
  ifreq ifr{};
  ifr.ifr_flags = flag;
  if (ioctl(fd, TUNSETQUEUE, &ifr) < 0) {
    int err = errno;
    std::string what = flag == IFF_ATTACH_QUEUE ? "attach" : "detach";
    throw Error(std::error_code(err, std::generic_category()), "tuntap queue " + what + " dev " + device,
                err == EINVAL ? "cannot " + what + " this queue (not a multi_queue device, or already " + what + "ed)"
                              : "TUNSETQUEUE: " + std::string(std::strerror(err)));
  }
}

}  // namespace

TunTapQueue::~TunTapQueue() { close(); }

TunTapQueue::TunTapQueue(TunTapQueue&& other) noexcept
    : fd_(other.fd_), device_(std::move(other.device_)), attached_(other.attached_) {
  other.fd_ = -1;
}

TunTapQueue& TunTapQueue::operator=(TunTapQueue&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    device_ = std::move(other.device_);
    attached_ = other.attached_;
    other.fd_ = -1;
  }
  return *this;
}

void TunTapQueue::detach() {
  setQueue(fd_, device_, IFF_DETACH_QUEUE);
  attached_ = false;
}

void TunTapQueue::attach() {
  setQueue(fd_, device_, IFF_ATTACH_QUEUE);
  attached_ = true;
}

int TunTapQueue::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void TunTapQueue::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

TunTapQueue TunTapApi::openQueue(const std::string& name, const TunTapQueueOptions& options) {
  const std::string operation = "tuntap open queue dev " + name;
  TunTapInfo device = get(name);
  // The first queue of a device sets its pi/vnet_hdr/napi/backpressure features from TUNSETIFF's
  // flags (drivers/net/tun.c), so attach with the device's own flags to leave them as they are.
  // Backpressure is known only from sysfs (rtnetlink does not carry it): the caller may say.
  if (options.backpressure) device.backpressure = *options.backpressure;
  tuntap::TunFile file(netns_, options.nonBlocking, operation);
  file.setIff(name, tuntap::iffFlags(device), operation);
  return TunTapQueue(file.release(), name);
}

std::vector<TunTapQueue> TunTapApi::openQueues(const std::string& name, unsigned count, const TunTapQueueOptions& options) {
  if (count > 1) {
    TunTapInfo device = get(name);
    if (!device.multiQueue.value_or(false))
      throw Error::invalidArgument("tuntap open queue dev " + name,
                                   "\"" + name + "\" is a single-queue device: create it with multi_queue for more queues");
  }
  std::vector<TunTapQueue> queues;
  queues.reserve(count);
  for (unsigned i = 0; i < count; ++i) queues.push_back(openQueue(name, options));
  return queues;
}

}  // namespace fastlink
