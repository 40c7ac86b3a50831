// ethtool notifications as typed events, from changes made with the `ethtool` program in a fresh
// namespace: veth (channels, features) on the host, netdevsim (rings, coalescing) in the VM.
// Oracle: what `ethtool -l/-k/-g/-c` prints after the change.
#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <unistd.h>

#include <fastlink/error.hpp>
#include <fastlink/ethtool_events.hpp>
#include <fastlink/fastlink.hpp>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "support/ethtool_text.hpp"
#include "support/netdevsim.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

/// `ethtool -k` text: kernel feature name -> on (the legacy group lines are in it too).
std::map<std::string, bool> parseFeatures(const std::string& text) {
  std::map<std::string, bool> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(": ");
    if (line.starts_with("Features for") || colon == std::string::npos) continue;
    std::size_t start = line.find_first_not_of('\t');
    out[line.substr(start, colon - start)] = line.compare(colon + 2, 2, "on") == 0;
  }
  return out;
}

/// `ethtool -c` text: "key: value" -> value.
std::map<std::string, std::string> parseColonLines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (auto colon = line.find(": "); colon != std::string::npos) out[line.substr(0, colon)] = line.substr(colon + 2);
  return out;
}

std::string opt(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "n/a"; }

class EthtoolEventTest : public ::testing::Test {
 protected:
  TestNetns ns;
  Netlink nl{NetlinkOptions{.netns = Netns::named(ns.name())}};

  void SetUp() override {
    if (ns.exec("command -v ethtool").status != 0) GTEST_SKIP() << "ethtool is not installed (scripts/setup)";
    ns.ip("link add va numtxqueues 4 numrxqueues 4 type veth peer name vb numtxqueues 4 numrxqueues 4");
  }

  std::string ethtool(const std::string& args) const {
    CommandResult r = ns.exec("ethtool " + args);
    EXPECT_EQ(r.status, 0) << "ethtool " << args << ": " << r.err;
    return r.out;
  }
  uint32_t ifindex(const std::string& dev) { return ns.ipJson("link show dev " + dev)[0]["ifindex"].get<uint32_t>(); }

  /// Reads events until none came for `quiet`.
  static std::vector<EthtoolEvent> drain(EthtoolEventStream& s, std::chrono::milliseconds quiet = 300ms) {
    std::vector<EthtoolEvent> out;
    while (s.wait([&](const EthtoolEvent& e) { out.push_back(e); }, quiet) > 0) {
    }
    return out;
  }
  static const EthtoolEvent* last(const std::vector<EthtoolEvent>& events, EthtoolEventKind kind,
                                  const std::string& dev) {
    const EthtoolEvent* found = nullptr;
    for (const auto& e : events)
      if (e.kind == kind && e.ifname == dev) found = &e;
    return found;
  }
};

TEST_F(EthtoolEventTest, ChannelsChangeArrivesWithEthtoolsValues) {
  EthtoolEventStream stream(nl);
  ethtool("-L va rx 2 tx 3");
  std::vector<EthtoolEvent> events = drain(stream);
  const EthtoolEvent* e = last(events, EthtoolEventKind::Channels, "va");
  ASSERT_NE(e, nullptr) << events.size() << " events, none about va's channels";
  EXPECT_EQ(e->ifindex, ifindex("va"));
  ASSERT_NE(e->channels(), nullptr);
  const ChannelsInfo& c = *e->channels();
  auto oracle = parseEthtoolSections(ethtool("-l va"));
  EXPECT_EQ(opt(c.rx), oracle.at({"cur", "RX"}));
  EXPECT_EQ(opt(c.tx), oracle.at({"cur", "TX"}));
  EXPECT_EQ(opt(c.rxMax), oracle.at({"max", "RX"}));
  EXPECT_EQ(opt(c.txMax), oracle.at({"max", "TX"}));
  EXPECT_EQ(opt(c.combined), oracle.at({"cur", "Combined"}));  // n/a on veth
  EXPECT_EQ(oracle.at({"cur", "RX"}), "2");
  EXPECT_EQ(oracle.at({"cur", "TX"}), "3");
  EXPECT_EQ(ethtoolEventKindName(e->kind), "channels");
}

