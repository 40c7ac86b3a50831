// The kinds added as one library file each (ipvlan, geneve, gre/gretap, ipip/sit, xfrm): golden bytes
// of their requests against golden.hpp's hand-laid bytes, kernel-shaped decode round trips, and
// the registry itself (known kinds, option/kind mismatch checks, the typed options slot).
#include <gtest/gtest.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <algorithm>

#include "fastlink/link.hpp"
#include "fastlink/link_kinds/geneve.hpp"
#include "fastlink/link_kinds/gre.hpp"
#include "fastlink/link_kinds/ip6tnl.hpp"
#include "fastlink/link_kinds/vti.hpp"
#include "fastlink/link_kinds/ipip.hpp"
#include "fastlink/link_kinds/ipvlan.hpp"
#include "fastlink/link_kinds/xfrm.hpp"
#include "rtnl/link_codec.hpp"
#include "unit/golden.hpp"

namespace fastlink {
namespace {

using test::AlignedMessage;
using test::Attrs;
using test::Bytes;
using test::Ifinfo;
using test::sameBytes;

constexpr uint16_t kCreateFlags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;

Bytes addMessage(const Attrs& attrs) { return test::linkMessage(RTM_NEWLINK, kCreateFlags, Ifinfo{}, attrs); }

/// `ip link add NAME [link PARENT] type KIND <data>` as iproute2 lays it out (NLA_F_NESTED set).
Bytes addKind(std::string_view name, std::string_view kind, const Attrs& data, uint32_t parent = 0) {
  Attrs a = Attrs().str(IFLA_IFNAME, name);
  if (parent) a.u32(IFLA_LINK, parent);
  return addMessage(a.nest(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind).nest(IFLA_INFO_DATA, data)));
}

/// A dump reply as the kernel builds it: nests without NLA_F_NESTED.
LinkInfo decodeKernel(std::string_view kind, const Attrs& data) {
  Bytes m = test::linkMessage(RTM_NEWLINK, NLM_F_MULTI, Ifinfo{.type = 1, .index = 7}, 
                              Attrs().str(IFLA_IFNAME, "t0").nestNoFlag(IFLA_LINKINFO, Attrs().str(IFLA_INFO_KIND, kind).nestNoFlag(IFLA_INFO_DATA, data)),
                              1, 4242);
  AlignedMessage aligned(m);
  return rtnl::decodeLink(aligned.as<nlmsghdr>(), false);
}

IpAddress ip(std::string_view text) { return IpAddress::parse(text); }

// ---- registry ------------------------------------------------------------------------------

TEST(LinkKindRegistry, ListsEveryKindFileSorted) {
  auto kinds = knownLinkKinds();
  for (const char* k : {"bond", "bridge", "dummy", "geneve", "gre", "gretap", "ifb", "ipip", "ipvlan", "macvlan", "macvtap", "sit",
                        "veth", "vlan", "vrf", "vxlan", "wireguard", "xfrm"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
  EXPECT_TRUE(std::is_sorted(kinds.begin(), kinds.end()));
  EXPECT_EQ(std::adjacent_find(kinds.begin(), kinds.end()), kinds.end()) << "a kind registered twice";
}

TEST(LinkKindRegistry, OptionsOfAnotherKindAreRefused) {
  auto reason = [](const LinkInfo& l) -> std::string {
    try {
      LinkRequests::add(l);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(reason(LinkInfo("x0", "vxlan").setKindOptions(GeneveInfo().setVni(1))).find("geneve options given for a device of type vxlan"),
            std::string::npos);
  EXPECT_NE(reason(LinkInfo("x0", "geneve").setBridge(BridgeInfo())).find("bridge options given for a device of type geneve"),
            std::string::npos);
  EXPECT_NE(reason(LinkInfo("x0", "ipip").setKindOptions(GreInfo())).find("gre options given for a device of type ipip"),
            std::string::npos);
  EXPECT_NE(reason(LinkInfo("x0", "dummy").setKindOptions(IpvlanInfo())).find("ipvlan options given for a device of type dummy"),
            std::string::npos);
  // A type no kind takes is refused, not silently dropped.
  EXPECT_NE(reason(LinkInfo("x0", "dummy").setKindOptions(42)).find("no link kind takes"), std::string::npos);
  // Shared options: gretap takes gre's, sit takes ipip's.
  EXPECT_EQ(reason(LinkInfo("x0", "gretap").setKindOptions(GreInfo().setTtl(3))), "accepted");
  EXPECT_EQ(reason(LinkInfo("x0", "sit").setKindOptions(IpTunnelInfo().setTtl(3))), "accepted");
}

TEST(LinkKindRegistry, OptionsWithoutATypeSelectTheirKind) {
  Request r = LinkRequests::add(LinkInfo("gn0").setKindOptions(GeneveInfo().setVni(7)));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("gn0", "geneve", Attrs().u32(IFLA_GENEVE_ID, 7))));
}

TEST(LinkKindRegistry, TypedSlotReadsBackOnlyItsType) {
  LinkInfo l = LinkInfo("g0", "gre").setKindOptions(GreInfo().setKey(5));
  ASSERT_NE(l.kindOptions<GreInfo>(), nullptr);
  EXPECT_EQ(l.kindOptions<GreInfo>()->ikey, 5u);
  EXPECT_EQ(l.kindOptions<GeneveInfo>(), nullptr);
  LinkInfo copy = l;  // LinkInfo stays a value type
  copy.kindOptions<GreInfo>()->ikey = 6;
  EXPECT_EQ(l.kindOptions<GreInfo>()->ikey, 5u);
}

// ---- ipvlan --------------------------------------------------------------------------------

TEST(LinkKindsGolden, AddIpvlan) {
  // ip link add link <5> ipv0 type ipvlan mode l3 private
  Request r = LinkRequests::add(
      LinkInfo("ipv0", "ipvlan").setParent(Ifref(5u)).setKindOptions(IpvlanInfo().setMode(IpvlanMode::L3).setIsolation(IpvlanIsolation::Private)));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("ipv0", "ipvlan", Attrs().u16(IFLA_IPVLAN_MODE, 1).u16(IFLA_IPVLAN_FLAGS, 1), 5)));
  Request vepa = LinkRequests::add(LinkInfo("ipv0", "ipvlan").setParent(Ifref(5u)).setKindOptions(
      IpvlanInfo().setMode(IpvlanMode::L3s).setIsolation(IpvlanIsolation::Vepa)));
  EXPECT_TRUE(sameBytes(vepa.bytes(), addKind("ipv0", "ipvlan", Attrs().u16(IFLA_IPVLAN_MODE, 2).u16(IFLA_IPVLAN_FLAGS, 2), 5)));
}

TEST(LinkKindsGolden, DecodeIpvlanRoundTrip) {
  LinkInfo d = decodeKernel("ipvlan", Attrs().u16(IFLA_IPVLAN_MODE, 0).u16(IFLA_IPVLAN_FLAGS, 2));
  const auto* o = d.kindOptions<IpvlanInfo>();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->mode, IpvlanMode::L2);
  EXPECT_EQ(o->isolation, IpvlanIsolation::Vepa);
  EXPECT_TRUE(d.unknownKindData.empty());
  Request r = LinkRequests::add(LinkInfo("t0", "ipvlan").setKindOptions(*o));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "ipvlan", Attrs().u16(IFLA_IPVLAN_MODE, 0).u16(IFLA_IPVLAN_FLAGS, 2))));
  // Flags fastlink cannot name stay raw.
  LinkInfo odd = decodeKernel("ipvlan", Attrs().u16(IFLA_IPVLAN_MODE, 1).u16(IFLA_IPVLAN_FLAGS, 3));
  EXPECT_FALSE(odd.kindOptions<IpvlanInfo>()->isolation.has_value());
  ASSERT_EQ(odd.unknownKindData.count(), 1u);
  EXPECT_EQ(odd.unknownKindData.list()[0].type, IFLA_IPVLAN_FLAGS);
}

