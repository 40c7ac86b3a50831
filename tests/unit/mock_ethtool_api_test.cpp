// Code that uses ethtool settings is tested without root through IEthtoolApi: here, a "spread
// the queues" helper written against the interface, checked with a GoogleMock implementation.
// MockEthtoolApi is complete (every virtual of IEthtoolApi); copy it into your own tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fastlink/error.hpp"
#include "fastlink/ethtool.hpp"

namespace {

using fastlink::ChannelsInfo;
using fastlink::CoalesceInfo;
using fastlink::FeatureChanges;
using fastlink::FeaturesInfo;
using fastlink::FeaturesSetResult;
using fastlink::IEthtoolApi;
using fastlink::Ifref;
using fastlink::RingsInfo;
using fastlink::StatsGroup;
using ::testing::_;
using ::testing::Field;
using ::testing::Optional;
using ::testing::Return;
using ::testing::Throw;

class MockEthtoolApi : public IEthtoolApi {
 public:
  MOCK_METHOD(ChannelsInfo, channels, (const Ifref& device), (override));
  MOCK_METHOD(void, setChannels, (const Ifref& device, const ChannelsInfo& channels), (override));
  MOCK_METHOD(RingsInfo, rings, (const Ifref& device), (override));
  MOCK_METHOD(void, setRings, (const Ifref& device, const RingsInfo& rings), (override));
  MOCK_METHOD(FeaturesInfo, features, (const Ifref& device), (override));
  MOCK_METHOD(FeaturesSetResult, setFeatures, (const Ifref& device, const FeatureChanges& changes), (override));
  MOCK_METHOD(CoalesceInfo, coalesce, (const Ifref& device), (override));
  MOCK_METHOD(void, setCoalesce, (const Ifref& device, const CoalesceInfo& coalesce), (override));
  MOCK_METHOD(std::vector<StatsGroup>, stats, (const Ifref& device), (override));
  MOCK_METHOD(std::vector<fastlink::DriverStat>, driverStats, (const Ifref& device), (override));
  MOCK_METHOD(fastlink::LinkSettings, linkSettings, (const Ifref& device), (override));
  MOCK_METHOD(void, setLinkModes, (const Ifref& device, const fastlink::LinkModesInfo& modes), (override));
  MOCK_METHOD(void, setLinkInfo, (const Ifref& device, const fastlink::LinkInfoSettings& info), (override));
  MOCK_METHOD(void, setWol, (const Ifref& device, const fastlink::WolInfo& wol), (override));
  MOCK_METHOD(void, setDebug, (const Ifref& device, const fastlink::DebugInfo& debug), (override));
  MOCK_METHOD(fastlink::PauseInfo, pause, (const Ifref& device, bool statistics), (override));
  MOCK_METHOD(void, setPause, (const Ifref& device, const fastlink::PauseInfo& pause), (override));
  MOCK_METHOD(fastlink::TsInfo, tsInfo, (const Ifref& device), (override));
  MOCK_METHOD(fastlink::FecSettings, fec, (const Ifref& device, bool statistics), (override));
  MOCK_METHOD(void, setFec, (const Ifref& device, const fastlink::FecSettings& fec), (override));
  MOCK_METHOD(fastlink::TunnelOffloadInfo, tunnelInfo, (const Ifref& device), (override));
  MOCK_METHOD(fastlink::DriverInfo, driverInfo, (const Ifref& device), (override));
};

/// The application code under test: as many queues as `cpus`, capped at what the device has,
/// combined channels when it has them, else rx/tx. Returns the count used.
uint32_t spreadQueues(IEthtoolApi& et, const std::string& dev, uint32_t cpus) {
  ChannelsInfo now = et.channels(dev);
  ChannelsInfo want;
  if (now.combinedMax) {
    want.setCombined(std::min(cpus, *now.combinedMax));
    et.setChannels(dev, want);
    return *want.combined;
  }
  uint32_t n = std::min({cpus, now.rxMax.value_or(1), now.txMax.value_or(1)});
  et.setChannels(dev, want.setRx(n).setTx(n));
  return n;
}

TEST(MockEthtoolApi, CombinedWhenTheDeviceHasThem) {
  MockEthtoolApi et;
  ChannelsInfo nic;
  nic.combinedMax = 8;
  nic.combined = 1;
  EXPECT_CALL(et, channels(Ifref("eth0"))).WillOnce(Return(nic));
  EXPECT_CALL(et, setChannels(Ifref("eth0"), Field(&ChannelsInfo::combined, Optional(4u))));
  EXPECT_EQ(spreadQueues(et, "eth0", 4), 4u);
}

TEST(MockEthtoolApi, SeparateRxTxCappedAtTheMaximum) {
  MockEthtoolApi et;
  ChannelsInfo veth;
  veth.rxMax = 4;
  veth.txMax = 2;
  EXPECT_CALL(et, channels(_)).WillOnce(Return(veth));
  EXPECT_CALL(et, setChannels(_, ChannelsInfo().setRx(2).setTx(2)));
  EXPECT_EQ(spreadQueues(et, "v0", 16), 2u);
}

TEST(MockEthtoolApi, KernelRefusalPropagates) {
  MockEthtoolApi et;
  EXPECT_CALL(et, channels(_))
      .WillOnce(Throw(fastlink::Error(std::make_error_code(std::errc::no_such_device), "ethtool -l nope",
                                      "no device matches name")));
  try {
    spreadQueues(et, "nope", 4);
    FAIL() << "no error";
  } catch (const fastlink::Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_device);
    EXPECT_EQ(e.extack(), "no device matches name");
  }
}

}  // namespace
