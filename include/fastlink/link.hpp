// Network devices: typed LinkInfo, the mockable ILinkApi, and request builders for batches.
#pragma once

#include <concepts>
#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastlink/netns.hpp"
#include "fastlink/raw_attributes.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
#include "fastlink/xdp_status.hpp"
#include "fastlink/view_run.hpp"

namespace fastlink {

class LinkView;

/// Interface counters (the kernel's 64-bit link statistics).
struct LinkStats {
  uint64_t rxPackets = 0, txPackets = 0, rxBytes = 0, txBytes = 0;
  uint64_t rxErrors = 0, txErrors = 0, rxDropped = 0, txDropped = 0;
  uint64_t multicast = 0, collisions = 0;
  uint64_t rxLengthErrors = 0, rxOverErrors = 0, rxCrcErrors = 0, rxFrameErrors = 0;
  uint64_t rxFifoErrors = 0, rxMissedErrors = 0;
  uint64_t txAbortedErrors = 0, txCarrierErrors = 0, txFifoErrors = 0, txHeartbeatErrors = 0,
           txWindowErrors = 0;
  uint64_t rxCompressed = 0, txCompressed = 0, rxNohandler = 0;
};

// ---- Per-kind options (`ip link add ... type KIND <options>`) -------------------------------

struct VethInfo {
  std::optional<std::string> peerName;
  std::optional<Netns> peerNetns;
  std::optional<MacAddress> peerAddress;
  /// The peer's own MTU, transmit queue length and queue counts (`peer name P mtu N txqlen N
  /// numtxqueues N numrxqueues N`); unset: the kernel's defaults, not the device's.
  std::optional<uint32_t> peerMtu, peerTxqlen, peerNumTxQueues, peerNumRxQueues;
  /// The peer's broadcast address, GSO/GRO limits and group (`broadcast LLADDR gso_max_size N
  /// gso_max_segs N gro_max_size N group G`): what the kernel sets on a new device from these.
  std::optional<MacAddress> peerBroadcast;
  std::optional<uint32_t> peerGsoMaxSize, peerGsoMaxSegs, peerGroMaxSize, peerGroup;
  VethInfo& setPeerName(std::string v) { peerName = std::move(v); return *this; }
  VethInfo& setPeerNetns(Netns v) { peerNetns = std::move(v); return *this; }
  VethInfo& setPeerAddress(MacAddress v) { peerAddress = v; return *this; }
  VethInfo& setPeerMtu(uint32_t v) { peerMtu = v; return *this; }
  VethInfo& setPeerTxqlen(uint32_t v) { peerTxqlen = v; return *this; }
  VethInfo& setPeerQueues(uint32_t tx, uint32_t rx) { peerNumTxQueues = tx; peerNumRxQueues = rx; return *this; }
};

/// A spanning-tree bridge identifier: priority and MAC address (`ip -d` prints it as
/// "8000.aa:bb:cc:dd:ee:ff").
struct BridgeId {
  uint16_t priority = 0;
  MacAddress address;
};

/// What the kernel reports about a bridge beyond the options BridgeInfo sets. **Reported only:**
/// filled by get/list/forEach, never sent (LinkRequests and LinkApi ignore it, also when a
/// decoded BridgeInfo is passed back to set). Two kinds of values:
///   - the kernel's read-only STP state: ids, root port and cost, topology flags, and the running
///     timers (which tick: two reads a moment apart differ);
///   - tunables the kernel lets `ip link set ... type bridge` change (multicast, VLAN statistics,
///     netfilter hooks, group address) that fastlink reports but does not set (yet).
/// A value the kernel did not send (e.g. the VLAN ones without CONFIG_BRIDGE_VLAN_FILTERING)
/// stays unset. Times are in centiseconds (USER_HZ ticks), as the kernel and iproute2 give them.
struct BridgeState {
  // Spanning tree (read-only).
  std::optional<BridgeId> bridgeId;          ///< this bridge's id (`bridge_id`)
  std::optional<BridgeId> rootId;            ///< the root bridge's id (`designated_root`)
  std::optional<uint16_t> rootPort;          ///< port number towards the root; 0 = this is the root
  std::optional<uint32_t> rootPathCost;
  std::optional<bool> topologyChange;
  std::optional<bool> topologyChangeDetected;
  std::optional<uint64_t> helloTimer;           ///< centiseconds left; 0 = not running
  std::optional<uint64_t> tcnTimer;             ///< centiseconds left
  std::optional<uint64_t> topologyChangeTimer;  ///< centiseconds left
  std::optional<uint64_t> gcTimer;              ///< centiseconds until the next FDB garbage collection
  // VLAN tunables (reported only by kernels with bridge VLAN filtering).
  std::optional<uint16_t> vlanProtocol;      ///< EtherType, host order: 0x8100 (802.1Q) or 0x88a8 (802.1ad)
  std::optional<bool> vlanStatsEnabled;
  std::optional<bool> vlanStatsPerPort;
  // Link-local forwarding.
  std::optional<uint16_t> groupFwdMask;      ///< which 01:80:c2:00:00:0X groups are forwarded (bit X)
  std::optional<MacAddress> groupAddress;    ///< the STP group address
  // Multicast snooping tunables.
  std::optional<bool> mcastVlanSnooping;
  std::optional<uint8_t> mcastRouter;        ///< 0 disabled, 1 learn (default), 2 permanent
  std::optional<bool> mcastQueryUseIfaddr;
  std::optional<bool> mcastQuerier;
  std::optional<uint32_t> mcastHashElasticity;
  std::optional<uint32_t> mcastHashMax;
  std::optional<uint32_t> mcastLastMemberCount;
  std::optional<uint32_t> mcastStartupQueryCount;
  std::optional<uint64_t> mcastLastMemberInterval;     ///< centiseconds
  std::optional<uint64_t> mcastMembershipInterval;     ///< centiseconds
  std::optional<uint64_t> mcastQuerierInterval;        ///< centiseconds
  std::optional<uint64_t> mcastQueryInterval;          ///< centiseconds
  std::optional<uint64_t> mcastQueryResponseInterval;  ///< centiseconds
  std::optional<uint64_t> mcastStartupQueryInterval;   ///< centiseconds
  std::optional<bool> mcastStatsEnabled;
  std::optional<uint8_t> mcastIgmpVersion;
  std::optional<uint8_t> mcastMldVersion;
  // Netfilter hooks on bridged traffic (with br_netfilter).
  std::optional<bool> nfCallIptables;
  std::optional<bool> nfCallIp6tables;
  std::optional<bool> nfCallArptables;
};

/// Bridge options (`ip link add ... type bridge ...`). The optional fields are sent when set;
/// `state` is what the kernel reports beyond them and is never sent.
struct BridgeInfo {
  std::optional<bool> vlanFiltering;
  std::optional<uint16_t> vlanDefaultPvid;  ///< 0 = no PVID for new ports
  std::optional<uint32_t> stpState;         ///< 0 off, 1 on
  std::optional<uint32_t> ageingTime;       ///< centiseconds, as in iproute2
  std::optional<bool> noLinklocalLearn;
  std::optional<uint32_t> forwardDelay;  ///< centiseconds, as in iproute2
  std::optional<uint32_t> helloTime;     ///< centiseconds
  std::optional<uint32_t> maxAge;        ///< centiseconds
  std::optional<uint16_t> priority;      ///< STP bridge priority
  std::optional<bool> mcastSnooping;
  /// Reported only (see BridgeState): filled by a dump, ignored when sent.
  std::optional<BridgeState> state;
  BridgeInfo& setVlanFiltering(bool v) { vlanFiltering = v; return *this; }
  BridgeInfo& setVlanDefaultPvid(uint16_t v) { vlanDefaultPvid = v; return *this; }
  BridgeInfo& setStpState(uint32_t v) { stpState = v; return *this; }
  BridgeInfo& setAgeingTime(uint32_t v) { ageingTime = v; return *this; }
  BridgeInfo& setNoLinklocalLearn(bool v) { noLinklocalLearn = v; return *this; }
  BridgeInfo& setForwardDelay(uint32_t v) { forwardDelay = v; return *this; }
  BridgeInfo& setHelloTime(uint32_t v) { helloTime = v; return *this; }
  BridgeInfo& setMaxAge(uint32_t v) { maxAge = v; return *this; }
  BridgeInfo& setPriority(uint16_t v) { priority = v; return *this; }
  BridgeInfo& setMcastSnooping(bool v) { mcastSnooping = v; return *this; }
};

/// A bridge port's spanning-tree state (BR_STATE_*). A value past Blocking (a future kernel's)
/// is kept as its number.
enum class BridgePortStpState : uint8_t { Disabled = 0, Listening = 1, Learning = 2, Forwarding = 3, Blocking = 4 };

/// What a bridge reports about one of its ports (a device enslaved to it: LinkInfo::slaveKind
/// "bridge"), as `ip -d link show` prints it after `bridge_slave`. **Reported only:** filled by
/// get/list/forEach, never sent; fastlink does not set port options (`ip link set dev P type
/// bridge_slave cost 7 ...`) yet. Three kinds of values:
///   - the port's spanning-tree settings and read-only state (ids, designated port and cost,
///     flags, and the running timers, which tick: two reads a moment apart differ);
///   - forwarding and learning switches;
///   - multicast snooping settings.
/// A value the kernel did not send (multicastRouter without CONFIG_BRIDGE_IGMP_SNOOPING,
/// backupPort when none is set) stays unset; attributes of kernels newer than fastlink stay raw in
/// LinkInfo::slaveData. Times are in centiseconds (USER_HZ ticks), as the kernel and iproute2 give them.
struct BridgePortInfo {
  // Spanning tree.
  std::optional<BridgePortStpState> state;
  std::optional<uint16_t> priority;              ///< port priority (0-63), the top bits of portId
  std::optional<uint32_t> cost;                  ///< path cost
  std::optional<uint16_t> portId;                ///< priority << 12 | port number (`port_id 0x8001`)
  std::optional<uint16_t> portNumber;            ///< `port_no`
  std::optional<uint16_t> designatedPort;        ///< port id of the designated port on this segment
  std::optional<uint16_t> designatedCost;        ///< root path cost of the designated bridge
  std::optional<BridgeId> designatedBridge;
  std::optional<BridgeId> designatedRoot;
  std::optional<bool> topologyChangeAck;
  std::optional<bool> configPending;
  std::optional<uint64_t> messageAgeTimer;       ///< centiseconds left; 0 = not running
  std::optional<uint64_t> forwardDelayTimer;     ///< centiseconds left
  std::optional<uint64_t> holdTimer;             ///< centiseconds left
  std::optional<bool> guard;                     ///< BPDU guard: a BPDU received disables the port
  std::optional<bool> rootBlock;                 ///< the port may never become a root port
  // Forwarding and learning.
  std::optional<bool> hairpin;                   ///< frames may go back out of the port they came in
  std::optional<bool> learning;
  std::optional<bool> unicastFlood;              ///< `flood`
  std::optional<bool> mcastFlood;
  std::optional<bool> bcastFlood;
  std::optional<bool> proxyArp;
  std::optional<bool> proxyArpWifi;
  std::optional<bool> neighSuppress;
  std::optional<bool> vlanTunnel;
  std::optional<bool> isolated;
  std::optional<bool> locked;
  std::optional<uint16_t> groupFwdMask;          ///< which 01:80:c2:00:00:0X groups are forwarded (bit X)
  std::optional<uint32_t> backupPort;            ///< ifindex of the backup port
  std::optional<bool> mrpRingOpen;               ///< media redundancy protocol: ring open
  std::optional<bool> mrpInOpen;                 ///< media redundancy protocol: interconnect open
  // Multicast snooping.
  std::optional<bool> fastLeave;                 ///< `fastleave` (also printed as `mcast_fast_leave`)
  std::optional<bool> mcastToUnicast;
  std::optional<uint8_t> mcastRouter;            ///< 0 disabled, 1 learn (default), 2 permanent, 3 temporary
  std::optional<uint32_t> mcastEhtHostsLimit;    ///< IGMPv3/MLDv2 explicit tracking: host limit
  std::optional<uint32_t> mcastEhtHostsCount;    ///< hosts tracked now
};

/// Don't Fragment bit of the outer IPv4 header (`df unset|set|inherit`).
enum class VxlanDf : uint8_t { Unset = 0, Set = 1, Inherit = 2 };

struct VxlanInfo {
  std::optional<uint32_t> vni;
  std::optional<IpAddress> local;
  std::optional<IpAddress> remote;  ///< unicast remote, or multicast group
  std::optional<uint16_t> dstPort;  ///< host byte order
  std::optional<Ifref> dev;         ///< underlying device
  std::optional<bool> learning;
  std::optional<uint8_t> ttl;
  std::optional<uint8_t> tos;          ///< 1 = inherit from the inner packet
  std::optional<uint16_t> srcPortMin;  ///< UDP source port range (`srcport MIN MAX`), host order;
  std::optional<uint16_t> srcPortMax;  ///< both or neither are sent
  std::optional<uint32_t> ageing;      ///< FDB entry lifetime, seconds
  std::optional<bool> udpCsum;         ///< checksum outer UDP over IPv4
  std::optional<bool> udp6ZeroCsumTx;  ///< send outer UDP over IPv6 without checksum
  std::optional<bool> udp6ZeroCsumRx;  ///< accept outer UDP over IPv6 without checksum
  std::optional<VxlanDf> df;
  VxlanInfo& setVni(uint32_t v) { vni = v; return *this; }
  VxlanInfo& setLocal(IpAddress v) { local = v; return *this; }
  VxlanInfo& setRemote(IpAddress v) { remote = v; return *this; }
  VxlanInfo& setGroup(IpAddress v) { remote = v; return *this; }
  VxlanInfo& setDstPort(uint16_t v) { dstPort = v; return *this; }
  VxlanInfo& setDev(Ifref v) { dev = std::move(v); return *this; }
  VxlanInfo& setLearning(bool v) { learning = v; return *this; }
  VxlanInfo& setTtl(uint8_t v) { ttl = v; return *this; }
  VxlanInfo& setTos(uint8_t v) { tos = v; return *this; }
  VxlanInfo& setSrcPortRange(uint16_t min, uint16_t max) { srcPortMin = min; srcPortMax = max; return *this; }
  VxlanInfo& setAgeing(uint32_t v) { ageing = v; return *this; }
  VxlanInfo& setUdpCsum(bool v) { udpCsum = v; return *this; }
  VxlanInfo& setUdp6ZeroCsumTx(bool v) { udp6ZeroCsumTx = v; return *this; }
  VxlanInfo& setUdp6ZeroCsumRx(bool v) { udp6ZeroCsumRx = v; return *this; }
  VxlanInfo& setDf(VxlanDf v) { df = v; return *this; }
};

enum class MacvlanMode : uint32_t { Private = 1, Vepa = 2, Bridge = 4, Passthru = 8, Source = 16 };

struct MacvlanInfo {  ///< for kinds macvlan and macvtap
  std::optional<MacvlanMode> mode;
  std::optional<uint32_t> bcQueueLen;      ///< broadcast/multicast queue length asked for
  std::optional<uint32_t> usedBcQueueLen;  ///< reported only: the length in use (the largest asked)
  MacvlanInfo& setMode(MacvlanMode v) { mode = v; return *this; }
  MacvlanInfo& setBcQueueLen(uint32_t v) { bcQueueLen = v; return *this; }
};

enum class VlanProtocol : uint16_t { Dot1Q = 0x8100, Dot1AD = 0x88a8 };

struct VlanInfo {  ///< the parent device is LinkInfo::parent
  /// Flag bits (the kernel's VLAN_FLAG_* values), as `ip -d link` prints them (`<REORDER_HDR>`).
  static constexpr uint32_t kReorderHdr = 0x1, kGvrp = 0x2, kLooseBinding = 0x4, kMvrp = 0x8, kBridgeBinding = 0x10;
  std::optional<uint16_t> id;
  std::optional<VlanProtocol> protocol;
  /// The flags (`reorder_hdr on|off`, `gvrp`, `mvrp`, `loose_binding`, `bridge_binding`); only
  /// the bits in `flagsMask` are sent. The kernel reports every bit (mask all ones).
  std::optional<uint32_t> flags;
  uint32_t flagsMask = 0;
  VlanInfo& setId(uint16_t v) { id = v; return *this; }
  VlanInfo& setProtocol(VlanProtocol v) { protocol = v; return *this; }
  VlanInfo& setFlag(uint32_t bit, bool on) {
    flags = (flags.value_or(0) & ~bit) | (on ? bit : 0);
    flagsMask |= bit;
    return *this;
  }
};

struct VrfInfo {
  std::optional<uint32_t> table;
  VrfInfo& setTable(uint32_t v) { table = v; return *this; }
};

/// What a VRF reports about a device enslaved to it (LinkInfo::slaveKind "vrf"), as `ip -d link
/// show` prints it after `vrf_slave`. **Reported only:** filled by get/list/forEach, never sent.
struct VrfPortInfo {
  std::optional<uint32_t> table;  ///< the routing table of the VRF the port belongs to
};

enum class BondMode : uint8_t { BalanceRr = 0, ActiveBackup, BalanceXor, Broadcast, Lacp8023ad, BalanceTlb, BalanceAlb };

struct BondInfo {
  std::optional<BondMode> mode;
  std::optional<uint32_t> miimon;  ///< milliseconds
  BondInfo& setMode(BondMode v) { mode = v; return *this; }
  BondInfo& setMiimon(uint32_t v) { miimon = v; return *this; }
};

/// Whether a bond sends through a port (BOND_STATE_*). A value past Backup (a future kernel's)
/// is kept as its number.
enum class BondPortState : uint8_t { Active = 0, Backup = 1 };

/// A bond port's link as the bond's link monitoring sees it (BOND_LINK_*; `GoingDown` is the
/// kernel's BOND_LINK_FAIL: down, waiting out downdelay). A value past GoingBack is kept as its number.
enum class BondPortMiiStatus : uint8_t { Up = 0, GoingDown = 1, Down = 2, GoingBack = 3 };

/// What a bond reports about one of its ports (a device enslaved to it: LinkInfo::slaveKind
/// "bond"), as `ip -d link show` prints it after `bond_slave`. **Reported only:** filled by
/// get/list/forEach, never sent; fastlink does not set port options (`ip link set dev P type
/// bond_slave queue_id 2 prio 5`) yet. The 802.3ad fields are reported only by a bond in 802.3ad
/// mode whose port has an aggregator; what newer kernels add after `prio` (the LACP actor port
/// priority, ...) stays raw in LinkInfo::slaveData.
struct BondPortInfo {
  std::optional<BondPortState> state;
  std::optional<BondPortMiiStatus> miiStatus;
  std::optional<uint32_t> linkFailureCount;   ///< times the port's link went down while enslaved
  /// The port's own address from before it was enslaved (the bond may have changed it): 6 bytes
  /// for Ethernet, 20 for InfiniBand; an empty one or one longer than 32 bytes stays raw in slaveData.
  std::optional<MacAddress> permanentAddress;
  std::optional<uint16_t> queueId;            ///< the transmit queue mapped to this port (0: none)
  std::optional<int32_t> priority;            ///< `prio`: preference as the active port (kernel 6.0+)
  // 802.3ad (LACP) only.
  std::optional<uint16_t> aggregatorId;       ///< the aggregator the port belongs to
  /// LACP_STATE_* bits of our side and of the partner, as sent in LACPDUs: activity (0x01),
  /// short timeout (0x02), aggregation (0x04), in sync (0x08), collecting (0x10), distributing
  /// (0x20), defaulted (0x40), expired (0x80).
  std::optional<uint8_t> actorOperPortState;
  std::optional<uint8_t> partnerOperPortState;
};

// ---- LinkInfo ----------------------------------------------------------------------------

/// A network device. Every field is optional: an unset field is never sent, and a field the
/// kernel did not report stays unset. Setters chain:
///   LinkInfo("br0", "bridge").setMtu(9000).setAdmin(true)
/// Device properties `ip link set` switches on or off besides up/down.
enum class LinkFlag : uint8_t {
  Arp,           ///< `arp on|off` (off: the device does not use ARP)
  Multicast,     ///< `multicast on|off`
  AllMulticast,  ///< `allmulticast on|off` (receive every multicast frame)
  Promisc,       ///< `promisc on|off`
  Dynamic,       ///< `dynamic on|off` (addresses may change when the device goes down)
  Trailers,      ///< `trailers on|off` (off: no trailer encapsulation)
  Carrier,       ///< `carrier on|off` (devices that let user space set it, e.g. veth)
};

/// How the kernel makes the device's IPv6 link-local address (`ip link set addrgenmode`).
enum class Ipv6AddrGenMode : uint8_t { Eui64 = 0, None = 1, StableSecret = 2, Random = 3 };

struct LinkFlagSetting {
  LinkFlag flag;
  bool on;
};

struct LinkInfo {
  LinkInfo() = default;
  explicit LinkInfo(std::string name) : name(std::move(name)) {}
  LinkInfo(std::string name, std::string kind) : name(std::move(name)), kind(std::move(kind)) {}