// ---- geneve --------------------------------------------------------------------------------

TEST(LinkKindsGolden, AddGeneveV4) {
  // ip link add gn0 type geneve id 42 remote 10.0.0.2 ttl 64 tos 10 dstport 6081 udpcsum
  Request r = LinkRequests::add(LinkInfo("gn0", "geneve").setKindOptions(
      GeneveInfo().setVni(42).setRemote(ip("10.0.0.2")).setTtl(64).setTos(0x10).setDstPort(6081).setUdpCsum(true)));
  Attrs data = Attrs()
                   .u32(IFLA_GENEVE_ID, 42)
                   .raw(IFLA_GENEVE_REMOTE, {10, 0, 0, 2})
                   .u8(IFLA_GENEVE_TTL, 64)
                   .u8(IFLA_GENEVE_TOS, 0x10)
                   .raw(IFLA_GENEVE_PORT, {0x17, 0xc1})  // 6081, network byte order
                   .u8(IFLA_GENEVE_UDP_CSUM, 1);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("gn0", "geneve", data)));
}

TEST(LinkKindsGolden, AddGeneveV6WithLabelAndInherit) {
  Request r = LinkRequests::add(LinkInfo("gn1", "geneve").setKindOptions(GeneveInfo()
                                                                             .setVni(1)
                                                                             .setRemote(ip("2001:db8::2"))
                                                                             .setFlowLabel(0x12345)
                                                                             .setTtlInherit(true)
                                                                             .setDf(GeneveDf::Inherit)
                                                                             .setUdp6ZeroCsumTx(true)
                                                                             .setUdp6ZeroCsumRx(false)));
  Attrs data = Attrs()
                   .u32(IFLA_GENEVE_ID, 1)
                   .raw(IFLA_GENEVE_REMOTE6, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
                   .raw(IFLA_GENEVE_LABEL, {0x00, 0x01, 0x23, 0x45})  // big-endian
                   .u8(IFLA_GENEVE_TTL_INHERIT, 1)
                   .u8(IFLA_GENEVE_DF, 2)
                   .u8(IFLA_GENEVE_UDP_ZERO_CSUM6_TX, 1)
                   .u8(IFLA_GENEVE_UDP_ZERO_CSUM6_RX, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("gn1", "geneve", data)));
}