TEST_F(EthtoolEventTest, FeaturesChangeArrivesNamedWithEthtoolsValues) {
  EthtoolEventStream stream(nl);
  ethtool("-K va rx-gro-list on");
  std::vector<EthtoolEvent> events = drain(stream);
  const EthtoolEvent* e = last(events, EthtoolEventKind::Features, "va");
  ASSERT_NE(e, nullptr) << events.size() << " events, none about va's features";
  ASSERT_NE(e->features(), nullptr);
  const FeaturesInfo& f = *e->features();
  // The compact bitsets of the notification are named from the kernel's feature strings.
  ASSERT_NE(f.find("rx-gro-list"), nullptr);
  EXPECT_TRUE(f.find("rx-gro-list")->active);
  std::map<std::string, bool> oracle = parseFeatures(ethtool("-k va"));
  std::size_t compared = 0;
  for (const Feature& x : f.features) {
    auto it = oracle.find(x.name);
    if (it == oracle.end()) continue;  // a single-member legacy group prints its long name only
    EXPECT_EQ(x.active, it->second) << x.name;
    ++compared;
  }
  EXPECT_GT(compared, 30u);
}

TEST_F(EthtoolEventTest, EachDeviceIsNamedAndOnlyChangesAreAnnounced) {
  EthtoolEventStream stream(nl);
  EXPECT_TRUE(drain(stream, 100ms).empty());  // nothing without a change
  ethtool("-L vb rx 1");
  ethtool("-K va rx-gro-list on");
  std::vector<EthtoolEvent> events = drain(stream);
  const EthtoolEvent* channels = last(events, EthtoolEventKind::Channels, "vb");
  ASSERT_NE(channels, nullptr);
  EXPECT_EQ(channels->ifindex, ifindex("vb"));
  EXPECT_EQ(opt(channels->channels()->rx), parseEthtoolSections(ethtool("-l vb")).at({"cur", "RX"}));
  EXPECT_EQ(last(events, EthtoolEventKind::Channels, "va"), nullptr);
  ASSERT_NE(last(events, EthtoolEventKind::Features, "va"), nullptr);
}

TEST_F(EthtoolEventTest, OverflowIsReportedAndTheStreamStaysUsable) {
  // The smallest receive buffer the kernel allows holds a couple of features notifications.
  SubscriptionOptions options;
  options.receiveBufferBytes = 1;
  EthtoolEventStream stream(nl, options);
  for (int i = 0; i < 50; ++i) nl.ethtool().setChannels("va", ChannelsInfo().setRx(1 + i % 4));
  int overflows = 0;
  stream.process([](const EthtoolEvent&) {}, [&] { ++overflows; });
  drain(stream, 50ms);
  EXPECT_GE(overflows, 1);
  EXPECT_GE(stream.subscription().overflows(), 1u);
  // Without a handler an overflow is thrown.
  for (int i = 0; i < 50; ++i) nl.ethtool().setChannels("va", ChannelsInfo().setRx(1 + i % 4));
  EXPECT_THROW(stream.process([](const EthtoolEvent&) {}), Error);
  // Still usable: the next change arrives.
  drain(stream, 50ms);
  ethtool("-L va rx 3");
  std::vector<EthtoolEvent> events = drain(stream);
  const EthtoolEvent* e = last(events, EthtoolEventKind::Channels, "va");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->channels()->rx, 3u);
}

TEST_F(EthtoolEventTest, NotificationsItDoesNotDecodeAreNullAndBadOnesThrow) {
  // A genl message (any family id, cmd, version 1) with no attribute.
  auto message = [](uint8_t cmd) {
    std::vector<uint8_t> m(NLMSG_HDRLEN + 4, 0);
    uint32_t len = static_cast<uint32_t>(m.size());
    std::memcpy(m.data(), &len, 4);
    uint16_t type = 0x20;
    std::memcpy(m.data() + 4, &type, 2);
    m[NLMSG_HDRLEN] = cmd;
    m[NLMSG_HDRLEN + 1] = 1;
    return m;
  };
  std::vector<uint8_t> linkModes = message(ETHTOOL_MSG_LINKMODES_NTF);
  EXPECT_FALSE(decodeEthtoolEvent(Notification{linkModes, std::nullopt}).has_value());
  std::vector<uint8_t> noHeader = message(ETHTOOL_MSG_CHANNELS_NTF);
  try {
    decodeEthtoolEvent(Notification{noHeader, std::nullopt});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), make_error_code(Errc::malformed_reply));
  }
  std::vector<uint8_t> tooShort = message(ETHTOOL_MSG_CHANNELS_NTF);
  tooShort.resize(17);
  uint32_t len = 17;
  std::memcpy(tooShort.data(), &len, 4);
  EXPECT_THROW(decodeEthtoolEvent(Notification{tooShort, std::nullopt}), Error);
}