  // Settable (and reported) fields.
  std::optional<std::string> name;
  std::optional<uint32_t> index;
  std::optional<std::string> kind;  ///< "veth", "bridge", ...; unset for devices without rtnl ops
  std::optional<uint32_t> mtu;
  std::optional<MacAddress> address;
  std::optional<uint32_t> group;
  std::optional<Ifref> master;       ///< reported as an index; set by name or index; 0 = no master
  /// The master's name, as reported: filled by LinkApi::get/find/list (never sent; unset from forEach and events).
  std::optional<std::string> masterName;
  std::optional<bool> admin;         ///< administratively up (IFF_UP)
  std::optional<uint32_t> txqlen;
  std::optional<std::string> alias;  ///< "" clears it
  std::optional<uint32_t> numTxQueues;
  std::optional<uint32_t> numRxQueues;
  std::optional<Ifref> parent;  ///< `link DEV`: the lower device (vlan, macvlan, ...)
  std::optional<Netns> netns;   ///< move the device there (`netns NAME`)
  /// Flags to switch (`arp off promisc on`); the others stay as they are. Only sent, never
  /// filled by a dump (see `flags`).
  std::vector<LinkFlagSetting> flagSettings;

  std::optional<VethInfo> veth;
  std::optional<BridgeInfo> bridge;
  std::optional<VxlanInfo> vxlan;
  std::optional<MacvlanInfo> macvlan;
  std::optional<VlanInfo> vlan;
  std::optional<VrfInfo> vrf;
  std::optional<BondInfo> bond;
  /// Options of the kinds added after the fields above (ipvlan, geneve, gre, gretap, ipip, sit,
  /// ...): one value of the kind's options type, declared in fastlink/link_kinds/<kind>.hpp.
  /// Use kindOptions<T>() / setKindOptions(T). Decoded links carry it for those kinds.
  std::any typedKindOptions;