TEST(LinkKindsGolden, GeneveRefusesBadValues) {
  EXPECT_THROW(LinkRequests::add(LinkInfo("g", "geneve").setKindOptions(GeneveInfo().setVni(1u << 24))), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("g", "geneve").setKindOptions(GeneveInfo().setVni(1).setRemote(ip("239.1.1.1")))), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("g", "geneve").setKindOptions(GeneveInfo().setVni(1).setFlowLabel(1u << 20))), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("g", "geneve").setKindOptions(GeneveInfo().setVni(1).setExternal(true))), Error);
}

TEST(LinkKindsGolden, DecodeGeneveRoundTrip) {
  // What geneve_fill_info() reports for `id 42 remote 10.0.0.2 dstport 6081`.
  Attrs kernel = Attrs()
                     .u32(IFLA_GENEVE_ID, 42)
                     .raw(IFLA_GENEVE_REMOTE, {10, 0, 0, 2})
                     .u8(IFLA_GENEVE_UDP_CSUM, 0)
                     .u8(IFLA_GENEVE_TTL, 0)
                     .u8(IFLA_GENEVE_TOS, 0)
                     .u8(IFLA_GENEVE_DF, 0)
                     .raw(IFLA_GENEVE_LABEL, {0, 0, 0, 0})
                     .raw(IFLA_GENEVE_PORT, {0x17, 0xc1})
                     .u8(IFLA_GENEVE_UDP_ZERO_CSUM6_RX, 0)
                     .u8(IFLA_GENEVE_TTL_INHERIT, 0)
                     .flag(IFLA_GENEVE_INNER_PROTO_INHERIT);  // not decoded: kept raw
  LinkInfo d = decodeKernel("geneve", kernel);
  const auto* g = d.kindOptions<GeneveInfo>();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->vni, 42u);
  EXPECT_EQ(g->remote, ip("10.0.0.2"));
  EXPECT_EQ(g->dstPort, 6081);
  EXPECT_EQ(g->udpCsum, false);
  EXPECT_EQ(g->ttl, 0);
  EXPECT_EQ(g->ttlInherit, false);
  EXPECT_EQ(g->df, GeneveDf::Unset);
  EXPECT_EQ(g->flowLabel, 0u);
  ASSERT_EQ(d.unknownKindData.count(), 1u);
  EXPECT_EQ(d.unknownKindData.list()[0].type, IFLA_GENEVE_INNER_PROTO_INHERIT);

  Request r = LinkRequests::add(LinkInfo("t0", "geneve").setKindOptions(*g));
  Attrs out = Attrs()
                  .u32(IFLA_GENEVE_ID, 42)
                  .raw(IFLA_GENEVE_REMOTE, {10, 0, 0, 2})
                  .raw(IFLA_GENEVE_LABEL, {0, 0, 0, 0})
                  .u8(IFLA_GENEVE_TTL, 0)  // no TTL_INHERIT 0: the kernel would then ignore TTL
                  .u8(IFLA_GENEVE_TOS, 0)
                  .u8(IFLA_GENEVE_DF, 0)
                  .raw(IFLA_GENEVE_PORT, {0x17, 0xc1})
                  .u8(IFLA_GENEVE_UDP_CSUM, 0)
                  .u8(IFLA_GENEVE_UDP_ZERO_CSUM6_RX, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "geneve", out)));
}

TEST(LinkKindsGolden, GeneveRemoteOfWrongLengthIsKeptRaw) {
  LinkInfo d = decodeKernel("geneve", Attrs().u32(IFLA_GENEVE_ID, 1).raw(IFLA_GENEVE_REMOTE, {10, 0, 0}));
  EXPECT_FALSE(d.kindOptions<GeneveInfo>()->remote.has_value());
  ASSERT_EQ(d.unknownKindData.count(), 1u);
}

// ---- gre / gretap --------------------------------------------------------------------------