/// netdevsim has rings and coalescing (veth has neither). The host kernel lacks the module; the
/// VM (tests/vm/run) builds it.
class EthtoolEventNetdevsim : public ::testing::Test {
 protected:
  TestNetns ns;
  std::unique_ptr<NetdevsimDevice> device;
  std::string dev;
  std::unique_ptr<Netlink> nl;

  void SetUp() override {
    if (!NetdevsimDevice::available()) GTEST_SKIP() << "kernel lacks module 'netdevsim': runs in the VM (tests/vm/run)";
    device = std::make_unique<NetdevsimDevice>(ns, 900 + static_cast<unsigned>(::getpid() % 90));
    dev = device->name();
    ASSERT_FALSE(dev.empty()) << "the netdevsim device did not appear in the namespace";
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
  }
  std::string ethtool(const std::string& args) const {
    CommandResult r = ns.exec("ethtool " + args);
    EXPECT_EQ(r.status, 0) << "ethtool " << args << ": " << r.err;
    return r.out;
  }
  const EthtoolEvent* last(const std::vector<EthtoolEvent>& events, EthtoolEventKind kind) const {
    const EthtoolEvent* found = nullptr;
    for (const auto& e : events)
      if (e.kind == kind && e.ifname == dev) found = &e;
    return found;
  }
};

TEST_F(EthtoolEventNetdevsim, RingsAndCoalesceChangesArriveWithEthtoolsValues) {
  EthtoolEventStream stream(*nl);
  ethtool("-G " + dev + " rx 512 tx 256");
  ethtool("-C " + dev + " rx-usecs 40 tx-frames 7");
  std::vector<EthtoolEvent> events;
  while (stream.wait([&](const EthtoolEvent& e) { events.push_back(e); }, 300ms) > 0) {
  }
  const EthtoolEvent* rings = last(events, EthtoolEventKind::Rings);
  ASSERT_NE(rings, nullptr);
  auto g = parseEthtoolSections(ethtool("-g " + dev));
  EXPECT_EQ(opt(rings->rings()->rx), g.at({"cur", "RX"}));
  EXPECT_EQ(opt(rings->rings()->tx), g.at({"cur", "TX"}));
  EXPECT_EQ(opt(rings->rings()->rxMax), g.at({"max", "RX"}));
  const EthtoolEvent* coalesce = last(events, EthtoolEventKind::Coalesce);
  ASSERT_NE(coalesce, nullptr);
  auto c = parseColonLines(ethtool("-c " + dev));
  EXPECT_EQ(opt(coalesce->coalesce()->rxUsecs), c.at("rx-usecs"));
  EXPECT_EQ(opt(coalesce->coalesce()->txMaxFrames), c.at("tx-frames"));
  EXPECT_EQ(c.at("rx-usecs"), "40");
}

// An FEC change (--set-fec) arrives as a Fec event with the encodings `ethtool --show-fec`
// reads back (netdevsim keeps what was set; no statistics in a notification).
TEST_F(EthtoolEventNetdevsim, FecChangeArrivesWithEthtoolsValues) {
  EthtoolEventStream stream(*nl);
  ethtool("--set-fec " + dev + " encoding baser rs");
  std::vector<EthtoolEvent> events;
  while (stream.wait([&](const EthtoolEvent& e) { events.push_back(e); }, 300ms) > 0) {
  }
  const EthtoolEvent* fec = last(events, EthtoolEventKind::Fec);
  ASSERT_NE(fec, nullptr);
  EXPECT_EQ(ethtoolEventKindName(fec->kind), "fec");
  // ethtool 6.1's words: the encodings in the kernel's link mode order, the active one alone.
  std::string shown = ethtool("--show-fec " + dev);
  EXPECT_NE(shown.find("Supported/Configured FEC encodings: RS BaseR\n"), std::string::npos) << shown;
  EXPECT_EQ(fec->fec()->modes, uint32_t{ETHTOOL_FEC_BASER | ETHTOOL_FEC_RS});
  EXPECT_EQ(fec->fec()->automatic, false);
  std::string active = fec->fec()->active == uint32_t{ETHTOOL_FEC_BASER} ? "BaseR" : fec->fec()->active == uint32_t{ETHTOOL_FEC_RS} ? "RS" : "?";
  EXPECT_NE(shown.find("Active FEC encoding: " + active + "\n"), std::string::npos) << shown;
  EXPECT_FALSE(fec->fec()->stats.has_value());
}

}  // namespace
}  // namespace fastlink::test