  // Reported only (but broadcast, the GSO/GRO limits and addrGenMode, which are also sent when set).
  std::optional<uint32_t> flags;  ///< IFF_* bits
  std::optional<std::string> operState;  ///< "UP", "DOWN", "UNKNOWN", "LOWERLAYERDOWN", ...
  std::optional<std::string> linkMode;   ///< "DEFAULT" or "DORMANT" (IFLA_LINKMODE)
  std::optional<uint32_t> promiscuity;   ///< how many users asked for promiscuous mode
  std::optional<bool> carrier;
  std::optional<MacAddress> broadcast;  ///< settable as well (`broadcast LLADDR`)
  std::optional<uint32_t> minMtu;
  std::optional<uint32_t> maxMtu;
  std::optional<uint32_t> allmulti;      ///< how many users asked for all-multicast mode
  std::optional<uint32_t> carrierChanges;  ///< carrier transitions since the device was created
  std::optional<uint32_t> gsoMaxSize;    ///< largest GSO packet the stack builds; settable (gso_max_size)
  std::optional<uint32_t> gsoMaxSegs;    ///< settable (gso_max_segs, at most 65535)
  std::optional<uint32_t> tsoMaxSize;    ///< largest TSO packet the device takes
  std::optional<uint32_t> tsoMaxSegs;
  std::optional<uint32_t> groMaxSize;    ///< settable (gro_max_size)
  /// IPv6 address generation mode, settable on an existing device (`addrgenmode`; EAFNOSUPPORT when creating); decoded, its IFLA_AF_SPEC is also kept in `unknown`.
  std::optional<Ipv6AddrGenMode> addrGenMode;
  std::optional<std::string> qdisc;
  std::optional<int32_t> linkNetnsId;
  std::optional<std::string> slaveKind;  ///< kind of the master when enslaved ("bridge")
  /// What the bridge reports about this device when it is a bridge port (slaveKind "bridge").
  std::optional<BridgePortInfo> bridgePort;
  /// What the bond reports about this device when it is a bond port (slaveKind "bond").
  std::optional<BondPortInfo> bondPort;
  /// What the VRF reports about this device when it is enslaved to a VRF (slaveKind "vrf").
  std::optional<VrfPortInfo> vrfPort;
  std::optional<uint16_t> type;          ///< ARPHRD_* link type
  std::optional<LinkStats> stats;        ///< only when asked for
  /// The XDP programs attached to the device, per mode (IFLA_XDP; all ids 0 when none). Attach
  /// and detach with XdpApi; details of a program with XdpProgram::info(id).
  std::optional<XdpStatus> xdp;
  RawAttributes unknown;                 ///< top-level attributes not decoded above
  RawAttributes unknownKindData;         ///< kind data not decoded (or of a kind we do not know)
  /// Port data given by the master (IFLA_INFO_SLAVE_DATA) not decoded above: all of it for a
  /// master kind fastlink does not decode, a newer kernel's additions for a bridge or bond port.
  RawAttributes slaveData;