Attrs greData() {
  // remote 10.0.0.2 local 10.0.0.1 ttl 64 tos 0x10 key 42 nopmtudisc(no: pmtudisc) dev <3>
  return Attrs()
      .u32(IFLA_GRE_LINK, 3)
      .raw(IFLA_GRE_IFLAGS, {0x20, 0x00})  // GRE_KEY, big-endian
      .raw(IFLA_GRE_OFLAGS, {0x20, 0x00})
      .raw(IFLA_GRE_IKEY, {0, 0, 0, 42})  // big-endian key
      .raw(IFLA_GRE_OKEY, {0, 0, 0, 42})
      .raw(IFLA_GRE_LOCAL, {10, 0, 0, 1})
      .raw(IFLA_GRE_REMOTE, {10, 0, 0, 2})
      .u8(IFLA_GRE_TTL, 64)
      .u8(IFLA_GRE_TOS, 0x10)
      .u8(IFLA_GRE_PMTUDISC, 1);
}

GreInfo greOptions() {
  return GreInfo().setRemote(ip("10.0.0.2")).setLocal(ip("10.0.0.1")).setTtl(64).setTos(0x10).setKey(42).setPmtudisc(true).setDev(Ifref(3u));
}

TEST(LinkKindsGolden, AddGreAndGretap) {
  for (const char* kind : {"gre", "gretap"}) {
    Request r = LinkRequests::add(LinkInfo("t0", kind).setKindOptions(greOptions()));
    EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", kind, greData()))) << kind;
  }
}

TEST(LinkKindsGolden, AddGreWithChecksumSequenceAndOneWayKey) {
  Request r = LinkRequests::add(LinkInfo("t0", "gre").setKindOptions(GreInfo().setOkey(0x01020304).setCsum(true).setSeq(true)));
  Attrs data = Attrs()
                   .raw(IFLA_GRE_IFLAGS, {0x90, 0x00})  // CSUM | SEQ
                   .raw(IFLA_GRE_OFLAGS, {0xb0, 0x00})  // CSUM | KEY | SEQ
                   .raw(IFLA_GRE_OKEY, {1, 2, 3, 4});
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "gre", data)));
}

TEST(LinkKindsGolden, GreRefusesIpv6AndNames) {
  EXPECT_THROW(LinkRequests::add(LinkInfo("t0", "gre").setKindOptions(GreInfo().setRemote(ip("2001:db8::1")))), Error);
  // Requests take indexes only; LinkApi resolves names first.
  EXPECT_THROW(LinkRequests::add(LinkInfo("t0", "gre").setKindOptions(GreInfo().setDev("eth0"))), Error);
}

TEST(LinkKindsGolden, DecodeGreRoundTrip) {
  // ipgre_fill_info() also reports fwmark and the encapsulation (rows of tunnelFields) and
  // ignore_df (kept raw).
  Attrs kernel = greData();
  kernel.u32(IFLA_GRE_FWMARK, 0).u16(IFLA_GRE_ENCAP_TYPE, 0).u8(IFLA_GRE_IGNORE_DF, 0);
  for (const char* kind : {"gre", "gretap"}) {
    LinkInfo d = decodeKernel(kind, kernel);
    const auto* g = d.kindOptions<GreInfo>();
    ASSERT_NE(g, nullptr) << kind;
    EXPECT_EQ(g->remote, ip("10.0.0.2"));
    EXPECT_EQ(g->local, ip("10.0.0.1"));
    EXPECT_EQ(g->ikey, 42u);
    EXPECT_EQ(g->okey, 42u);
    EXPECT_EQ(g->ttl, 64);
    EXPECT_EQ(g->tos, 0x10);
    EXPECT_EQ(g->pmtudisc, true);
    EXPECT_EQ(g->dev, Ifref(3u));
    EXPECT_EQ(g->icsum, false);
    EXPECT_EQ(g->fwmark, 0u);
    EXPECT_EQ(g->encapType, 0);
    EXPECT_EQ(d.unknownKindData.count(), 1u);
    GreInfo again = *g;
    again.icsum.reset(), again.ocsum.reset(), again.iseq.reset(), again.oseq.reset();  // decoded as false
    Request r = LinkRequests::add(LinkInfo("t0", kind).setKindOptions(again));
    EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", kind, greData().u32(IFLA_GRE_FWMARK, 0).u16(IFLA_GRE_ENCAP_TYPE, 0)))) << kind;
  }
}

TEST(LinkKindsGolden, DecodeGreKeyWithoutFlagIsNoKey) {
  LinkInfo d = decodeKernel("gre", Attrs().raw(IFLA_GRE_IFLAGS, {0, 0}).raw(IFLA_GRE_IKEY, {0, 0, 0, 0}));
  EXPECT_FALSE(d.kindOptions<GreInfo>()->ikey.has_value());
}

// ---- ipip / sit ----------------------------------------------------------------------------

