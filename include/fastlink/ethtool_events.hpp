// ethtool notifications as typed events: the kernel's ethtool family announces every change of
// a device's channels, rings, features, coalescing or FEC on its "monitor" multicast group, with
// the same attributes as the GET reply of that kind. An EthtoolEventStream decodes them into the
// objects of fastlink/ethtool.hpp (ChannelsInfo, RingsInfo, FeaturesInfo, CoalesceInfo,
// FecSettings).
//
//   fastlink::Netlink nl;
//   fastlink::EthtoolEventStream events(nl);                  // ethtool --monitor
//   pollfd p{events.fd(), POLLIN, 0};
//   while (poll(&p, 1, -1) > 0)
//     events.process([](const fastlink::EthtoolEvent& e) { ... e.channels() ... });
//
// A notification describes the whole object after the change (not what changed): a channels
// event carries every count and maximum, a features event every feature.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fastlink/ethtool.hpp"
#include "fastlink/subscription.hpp"

namespace fastlink {

class Netlink;

/// The notifications the library decodes (ETHTOOL_MSG_*_NTF). Others (link modes, pause, EEE,
/// ...) are not decoded: decodeEthtoolEvent returns std::nullopt for them.
enum class EthtoolEventKind : uint8_t { Channels, Rings, Features, Coalesce, Fec };

/// "channels", "rings", "features", "coalesce", "fec".
std::string_view ethtoolEventKindName(EthtoolEventKind kind);

/// One decoded ethtool notification.
struct EthtoolEvent {
  using Object = std::variant<std::monostate, ChannelsInfo, RingsInfo, FeaturesInfo, CoalesceInfo, FecSettings>;

  EthtoolEventKind kind = EthtoolEventKind::Channels;
  uint32_t ifindex = 0;  ///< the device (the notification's request header)
  std::string ifname;
  /// The sender namespace's id (SubscriptionOptions::allNamespaces); unset for our own.
  std::optional<int32_t> nsid;
  Object object;

  const ChannelsInfo* channels() const { return std::get_if<ChannelsInfo>(&object); }
  const RingsInfo* rings() const { return std::get_if<RingsInfo>(&object); }
  const FeaturesInfo* features() const { return std::get_if<FeaturesInfo>(&object); }
  const CoalesceInfo* coalesce() const { return std::get_if<CoalesceInfo>(&object); }
  /// The FEC settings after a change (no statistics: a notification carries none).
  const FecSettings* fec() const { return std::get_if<FecSettings>(&object); }
};

/// Decodes one notification of the ethtool family. std::nullopt for a kind it does not decode
/// (see EthtoolEventKind) or a message that is not a notification. Throws
/// Error(Errc::malformed_reply) on a malformed message.
/// Features notifications carry compact bitsets (bit numbers, no names): `featureNames` is the
/// kernel's feature string set (EthtoolApi::featureNames()); without it the event's FeaturesInfo
/// holds only the bits a verbose bitset named (none, from this kernel).
std::optional<EthtoolEvent> decodeEthtoolEvent(const Notification& notification,
                                               const std::vector<std::string>& featureNames = {});

/// A subscription to the ethtool family's "monitor" group that delivers typed events. No
/// thread: poll fd() and call process(), or call wait(). Overflow (the kernel dropped
/// notifications) calls `onOverflow` or, without one, throws Error(Errc::receive_overflow);
/// the stream stays usable either way.
class EthtoolEventStream {
 public:
  using EventHandler = std::function<void(const EthtoolEvent&)>;

  /// Resolves the "ethtool" family and its feature names. Throws Error(ENOENT) "generic netlink
  /// family "ethtool" not found: ..." on a kernel without ethtool netlink (CONFIG_ETHTOOL_NETLINK).
  /// Equivalent to: ethtool --monitor
  explicit EthtoolEventStream(Netlink& netlink, const SubscriptionOptions& options = {});

  int fd() const { return subscription_.fd(); }
  /// Delivers every event already queued, without blocking. Returns how many.
  std::size_t process(const EventHandler& onEvent, const std::function<void()>& onOverflow = {});
  /// Waits up to `timeout` for input, then delivers what is queued. Returns how many.
  std::size_t wait(const EventHandler& onEvent, std::chrono::milliseconds timeout,
                   const std::function<void()>& onOverflow = {});
  /// Waits without a time limit, then delivers what is queued. Returns how many; 0 after a
  /// signal or when only an overflow (or only undecoded kinds) came.
  std::size_t wait(const EventHandler& onEvent, const std::function<void()>& onOverflow = {});
  /// The underlying subscription (overflow count, raw access).
  Subscription& subscription() { return subscription_; }

 private:
  /// Reads the subscription with `read` (process, wait, or wait with a timeout), delivering
  /// the decoded events.
  using Read = std::function<std::size_t(Subscription&, const Subscription::Handlers&)>;
  std::size_t deliver(const EventHandler& onEvent, const std::function<void()>& onOverflow, const Read& read);

  std::vector<std::string> featureNames_;
  Subscription subscription_;
};

}  // namespace fastlink