  LinkInfo& setName(std::string v) { name = std::move(v); return *this; }
  LinkInfo& setIndex(uint32_t v) { index = v; return *this; }
  LinkInfo& setKind(std::string v) { kind = std::move(v); return *this; }
  LinkInfo& setMtu(uint32_t v) { mtu = v; return *this; }
  LinkInfo& setAddress(MacAddress v) { address = v; return *this; }
  LinkInfo& setGroup(uint32_t v) { group = v; return *this; }
  LinkInfo& setMaster(Ifref v) { master = std::move(v); return *this; }
  LinkInfo& setNoMaster() { master = Ifref(0u); return *this; }
  LinkInfo& setAdmin(bool up) { admin = up; return *this; }
  LinkInfo& setFlag(LinkFlag flag, bool on) { flagSettings.push_back({flag, on}); return *this; }
  LinkInfo& setTxqlen(uint32_t v) { txqlen = v; return *this; }
  LinkInfo& setAlias(std::string v) { alias = std::move(v); return *this; }
  LinkInfo& setNumTxQueues(uint32_t v) { numTxQueues = v; return *this; }
  LinkInfo& setNumRxQueues(uint32_t v) { numRxQueues = v; return *this; }
  LinkInfo& setParent(Ifref v) { parent = std::move(v); return *this; }
  LinkInfo& setNetns(Netns v) { netns = std::move(v); return *this; }
  LinkInfo& setVeth(VethInfo v) { veth = std::move(v); return *this; }
  LinkInfo& setBridge(BridgeInfo v) { bridge = std::move(v); return *this; }
  LinkInfo& setVxlan(VxlanInfo v) { vxlan = std::move(v); return *this; }
  LinkInfo& setMacvlan(MacvlanInfo v) { macvlan = std::move(v); return *this; }
  LinkInfo& setVlan(VlanInfo v) { vlan = std::move(v); return *this; }
  LinkInfo& setVrf(VrfInfo v) { vrf = std::move(v); return *this; }
  LinkInfo& setBond(BondInfo v) { bond = std::move(v); return *this; }
  /// Sets the options of a kind that has no field of its own, e.g.
  ///   LinkInfo("gn0", "geneve").setKindOptions(GeneveInfo().setVni(42))
  template <class Options>
  LinkInfo& setKindOptions(Options v) { typedKindOptions = std::move(v); return *this; }
  /// The options of type `Options` (e.g. GeneveInfo), or nullptr when the link carries none (or
  /// options of another kind).
  template <class Options>
  const Options* kindOptions() const { return std::any_cast<Options>(&typedKindOptions); }
  template <class Options>
  Options* kindOptions() { return std::any_cast<Options>(&typedKindOptions); }