TEST(LinkKindsGolden, AddIpipAndSit) {
  IpTunnelInfo o = IpTunnelInfo().setRemote(ip("192.0.2.2")).setLocal(ip("192.0.2.1")).setTtl(32).setTos(1).setPmtudisc(false).setDev(Ifref(4u));
  Attrs data = Attrs()
                   .u32(IFLA_IPTUN_LINK, 4)
                   .raw(IFLA_IPTUN_LOCAL, {192, 0, 2, 1})
                   .raw(IFLA_IPTUN_REMOTE, {192, 0, 2, 2})
                   .u8(IFLA_IPTUN_TTL, 32)
                   .u8(IFLA_IPTUN_TOS, 1)
                   .u8(IFLA_IPTUN_PMTUDISC, 0);
  for (const char* kind : {"ipip", "sit"}) {
    Request r = LinkRequests::add(LinkInfo("t0", kind).setKindOptions(o));
    EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", kind, data))) << kind;
  }
}

TEST(LinkKindsGolden, DecodeSitRoundTrip) {
  // ipip6_fill_info() for `sit remote 192.0.2.2 local 192.0.2.1 ttl 64`.
  Attrs kernel = Attrs()
                     .u32(IFLA_IPTUN_LINK, 0)
                     .raw(IFLA_IPTUN_LOCAL, {192, 0, 2, 1})
                     .raw(IFLA_IPTUN_REMOTE, {192, 0, 2, 2})
                     .u8(IFLA_IPTUN_TTL, 64)
                     .u8(IFLA_IPTUN_TOS, 0)
                     .u8(IFLA_IPTUN_PMTUDISC, 1)
                     .u8(IFLA_IPTUN_PROTO, 41)
                     .raw(IFLA_IPTUN_FLAGS, {0, 0})
                     .u32(IFLA_IPTUN_FWMARK, 0);
  LinkInfo d = decodeKernel("sit", kernel);
  const auto* o = d.kindOptions<IpTunnelInfo>();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->remote, ip("192.0.2.2"));
  EXPECT_EQ(o->local, ip("192.0.2.1"));
  EXPECT_EQ(o->ttl, 64);
  EXPECT_EQ(o->tos, 0);
  EXPECT_EQ(o->pmtudisc, true);
  EXPECT_FALSE(o->dev.has_value()) << "link 0 is no device";
  EXPECT_EQ(o->proto, 41);
  EXPECT_EQ(o->flags, 0);
  EXPECT_EQ(o->fwmark, 0u);
  EXPECT_TRUE(d.unknownKindData.list().empty()) << "every attribute sit reports has its row";
  Request r = LinkRequests::add(LinkInfo("t0", "sit").setKindOptions(*o));
  Attrs out = Attrs()
                  .raw(IFLA_IPTUN_LOCAL, {192, 0, 2, 1})
                  .raw(IFLA_IPTUN_REMOTE, {192, 0, 2, 2})
                  .u8(IFLA_IPTUN_TTL, 64)
                  .u8(IFLA_IPTUN_TOS, 0)
                  .u8(IFLA_IPTUN_PMTUDISC, 1)
                  .u8(IFLA_IPTUN_PROTO, 41)
                  .raw(IFLA_IPTUN_FLAGS, {0, 0})
                  .u32(IFLA_IPTUN_FWMARK, 0);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "sit", out)));
}

// As `ip link add t0 type sit mode ip6ip isatap 6rd-prefix 2001:db8::/32 6rd-relay_prefix
// 192.0.2.0/24 fwmark 7` sends them (link_iptnl.c), in the table's order; the kernel reports the
// prefixes as the same four attributes (ipip6_fill_info).
TEST(LinkKindsGolden, SitIsatapAnd6rdPrefixes) {
  IpTunnelInfo o;
  o.proto = 41;
  o.flags = IpTunnelInfo::kIsatap;
  o.sixrdPrefix = Prefix::parse("2001:db8::/32");
  o.sixrdRelayPrefix = Prefix::parse("192.0.2.0/24");
  o.fwmark = 7;
  Attrs data = Attrs()
                   .u8(IFLA_IPTUN_PROTO, 41)
                   .raw(IFLA_IPTUN_FLAGS, {1, 0})
                   .raw(IFLA_IPTUN_6RD_PREFIX, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
                   .raw(IFLA_IPTUN_6RD_PREFIXLEN, {32, 0})
                   .raw(IFLA_IPTUN_6RD_RELAY_PREFIX, {192, 0, 2, 0})
                   .raw(IFLA_IPTUN_6RD_RELAY_PREFIXLEN, {24, 0})
                   .u32(IFLA_IPTUN_FWMARK, 7);
  Request r = LinkRequests::add(LinkInfo("t0", "sit").setKindOptions(o));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "sit", data)));
  LinkInfo d = decodeKernel("sit", data);
  const auto* back = d.kindOptions<IpTunnelInfo>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->flags, IpTunnelInfo::kIsatap);
  EXPECT_EQ(back->sixrdPrefix, Prefix::parse("2001:db8::/32"));
  EXPECT_EQ(back->sixrdRelayPrefix, Prefix::parse("192.0.2.0/24"));
  EXPECT_TRUE(d.unknownKindData.list().empty());
  // ISATAP and 6rd are sit's: an ipip refuses them rather than sending what its kernel ignores.
  EXPECT_THROW(LinkRequests::add(LinkInfo("t0", "ipip").setKindOptions(o)), Error);
  o.flags.reset();
  o.sixrdPrefix = Prefix::parse("192.0.2.0/24");
  EXPECT_THROW(LinkRequests::add(LinkInfo("t0", "sit").setKindOptions(o)), Error);
}

