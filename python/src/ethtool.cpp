// ethtool over netlink (`ethtool -l/-L -g/-G -k/-K -c/-C -S --show-fec/--set-fec
// --show-tunnels`): ChannelsInfo, RingsInfo, CoalesceInfo, FecSettings, TunnelOffloadInfo,
// features as a {name: Feature} view and nl.ethtool.
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

#include "binding.hpp"
#include "fastlink/ethtool.hpp"

namespace fastlink::python {

namespace {

using PyEthtool = PyApi<fastlink::EthtoolApi, &fastlink::Netlink::ethtool>;

void bindEthtoolTypes(nb::module_& m) {
  using namespace fastlink;
  Fields<ChannelsInfo> channels(m, "ChannelsInfo", "Queue counts (`ethtool -l`); the *_max fields are reported only.");
  channels.rw("rx", &ChannelsInfo::rx)
      .rw("tx", &ChannelsInfo::tx)
      .rw("other", &ChannelsInfo::other)
      .rw("combined", &ChannelsInfo::combined)
      .ro("rx_max", &ChannelsInfo::rxMax)
      .ro("tx_max", &ChannelsInfo::txMax)
      .ro("other_max", &ChannelsInfo::otherMax)
      .ro("combined_max", &ChannelsInfo::combinedMax)
      .done();
  Fields<RingsInfo> rings(m, "RingsInfo", "Ring sizes (`ethtool -g`); the *_max fields are reported only.");
  rings.rw("rx", &RingsInfo::rx)
      .rw("rx_mini", &RingsInfo::rxMini)
      .rw("rx_jumbo", &RingsInfo::rxJumbo)
      .rw("tx", &RingsInfo::tx)
      .rw("rx_buf_len", &RingsInfo::rxBufLen)
      .rw("cqe_size", &RingsInfo::cqeSize)
      .rw("tx_push", &RingsInfo::txPush)
      .ro("rx_max", &RingsInfo::rxMax)
      .ro("rx_mini_max", &RingsInfo::rxMiniMax)
      .ro("rx_jumbo_max", &RingsInfo::rxJumboMax)
      .ro("tx_max", &RingsInfo::txMax)
      .done();
  Fields<CoalesceInfo> coalesce(m, "CoalesceInfo", "Interrupt coalescing (`ethtool -c`).");
  coalesce.rw("rx_usecs", &CoalesceInfo::rxUsecs)
      .rw("rx_max_frames", &CoalesceInfo::rxMaxFrames)
      .rw("tx_usecs", &CoalesceInfo::txUsecs)
      .rw("tx_max_frames", &CoalesceInfo::txMaxFrames)
      .rw("adaptive_rx", &CoalesceInfo::adaptiveRx)
      .rw("adaptive_tx", &CoalesceInfo::adaptiveTx)
      .rw("stats_block_usecs", &CoalesceInfo::statsBlockUsecs)
      .rw("rate_sample_interval", &CoalesceInfo::rateSampleInterval)
      .done();
  Fields<FecCounter> fecCounter(m, "FecCounter", "One FEC counter (`ethtool -I --show-fec`): the total and each lane's.");
  fecCounter.ro("total", &FecCounter::total).ro("lanes", &FecCounter::lanes, "per lane, when the driver counts so").done();
  Fields<FecStats> fecStats(m, "FecStats", "FEC statistics; a counter the driver does not keep is None.");
  fecStats.ro("corrected_blocks", &FecStats::correctedBlocks)
      .ro("uncorrectable_blocks", &FecStats::uncorrectableBlocks)
      .ro("corrected_bits", &FecStats::correctedBits)
      .done();
  Fields<FecSettings> fec(m, "FecSettings",
                          "Forward error correction (`ethtool --show-fec`); encodings are linux/ethtool.h's "
                          "ETHTOOL_FEC_* bits (OFF 4, RS 8, BASER 16, LLRS 32).");
  fec.rw("modes", &FecSettings::modes, "the configured encodings; on set the whole set")
      .rw("automatic", &FecSettings::automatic, "`auto`: the driver picks the encoding by the link")
      .ro("active", &FecSettings::active, "the encoding in use, one bit (reported only)")
      .ro("stats", &FecSettings::stats, "with statistics=True (reported only)")
      .done();
  Fields<UdpTunnelTable> udp(m, "UdpTunnelTable", "One UDP tunnel port table of a NIC (`ethtool --show-tunnels`).");
  udp.ro("size", &UdpTunnelTable::size)
      .ro("types", &UdpTunnelTable::types, "the tunnel types it takes ('vxlan', 'geneve', ...); [] : static entries")
      .ro("entries", &UdpTunnelTable::entries, "[(port, type), ...]")
      .done();
  Fields<TunnelOffloadInfo> tunnels(m, "TunnelOffloadInfo", "A device's tunnel offload information (`ethtool --show-tunnels`).");
  tunnels.ro("udp_tables", &TunnelOffloadInfo::udpTables).done();
  nb::class_<Feature>(m, "Feature", "One offload as `ethtool -k` shows it.")
      .def_ro("name", &Feature::name)
      .def_ro("active", &Feature::active, "on now")
      .def_ro("wanted", &Feature::wanted, "last requested")
      .def_prop_ro("fixed", &Feature::fixed, "cannot change ('[fixed]')")
      .def("__repr__", [](const Feature& f) {
        return "Feature(" + f.name + (f.active ? " on" : " off") + (f.fixed() ? " [fixed]" : "") + ")";
      });
}

/// {name: Feature} in the kernel's order (dicts keep insertion order).
nb::dict featureDict(const fastlink::FeaturesInfo& info) {
  nb::dict out;
  for (const auto& f : info.features) out[nb::str(f.name.c_str())] = nb::cast(f);
  return out;
}

}  // namespace

void bindEthtool(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  bindEthtoolTypes(m);
  nb::class_<PyEthtool>(m, "Ethtool", "Device settings over ethtool netlink: Netlink.ethtool.")
      .def("channels", [](PyEthtool& s, const Ifref& dev) { return unlocked([&] { return s.api().channels(dev); }); },
           "dev"_a, "ethtool -l DEV")
      .def("set_channels", [](PyEthtool& s, const Ifref& dev, const fastlink::ChannelsInfo& c) {
        unlocked([&] { s.api().setChannels(dev, c); });
      }, "dev"_a, "channels"_a, "ethtool -L DEV rx N tx N combined N (unset counts are not sent)")
      .def("rings", [](PyEthtool& s, const Ifref& dev) { return unlocked([&] { return s.api().rings(dev); }); },
           "dev"_a, "ethtool -g DEV")
      .def("set_rings", [](PyEthtool& s, const Ifref& dev, const fastlink::RingsInfo& r) {
        unlocked([&] { s.api().setRings(dev, r); });
      }, "dev"_a, "rings"_a, "ethtool -G DEV rx N tx N")
      .def("coalesce", [](PyEthtool& s, const Ifref& dev) { return unlocked([&] { return s.api().coalesce(dev); }); },
           "dev"_a, "ethtool -c DEV")
      .def("set_coalesce", [](PyEthtool& s, const Ifref& dev, const fastlink::CoalesceInfo& c) {
        unlocked([&] { s.api().setCoalesce(dev, c); });
      }, "dev"_a, "coalesce"_a, "ethtool -C DEV ...")
      .def("features", [](PyEthtool& s, const Ifref& dev) {
        fastlink::FeaturesInfo info = unlocked([&] { return s.api().features(dev); });
        return featureDict(info);
      }, "dev"_a, "ethtool -k DEV: {name: Feature} in the kernel's order")
      .def(
          "set_features",
          [](PyEthtool& s, const Ifref& dev, const std::map<std::string, bool>& wanted) {
            fastlink::FeatureChanges changes;
            for (const auto& [name, on] : wanted) changes.set(name, on);
            fastlink::FeaturesSetResult result = unlocked([&] { return s.api().setFeatures(dev, changes); });
            return result.unmet;
          },
          "dev"_a, "features"_a,
          "ethtool -K DEV NAME on|off ... ({'rx-gro-list': True}); returns the (name, value) pairs the kernel "
          "accepted but did not reach (fixed features, dependencies)")
      .def("driver_stats", [](PyEthtool& s, const Ifref& dev) {
        std::vector<fastlink::DriverStat> stats = unlocked([&] { return s.api().driverStats(dev); });
        nb::dict out;
        for (const auto& stat : stats) out[nb::str(stat.name.c_str())] = stat.value;
        return out;
      }, "dev"_a, "ethtool -S DEV: {name: value} in the driver's order")
      .def("fec", [](PyEthtool& s, const Ifref& dev, bool statistics) {
        return unlocked([&] { return s.api().fec(dev, statistics); });
      }, "dev"_a, "statistics"_a = false, "ethtool --show-fec DEV (statistics: ethtool -I --show-fec DEV)")
      .def("set_fec", [](PyEthtool& s, const Ifref& dev, const fastlink::FecSettings& fec) {
        unlocked([&] { s.api().setFec(dev, fec); });
      }, "dev"_a, "fec"_a, "ethtool --set-fec DEV encoding ... (modes and automatic; unset ones are not sent)")
      .def("tunnel_info", [](PyEthtool& s, const Ifref& dev) { return unlocked([&] { return s.api().tunnelInfo(dev); }); },
           "dev"_a, "ethtool --show-tunnels DEV");
  addApi<PyEthtool>(netlink, "ethtool");
}

}  // namespace fastlink::python