  bool isUp() const;       ///< IFF_UP in flags (or admin when flags were not reported)
  bool isRunning() const;  ///< IFF_RUNNING
  /// Master index as reported by the kernel (0 when none).
  uint32_t masterIndex() const;
  uint32_t parentIndex() const;
};

/// Which links `list` returns. Kind and master are filtered in the kernel; group and name
/// pattern in user space (the kernel has no dump filter for them).
struct LinkFilter {
  std::optional<std::string> kind;
  std::optional<Ifref> master;
  std::optional<uint32_t> group;
  std::optional<std::string> namePattern;  ///< shell glob, e.g. "veth*"
  bool withStats = false;                  ///< decode statistics
  /// Send IFLA_EXT_MASK = RTEXT_FILTER_SKIP_STATS: the kernel then leaves out per-VF statistics
  /// (the device's own counters still come). Off by default: on kernel 6.18 any non-zero
  /// extension mask makes the kernel size every netdev first, which made a kind-filtered dump
  /// of 10k devices ~6x slower (see docs/BENCHMARKS.md).
  bool kernelSkipStats = false;

  LinkFilter& setKind(std::string v) { kind = std::move(v); return *this; }
  LinkFilter& setMaster(Ifref v) { master = std::move(v); return *this; }
  LinkFilter& setGroup(uint32_t v) { group = v; return *this; }
  LinkFilter& setNamePattern(std::string v) { namePattern = std::move(v); return *this; }
  LinkFilter& setWithStats(bool v) { withStats = v; return *this; }
  LinkFilter& setKernelSkipStats(bool v) { kernelSkipStats = v; return *this; }
};

/// Builds link requests without sending them, for batches. Names given where the kernel needs
/// an index (master, parent, vxlan dev) must already be indexes here; LinkApi resolves them.
/// Throws fastlink::Error (EINVAL) on bad input; nothing is sent in that case.
struct LinkRequests {
  /// Equivalent to: ip link add NAME [type KIND ...] [mtu N] ...
  static Request add(const LinkInfo& link);
  /// Equivalent to: ip link set dev DEV [name NEW] [mtu N] [up|down] ... (rename: changes.name)
  static Request set(const Ifref& dev, const LinkInfo& changes);
  /// Create or change in place (kind must match an existing device).
  static Request replace(const LinkInfo& link);
  /// Equivalent to: ip link del dev DEV
  static Request del(const Ifref& dev);
  /// Equivalent to: ip link set group G [mtu N] [up|down] ... — one request for the whole group.
  static Request setGroup(uint32_t group, const LinkInfo& changes);
  /// Equivalent to: ip link del group G — one request.
  static Request delGroup(uint32_t group);
};

/// The link operations, as an interface so that users can mock them (GoogleMock) in tests.
class ILinkApi {
 public:
  virtual ~ILinkApi() = default;
  /// Equivalent to: ip link add NAME type KIND ... (fails with EEXIST if it exists)
  virtual void add(const LinkInfo& link) = 0;
  /// Equivalent to: ip link del dev DEV
  virtual void del(const Ifref& dev) = 0;
  /// Equivalent to: ip link set dev DEV ... (only the fields set in `changes` are sent)
  virtual void set(const Ifref& dev, const LinkInfo& changes) = 0;
  /// Create the device, or change it if it exists (same kind). No exact iproute2 equivalent:
  /// `ip link replace` refuses existing devices with EOPNOTSUPP.
  virtual void replace(const LinkInfo& link) = 0;
  /// Equivalent to: ip -d link show dev DEV. Throws Error(ENODEV) if it does not exist.
  virtual LinkInfo get(const Ifref& dev, bool withStats = false) = 0;
  /// Like get, but std::nullopt when the device does not exist.
  virtual std::optional<LinkInfo> find(const Ifref& dev, bool withStats = false) = 0;
  /// Equivalent to: ip -d link show [type KIND] [master M] [group G]
  virtual std::vector<LinkInfo> list(const LinkFilter& filter = {}) = 0;
  /// Streams the dump to `each` (constant memory). If the kernel interrupts the dump, it is
  /// restarted and `restart` is called first, so the caller can drop what it has seen.
  virtual void forEach(const LinkFilter& filter, const std::function<void(const LinkInfo&)>& each,
                       const std::function<void()>& restart = {}) = 0;
  /// Equivalent to: ip link set group G ... — one request, whatever the group's size.
  virtual void setGroup(uint32_t group, const LinkInfo& changes) = 0;
  /// Equivalent to: ip link del group G — one request.
  virtual void delGroup(uint32_t group) = 0;
};

/// The kernel-backed ILinkApi. Obtain it from Netlink::links().
class LinkApi final : public ILinkApi {
 public:
  void add(const LinkInfo& link) override;
  void del(const Ifref& dev) override;
  void set(const Ifref& dev, const LinkInfo& changes) override;
  void replace(const LinkInfo& link) override;
  LinkInfo get(const Ifref& dev, bool withStats = false) override;
  std::optional<LinkInfo> find(const Ifref& dev, bool withStats = false) override;
  std::vector<LinkInfo> list(const LinkFilter& filter = {}) override;
  void forEach(const LinkFilter& filter, const std::function<void(const LinkInfo&)>& each,
               const std::function<void()>& restart = {}) override;
  /// The dump as views over the receive buffer (fastlink/link_view.hpp): nothing decoded or allocated
  /// until an accessor is called; each view is valid during its call only (toInfo() to keep one).
  void forEach(const LinkFilter& filter, const std::function<void(const LinkView&)>& each,
               const std::function<void()>& restart = {});
  /// The same for any callable taking a LinkView (a lambda): the loop over each datagram's
  /// messages is instantiated here with the callback inlined, no std::function per message.
  template <class F>
    requires std::invocable<F&, const LinkView&>
  void forEach(const LinkFilter& filter, F&& each, const std::function<void()>& restart = {}) {
    auto run = detail::viewRun<LinkView>(filter, each);
    forEachRun(filter, detail::RunSink(run), restart);
  }
  void setGroup(uint32_t group, const LinkInfo& changes) override;
  void delGroup(uint32_t group) override;

  /// Resolves a name to its ifindex (an index is returned as is). Throws Error(ENODEV).
  uint32_t indexOf(const Ifref& dev);
  /// The ifindex of device `name` (or altname), std::nullopt when there is none. One ioctl on
  /// the netlink socket, no RTM_NEWLINK filled: cheap enough to resolve 10,000 names one by one.
  /// Equivalent to: ip link show dev NAME (its index only)
  std::optional<uint32_t> findIndex(const std::string& name);
  /// Replaces names by indexes in the fields the kernel only takes as indexes.
  LinkInfo resolveNames(const LinkInfo& link);

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit LinkApi(core::Engine& engine) : engine_(engine) {}
  void forEachRun(const LinkFilter& filter, detail::RunSink sink, const std::function<void()>& restart);
  core::Engine& engine_;
};

/// Kinds fastlink knows the options of (others can still be created, without options).
std::vector<std::string> knownLinkKinds();

}  // namespace fastlink

// The view type of forEach above, complete wherever this header is included.
#include "fastlink/link_view.hpp"