// gre's fwmark, UDP encapsulation and collect-metadata rows (IFLA_GRE_ENCAP_TYPE 14, FLAGS 15,
// SPORT 16 and DPORT 17 big-endian, COLLECT_METADATA 18, FWMARK 20), as tunnelFields orders them.
TEST(LinkKindsGolden, GreFwmarkEncapAndExternal) {
  GreInfo g;
  g.remote = ip("192.0.2.2");
  g.fwmark = 0x10;
  g.encapType = 1;  // fou
  g.encapFlags = 1;
  g.encapSport = 1000;
  g.encapDport = 5555;
  Attrs data = Attrs()
                   .raw(IFLA_GRE_REMOTE, {192, 0, 2, 2})
                   .u32(IFLA_GRE_FWMARK, 0x10)
                   .u16(IFLA_GRE_ENCAP_TYPE, 1)
                   .u16(IFLA_GRE_ENCAP_FLAGS, 1)
                   .raw(IFLA_GRE_ENCAP_SPORT, {0x03, 0xe8})
                   .raw(IFLA_GRE_ENCAP_DPORT, {0x15, 0xb3});
  Request r = LinkRequests::add(LinkInfo("g0", "gre").setKindOptions(g));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("g0", "gre", data)));
  LinkInfo d = decodeKernel("gre", Attrs(data).raw(IFLA_GRE_COLLECT_METADATA, std::initializer_list<uint8_t>{}));
  const auto* back = d.kindOptions<GreInfo>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->encapDport, 5555);
  EXPECT_EQ(back->fwmark, 0x10u);
  EXPECT_TRUE(back->external);
  GreInfo external;
  external.external = true;
  r = LinkRequests::add(LinkInfo("g0", "gretap").setKindOptions(external));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("g0", "gretap", Attrs().raw(IFLA_GRE_COLLECT_METADATA, std::initializer_list<uint8_t>{}))));
}

// ---- xfrm ----------------------------------------------------------------------------------

TEST(LinkKindsGolden, AddXfrm) {
  // ip link add xf0 type xfrm dev <ifindex 5> if_id 0x2a (iproute2 sends the id, then the link)
  Request r = LinkRequests::add(LinkInfo("xf0", "xfrm").setKindOptions(XfrmInfo().setIfId(42).setDev(Ifref(5))));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("xf0", "xfrm", Attrs().u32(IFLA_XFRM_IF_ID, 42).u32(IFLA_XFRM_LINK, 5))));
  // ip link add xf1 type xfrm external
  Request e = LinkRequests::add(LinkInfo("xf1", "xfrm").setKindOptions(XfrmInfo().setExternal(true)));
  EXPECT_TRUE(sameBytes(e.bytes(), addKind("xf1", "xfrm", Attrs().flag(IFLA_XFRM_COLLECT_METADATA))));
}

TEST(LinkKindsGolden, XfrmRefusesBadValues) {
  EXPECT_THROW(LinkRequests::add(LinkInfo("x", "xfrm").setKindOptions(XfrmInfo().setIfId(0))), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("x", "xfrm").setKindOptions(XfrmInfo().setIfId(1).setExternal(true))), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("x", "xfrm").setKindOptions(XfrmInfo().setIfId(1).setDev(Ifref("eth0")))), Error)
      << "a device name must be resolved first";
}

