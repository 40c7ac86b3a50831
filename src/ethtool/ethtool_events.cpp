// ethtool notifications: the GET-reply decoders of ethtool_codec.cpp applied to the *_NTF
// messages of the "monitor" group (a notification carries the attributes of its GET reply).
#include "fastlink/ethtool_events.hpp"

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>

#include <string>

#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "ethtool/ethtool_codec.hpp"
#include "genl/genl_message.hpp"

namespace fastlink {
namespace {

constexpr const char* kFamily = "ethtool";
constexpr const char* kMonitorGroup = "monitor";  // ETHTOOL_MCGRP_MONITOR_NAME

// Every *_NTF message starts with the same request header nest (attribute 1 of each kind:
// ETHTOOL_A_CHANNELS_HEADER, ETHTOOL_A_FEATURES_HEADER, ...), which names the device.
constexpr uint16_t kHeaderAttr = 1;
static_assert(ETHTOOL_A_CHANNELS_HEADER == kHeaderAttr && ETHTOOL_A_RINGS_HEADER == kHeaderAttr &&
              ETHTOOL_A_FEATURES_HEADER == kHeaderAttr && ETHTOOL_A_COALESCE_HEADER == kHeaderAttr &&
              ETHTOOL_A_FEC_HEADER == kHeaderAttr);

Error malformed(const std::string& why) {
  return Error(make_error_code(Errc::malformed_reply), "ethtool notification", why);
}

std::optional<EthtoolEventKind> kindOf(uint8_t cmd) {
  switch (cmd) {
    case ETHTOOL_MSG_CHANNELS_NTF: return EthtoolEventKind::Channels;
    case ETHTOOL_MSG_RINGS_NTF: return EthtoolEventKind::Rings;
    case ETHTOOL_MSG_FEATURES_NTF: return EthtoolEventKind::Features;
    case ETHTOOL_MSG_COALESCE_NTF: return EthtoolEventKind::Coalesce;
    case ETHTOOL_MSG_FEC_NTF: return EthtoolEventKind::Fec;
    default: return std::nullopt;
  }
}

void readDevice(const nlmsghdr* m, EthtoolEvent& out) {
  genl::GenlReply r = genl::decodeGenl(m, kHeaderAttr);
  const nlattr* header = r.attrs.get(kHeaderAttr);
  if (!header) throw malformed("no device header");
  core::AttrTable h = core::AttrTable::ofNest(header, ETHTOOL_A_HEADER_MAX);
  const nlattr* index = h.get(ETHTOOL_A_HEADER_DEV_INDEX);
  if (!index) throw malformed("device header without an ifindex");
  out.ifindex = core::readU32(index);
  if (const nlattr* name = h.get(ETHTOOL_A_HEADER_DEV_NAME)) out.ifname = core::readString(name);
}

void readObject(const nlmsghdr* m, EthtoolEvent& out, const std::vector<std::string>& featureNames) {
  switch (out.kind) {
    case EthtoolEventKind::Channels: out.object = genl::decodeChannels(m); return;
    case EthtoolEventKind::Rings: out.object = genl::decodeRings(m); return;
    case EthtoolEventKind::Features: out.object = genl::decodeFeatures(m, featureNames); return;
    case EthtoolEventKind::Coalesce: out.object = genl::decodeCoalesce(m); return;
    case EthtoolEventKind::Fec: out.object = genl::decodeFec(m); return;
  }
}

}  // namespace

std::string_view ethtoolEventKindName(EthtoolEventKind kind) {
  switch (kind) {
    case EthtoolEventKind::Channels: return "channels";
    case EthtoolEventKind::Rings: return "rings";
    case EthtoolEventKind::Features: return "features";
    case EthtoolEventKind::Coalesce: return "coalesce";
    case EthtoolEventKind::Fec: return "fec";
  }
  return "?";
}

std::optional<EthtoolEvent> decodeEthtoolEvent(const Notification& notification,
                                               const std::vector<std::string>& featureNames) {
  if (notification.bytes.size() < NLMSG_HDRLEN) return std::nullopt;
  const auto* m = reinterpret_cast<const nlmsghdr*>(notification.bytes.data());
  // Control messages (NLMSG_ERROR, NLMSG_DONE) are not notifications.
  if (m->nlmsg_type < NLMSG_MIN_TYPE) return std::nullopt;
  if (m->nlmsg_len > notification.bytes.size()) throw malformed("message longer than what was received");
  genl::GenlReply head = genl::decodeGenl(m, 0);  // throws on a message too short for its header
  std::optional<EthtoolEventKind> kind = kindOf(head.cmd);
  if (!kind) return std::nullopt;
  EthtoolEvent e;
  e.kind = *kind;
  e.nsid = notification.nsid;
  readDevice(m, e);
  readObject(m, e, featureNames);
  return e;
}

namespace {

Subscription subscribeMonitor(Netlink& netlink, const SubscriptionOptions& options) {
  const GenlFamilyInfo& family = netlink.families().get(kFamily);
  const GenlGroup* group = family.group(kMonitorGroup);
  if (!group)
    throw Error(std::make_error_code(std::errc::no_such_file_or_directory), "genl ctrl get name ethtool",
                "the ethtool family has no \"monitor\" multicast group");
  return netlink.subscribeGeneric({group->id}, options);
}

}  // namespace

// The family first (subscribeMonitor): on a kernel without ethtool netlink the error names the
// family, not the string set the feature names come from.
EthtoolEventStream::EthtoolEventStream(Netlink& netlink, const SubscriptionOptions& options)
    : subscription_(subscribeMonitor(netlink, options)) {
  // Read once: a features event names its bits from them (the kernel's list does not change
  // while it runs).
  featureNames_ = netlink.ethtool().featureNames();
}

std::size_t EthtoolEventStream::process(const EventHandler& onEvent, const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow, [](Subscription& s, const Subscription::Handlers& h) { return s.process(h); });
}

std::size_t EthtoolEventStream::wait(const EventHandler& onEvent, const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow, [](Subscription& s, const Subscription::Handlers& h) { return s.wait(h); });
}

std::size_t EthtoolEventStream::wait(const EventHandler& onEvent, std::chrono::milliseconds timeout,
                                     const std::function<void()>& onOverflow) {
  return deliver(onEvent, onOverflow,
                 [timeout](Subscription& s, const Subscription::Handlers& h) { return s.wait(h, timeout); });
}

std::size_t EthtoolEventStream::deliver(const EventHandler& onEvent, const std::function<void()>& onOverflow,
                                        const Read& read) {
  std::size_t delivered = 0;
  Subscription::Handlers handlers;
  handlers.onNotification = [&](const Notification& n) {
    std::optional<EthtoolEvent> e = decodeEthtoolEvent(n, featureNames_);
    if (!e) return;
    ++delivered;
    onEvent(*e);
  };
  handlers.onOverflow = onOverflow;
  read(subscription_, handlers);
  return delivered;
}

}  // namespace fastlink