TEST(LinkKindsGolden, DecodeXfrmRoundTrip) {
  // What xfrmi_fill_info() reports for `if_id 7` without a device: the link 0 is "no device".
  LinkInfo d = decodeKernel("xfrm", Attrs().u32(IFLA_XFRM_LINK, 0).u32(IFLA_XFRM_IF_ID, 7).u32(9, 1));
  const auto* x = d.kindOptions<XfrmInfo>();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->ifId, 7u);
  EXPECT_FALSE(x->dev.has_value());
  EXPECT_FALSE(x->external.has_value());
  ASSERT_EQ(d.unknownKindData.count(), 1u) << "an attribute of a newer kernel stays raw";
  EXPECT_EQ(d.unknownKindData.list()[0].type, 9);

  LinkInfo withDev = decodeKernel("xfrm", Attrs().u32(IFLA_XFRM_LINK, 3).u32(IFLA_XFRM_IF_ID, 8).flag(IFLA_XFRM_COLLECT_METADATA));
  const auto* y = withDev.kindOptions<XfrmInfo>();
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->dev, Ifref(3u));
  EXPECT_EQ(y->external, true);

  Request r = LinkRequests::add(LinkInfo("t0", "xfrm").setKindOptions(*x));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t0", "xfrm", Attrs().u32(IFLA_XFRM_IF_ID, 7))));
}


// ---- ip6tnl / ip6gre -----------------------------------------------------------------------
// As `ip -6 tunnel add` makes them (ip6tunnel.c's defaults: hoplimit 64, encaplimit 4). Numbers
// from include/uapi/linux/if_tunnel.h: IFLA_IPTUN_LINK 1, LOCAL 2, REMOTE 3, TTL 4, ENCAP_LIMIT 6,
// FLOWINFO 7 (be32), FLAGS 8 (u32), PROTO 9; IFLA_GRE_LINK 1, IFLAGS 2, OFLAGS 3, IKEY 4, OKEY 5,
// LOCAL 6, REMOTE 7, TTL 8, ENCAP_LIMIT 11, FLOWINFO 12, FLAGS 13.

const Bytes kV6Local{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const Bytes kV6Remote{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

Ip6TunnelInfo ip6Options() {
  Ip6TunnelInfo o;
  o.local = ip("2001:db8::1");
  o.remote = ip("2001:db8::2");
  o.hoplimit = 64;
  o.encapLimit = 4;
  o.flowinfo = 0x01012345;  // tclass 0x10, flow label 0x12345
  o.flags = Ip6TunnelInfo::kRcvDscpCopy;
  o.dev = Ifref(3u);
  return o;
}

TEST(LinkKindsGolden, AddIp6tnlWithItsInnerProtocol) {
  Ip6TunnelInfo o = ip6Options();
  o.proto = 4;  // ipip6
  Request r = LinkRequests::add(LinkInfo("t6", "ip6tnl").setKindOptions(o));
  Attrs data = Attrs().u32(1, 3).raw(2, kV6Local).raw(3, kV6Remote).u8(4, 64).u8(6, 4).raw(7, {0x01, 0x01, 0x23, 0x45}).u32(8, 0x10).u8(9, 4);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t6", "ip6tnl", data)));
  LinkInfo d = decodeKernel("ip6tnl", data);
  ASSERT_NE(d.kindOptions<Ip6TunnelInfo>(), nullptr);
  EXPECT_EQ(d.kindOptions<Ip6TunnelInfo>()->flowinfo, 0x01012345u);
  EXPECT_EQ(d.kindOptions<Ip6TunnelInfo>()->proto, 4);
  EXPECT_EQ(d.kindOptions<Ip6TunnelInfo>()->remote, ip("2001:db8::2"));
  // GRE's words are not ip6tnl's: refused, not dropped.
  o.ikey = 1;
  EXPECT_THROW(LinkRequests::add(LinkInfo("t6", "ip6tnl").setKindOptions(o)), Error);
}

TEST(LinkKindsGolden, AddIp6greWithKeysInGreSpace) {
  Ip6TunnelInfo o = ip6Options();
  o.ikey = o.okey = 42;
  o.ocsum = true;
  Request r = LinkRequests::add(LinkInfo("g6", "ip6gre").setKindOptions(o));
  Attrs data = Attrs()
                   .u32(1, 3)
                   .raw(2, {0x20, 0x00})  // KEY
                   .raw(3, {0xa0, 0x00})  // CSUM | KEY
                   .raw(4, {0, 0, 0, 42})
                   .raw(5, {0, 0, 0, 42})
                   .raw(6, kV6Local)
                   .raw(7, kV6Remote)
                   .u8(8, 64)
                   .u8(11, 4)
                   .raw(12, {0x01, 0x01, 0x23, 0x45})
                   .u32(13, 0x10);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("g6", "ip6gre", data)));
  LinkInfo decoded = decodeKernel("ip6gre", data);
  const auto* g = decoded.kindOptions<Ip6TunnelInfo>();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ikey, 42u);
  EXPECT_EQ(g->ocsum, true);
  EXPECT_EQ(g->icsum, false);
  EXPECT_EQ(g->local, ip("2001:db8::1"));
  // An IPv4 endpoint is gre's.
  o.remote = ip("192.0.2.1");
  EXPECT_THROW(LinkRequests::add(LinkInfo("g6", "ip6gre").setKindOptions(o)), Error);
}

// What `ip link add t6 type ip6tnl mode ip6ip6 remote 2001:db8::2 fwmark 9 encap fou
// encap-dport 5555` sends after the common rows: PROTO 9, FWMARK 20, ENCAP_TYPE 15, FLAGS 16
// (ip's default encap-udp6-csum: 2), SPORT 17 and DPORT 18 big-endian (with encap-sport 1000); and ip6gre's same options
// in GRE's space (FWMARK 20, ENCAP_* 14-17, COLLECT_METADATA 18).
TEST(LinkKindsGolden, Ip6tnlAndIp6greFwmarkEncapExternalShareTheirRows) {
  Ip6TunnelInfo o;
  o.remote = ip("2001:db8::2");
  o.proto = 41;
  o.fwmark = 9;
  o.encapType = 1;
  o.encapFlags = 2;
  o.encapSport = 1000;
  o.encapDport = 5555;
  Request r = LinkRequests::add(LinkInfo("t6", "ip6tnl").setKindOptions(o));
  Attrs tnl = Attrs().raw(3, kV6Remote).u8(9, 41).u32(20, 9).u16(15, 1).u16(16, 2).raw(17, {0x03, 0xe8}).raw(18, {0x15, 0xb3});
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("t6", "ip6tnl", tnl)));
  o.proto.reset();
  r = LinkRequests::add(LinkInfo("g6", "ip6gretap").setKindOptions(o));
  Attrs gre = Attrs().raw(7, kV6Remote).u32(20, 9).u16(14, 1).u16(15, 2).raw(16, {0x03, 0xe8}).raw(17, {0x15, 0xb3});
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("g6", "ip6gretap", gre)));
  LinkInfo d = decodeKernel("ip6gre", Attrs(gre).raw(18, std::initializer_list<uint8_t>{}));
  const auto* back = d.kindOptions<Ip6TunnelInfo>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->fwmark, 9u);
  EXPECT_EQ(back->encapType, 1);
  EXPECT_EQ(back->encapSport, 1000);
  EXPECT_EQ(back->encapDport, 5555);
  EXPECT_TRUE(back->external);
  EXPECT_TRUE(d.unknownKindData.list().empty());
}

// ---- vti / vti6 ----------------------------------------------------------------------------
// IFLA_VTI_LINK 1, IKEY 2 and OKEY 3 (big-endian), LOCAL 4, REMOTE 5, FWMARK 6; as
// `ip link add v0 type vti local 192.0.2.1 remote 192.0.2.2 ikey 5 okey 1.2.3.4 fwmark 3 dev if2`.

TEST(LinkKindsGolden, AddVtiAndVti6) {
  VtiInfo o = VtiInfo().setLocal(ip("192.0.2.1")).setRemote(ip("192.0.2.2")).setIkey(5).setOkey(0x01020304).setFwmark(3).setDev(Ifref(2u));
  Attrs data = Attrs().u32(1, 2).raw(2, {0, 0, 0, 5}).raw(3, {1, 2, 3, 4}).raw(4, {192, 0, 2, 1}).raw(5, {192, 0, 2, 2}).u32(6, 3);
  Request r = LinkRequests::add(LinkInfo("v0", "vti").setKindOptions(o));
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("v0", "vti", data)));
  LinkInfo d = decodeKernel("vti", data);
  const auto* back = d.kindOptions<VtiInfo>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->ikey, 5u);
  EXPECT_EQ(back->okey, 0x01020304u);
  EXPECT_EQ(back->remote, ip("192.0.2.2"));
  ASSERT_TRUE(back->dev && back->dev->isIndex());
  EXPECT_EQ(back->dev->index(), 2u);
  EXPECT_TRUE(d.unknownKindData.list().empty());

  VtiInfo six = VtiInfo().setLocal(ip("2001:db8::1")).setRemote(ip("2001:db8::2")).setKey(7);
  r = LinkRequests::add(LinkInfo("v6", "vti6").setKindOptions(six));
  Attrs data6 = Attrs().raw(2, {0, 0, 0, 7}).raw(3, {0, 0, 0, 7}).raw(4, kV6Local).raw(5, kV6Remote);
  EXPECT_TRUE(sameBytes(r.bytes(), addKind("v6", "vti6", data6)));
  EXPECT_EQ(decodeKernel("vti6", data6).kindOptions<VtiInfo>()->local, ip("2001:db8::1"));
  // Each kind takes its own family only.
  EXPECT_THROW(LinkRequests::add(LinkInfo("v6", "vti").setKindOptions(six)), Error);
  EXPECT_THROW(LinkRequests::add(LinkInfo("v0", "vti6").setKindOptions(o)), Error);
}

}  // namespace
}  // namespace fastlink
