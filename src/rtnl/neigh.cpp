// Neighbours: the codec (NeighInfo <-> RTM_NEWNEIGH/RTM_DELNEIGH/RTM_GETNEIGH of AF_INET/AF_INET6),
// the request builders, and the kernel-backed NeighApi over the kit.
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>

#include "fastlink/neigh.hpp"
#include "fastlink/neigh_view.hpp"
#include "fastlink/netlink.hpp"
#include "core/attr_fields.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/neigh_codec.hpp"
#include "rtnl/view_fields.hpp"

namespace fastlink::rtnl {
namespace {

constexpr FieldTable kFields({
    field<NDA_DST, &NeighInfo::dst>(),
    field<NDA_LLADDR, &NeighInfo::lladdr>(),
    field<NDA_PROTOCOL, &NeighInfo::protocol>(),
    field<NDA_PROBES, &NeighInfo::probes, Wire::Reported>(),
});

constexpr FlagBit<NeighInfo> kFlagBits[] = {
    {NTF_PROXY, &NeighInfo::proxy}, {NTF_ROUTER, &NeighInfo::router}, {NTF_EXT_LEARNED, &NeighInfo::externLearn}};

std::string describe(Verb verb, const NeighInfo& neigh) {
  std::string s = std::string("neigh ") + (verb == Verb::Set ? "change" : verbWord(verb));
  if (neigh.isProxy()) s += " proxy";
  if (neigh.dst) s += " " + neigh.dst->toString();
  if (neigh.lladdr) s += " lladdr " + neigh.lladdr->toString();
  if (neigh.dev) s += " dev " + devWord(*neigh.dev);
  if (neigh.state) {
    std::string st = neighStateName(*neigh.state);
    std::transform(st.begin(), st.end(), st.begin(), [](unsigned char c) { return std::tolower(c); });
    s += " nud " + st;
  }
  if (neigh.isRouter()) s += " router";
  return s;
}

}  // namespace

Request encodeNeigh(const NeighInfo& neigh, Verb verb) {
  auto operation = [&] { return describe(verb, neigh); };
  if (!neigh.dst) throw invalid(operation, "a neighbour needs a destination address");
  if (!neigh.dev) throw invalid(operation, "a neighbour needs a device (dev DEV)");
  uint32_t ifindex = requireIndex(*neigh.dev, "dev", true);
  bool del = verb == Verb::Del;
  if (neigh.isProxy()) {
    if (neigh.lladdr) throw invalid(operation, "a proxy entry has no link-layer address");
    if (neigh.state) throw invalid(operation, "a proxy entry has no state");
  }
  if (neigh.lladdr && neigh.lladdr->size() == 0) throw invalid(operation, "empty link-layer address");
  if (neigh.state && std::popcount(static_cast<unsigned>(neigh.state.value())) > 1)
    throw invalid(operation, "a neighbour has one state, not " + neighStateName(*neigh.state));
  if (del && (neigh.lladdr || neigh.router || neigh.externLearn || neigh.protocol || neigh.state))
    throw invalid(operation, "a delete names the entry by address and device only");

  core::MessageWriter w(messageType(verb, RTM_NEWNEIGH), verb == Verb::Set ? NLM_F_REPLACE : createFlags(verb));
  auto& ndm = putNdmsg(w, familyOf(neigh.dst->family()), ifindex);
  if (!del) {
    // Like `ip neigh add`: an entry without a state is permanent (proxies ignore it).
    ndm.ndm_state = static_cast<uint16_t>(neigh.state.value_or(NeighState::Permanent));
  }
  ndm.ndm_flags = static_cast<uint8_t>(encodeBits(neigh, kFlagBits));
  kFields.encode(w, neigh);
  return w.toRequest(lazily(verb, neigh, describe));
}

ndmsg& putNdmsg(core::MessageWriter& w, uint8_t family, uint32_t ifindex) {
  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = family;
  ndm.ndm_ifindex = static_cast<int32_t>(ifindex);
  return ndm;
}

std::optional<nda_cacheinfo> readCacheinfo(const nlattr* a, const char* what) {
  if (core::attrType(a) != NDA_CACHEINFO) return std::nullopt;
  return readExact<nda_cacheinfo>(a, what);
}

void encodeNeighGet(core::MessageWriter& w, const IpAddress& dst, uint32_t ifindex, bool proxy) {
  auto& ndm = putNdmsg(w, familyOf(dst.family()), ifindex);
  if (proxy) ndm.ndm_flags = NTF_PROXY;
  w.putBytes(NDA_DST, dst.bytes());
}

void encodeNeighDump(core::MessageWriter& w, std::optional<IpAddress::Family> family, uint32_t ifindex,
                     uint32_t master, bool proxy) {
  // Strict checking: ifindex, state and type stay zero in the header; the device filter goes
  // in NDA_IFINDEX, the bridge/VRF filter in NDA_MASTER.
  auto& ndm = putNdmsg(w, family ? familyOf(*family) : AF_UNSPEC, 0);
  if (proxy) ndm.ndm_flags = NTF_PROXY;
  if (ifindex) w.putU32(NDA_IFINDEX, ifindex);
  if (master) w.putU32(NDA_MASTER, master);
}

NeighInfo decodeNeigh(const nlmsghdr* message) {
  NeighInfo n;
  const auto& ndm = decodeNdmsg(message, "neigh", "decode neigh", n, kFields, kFlagBits, [&](const nda_cacheinfo& ci) {
    n.confirmedAgo = ci.ndm_confirmed, n.usedAgo = ci.ndm_used, n.updatedAgo = ci.ndm_updated, n.refcnt = ci.ndm_refcnt;
  });
  if (!n.isProxy()) n.state = static_cast<NeighState>(ndm.ndm_state);
  return n;
}

}  // namespace fastlink::rtnl

namespace fastlink {
namespace {

struct StateName {
  NeighState state;
  const char* name;
};

constexpr StateName kStateNames[] = {
    {NeighState::Incomplete, "INCOMPLETE"}, {NeighState::Reachable, "REACHABLE"}, {NeighState::Stale, "STALE"},
    {NeighState::Delay, "DELAY"},           {NeighState::Probe, "PROBE"},         {NeighState::Failed, "FAILED"},
    {NeighState::Noarp, "NOARP"},           {NeighState::Permanent, "PERMANENT"},
};

}  // namespace

std::string neighStateName(NeighState state) {
  auto bits = static_cast<uint16_t>(state);
  if (bits == 0) return "NONE";
  std::string out;
  for (const auto& s : kStateNames) {
    if (!(bits & static_cast<uint16_t>(s.state))) continue;
    out += (out.empty() ? "" : ",") + std::string(s.name);
    bits &= static_cast<uint16_t>(~static_cast<uint16_t>(s.state));
  }
  char rest[12] = "";
  if (bits) std::snprintf(rest, sizeof rest, "%s0x%x", out.empty() ? "" : ",", bits);
  return out + rest;
}

NeighState parseNeighState(std::string_view word) {
  std::string upper(word);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (upper == "NONE") return NeighState::None;
  for (const auto& s : kStateNames)
    if (upper == s.name) return s.state;
  throw Error::invalidArgument("neigh", "unknown neighbour state \"" + std::string(word) +
                                            "\" (permanent, noarp, reachable, stale, none, incomplete, delay, "
                                            "probe, failed)");
}

// NeighView (fastlink/neigh_view.hpp): the neighbour's FieldTable rows read with the decoder's
// reader; the ndmsg, its flag bits and NDA_CACHEINFO with decodeNeigh's rules.
NeighView::NeighView(std::span<const uint8_t> message)
    : attrs_(rtnl::checkedView<ndmsg>(message, "decode neigh", "neigh"), sizeof(ndmsg)) {}

namespace {
const ndmsg& ndmOf(const NeighView& v) { return rtnl::viewHeader<ndmsg>(v.message()); }
const rtnl::FieldContext kNeighContext{"decode neigh"};

std::optional<nda_cacheinfo> viewCacheinfo(const detail::AttrIndex<NeighView::kIndexedTypes>& attrs) {
  const auto* a = reinterpret_cast<const nlattr*>(attrs.find(NDA_CACHEINFO));
  return a ? rtnl::readCacheinfo(a, kNeighContext.what) : std::nullopt;
}

std::optional<uint32_t> cacheinfoField(const detail::AttrIndex<NeighView::kIndexedTypes>& attrs,
                                       uint32_t nda_cacheinfo::*field) {
  auto ci = viewCacheinfo(attrs);
  return ci ? std::optional<uint32_t>((*ci).*field) : std::nullopt;
}
}  // namespace

template <auto kMember>
auto NeighView::read() const {
  return rtnl::viewField<rtnl::kFields, kMember>(attrs_, kNeighContext);
}

uint32_t NeighView::devIndex() const { return static_cast<uint32_t>(ndmOf(*this).ndm_ifindex); }
uint8_t NeighView::flags() const { return ndmOf(*this).ndm_flags; }
bool NeighView::proxy() const { return flags() & NTF_PROXY; }
bool NeighView::router() const { return flags() & NTF_ROUTER; }
bool NeighView::externLearn() const { return flags() & NTF_EXT_LEARNED; }
std::optional<NeighState> NeighView::state() const {
  return proxy() ? std::nullopt : std::optional(static_cast<NeighState>(ndmOf(*this).ndm_state));
}

std::optional<IpAddress> NeighView::dst() const { return read<&NeighInfo::dst>(); }
std::optional<MacAddress> NeighView::lladdr() const { return read<&NeighInfo::lladdr>(); }
std::optional<uint8_t> NeighView::protocol() const { return read<&NeighInfo::protocol>(); }
std::optional<uint32_t> NeighView::probes() const { return read<&NeighInfo::probes>(); }
std::optional<uint32_t> NeighView::confirmedAgo() const { return cacheinfoField(attrs_, &nda_cacheinfo::ndm_confirmed); }
std::optional<uint32_t> NeighView::usedAgo() const { return cacheinfoField(attrs_, &nda_cacheinfo::ndm_used); }
std::optional<uint32_t> NeighView::updatedAgo() const { return cacheinfoField(attrs_, &nda_cacheinfo::ndm_updated); }
std::optional<uint32_t> NeighView::refcnt() const { return cacheinfoField(attrs_, &nda_cacheinfo::ndm_refcnt); }

NeighInfo NeighView::toInfo() const { return rtnl::decodeNeigh(reinterpret_cast<const nlmsghdr*>(message().data())); }

namespace {

struct Traits : rtnl::Object<NeighInfo, NeighFilter, RTM_NEWNEIGH, rtnl::kIpFamilies> {
  static constexpr const char* kNoun = "neighbour";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) {
    rtnl::encodeNeighDump(w, f.family, ix.dev, ix.master, f.proxy);
  }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { out = rtnl::decodeNeigh(m); }
  // The kernel has no state filter.
  static bool matches(const Info& n, const Filter& f, const rtnl::Indexes&) {
    return !f.stateMask || n.isProxy() || stateMatches(n.state, f);
  }
  using View = NeighView;
  static bool matchesView(const NeighView& n, const Filter& f, const rtnl::Indexes&) {
    return !f.stateMask || n.proxy() || stateMatches(n.state(), f);
  }
  static bool stateMatches(std::optional<NeighState> state, const Filter& f) {
    auto bits = static_cast<uint16_t>(state.value_or(NeighState::None));
    return bits ? (bits & *f.stateMask) != 0 : (*f.stateMask & kNeighStateNoneBit) != 0;
  }
  static std::string show(const Filter& f) {
    return std::string("neigh show") + (f.proxy ? " proxy" : "") + (f.dev ? " dev " + f.dev->toString() : "") +
           (f.master ? " master " + f.master->toString() : "");
  }
};

}  // namespace

NeighApi& Netlink::neighbours() { return lazy(neighbours_); }

FASTLINK_RTNL_VERB(Neigh, add, Add, encodeNeigh)
FASTLINK_RTNL_VERB(Neigh, replace, Replace, encodeNeigh)
FASTLINK_RTNL_VERB(Neigh, change, Set, encodeNeigh)
FASTLINK_RTNL_VERB(Neigh, del, Del, encodeNeigh)

NeighInfo NeighApi::get(const IpAddress& dst, const Ifref& dev, bool proxy) {
  std::string operation = std::string("neigh get ") + (proxy ? "proxy " : "") + dst.toString() + " dev " + dev.toString();
  core::MessageWriter w(RTM_GETNEIGH, 0);
  rtnl::encodeNeighGet(w, dst, rtnl::Names(engine_).index(dev), proxy);
  return rtnl::get<Traits>(engine_, w, operation);
}

std::optional<NeighInfo> NeighApi::find(const IpAddress& dst, const Ifref& dev, bool proxy) {
  return rtnl::find(std::errc::no_such_file_or_directory, [&] { return get(dst, dev, proxy); });
}

FASTLINK_RTNL_LIST_API(NeighApi, Traits)
FASTLINK_RTNL_VIEW_API(NeighApi, Traits, forEachNeigh, neighbours)

std::size_t NeighApi::flush(const NeighFilter& filter) {
  NeighFilter f = filter;
  if (!f.stateMask && !f.proxy)  // like `ip neigh flush`: permanent and noarp entries stay
    f.stateMask = static_cast<uint16_t>(0xffff & ~(static_cast<uint16_t>(NeighState::Permanent) |
                                                 static_cast<uint16_t>(NeighState::Noarp)));
  auto key = [](const NeighInfo& n) -> std::optional<NeighInfo> {
    if (!n.dst) return std::nullopt;
    NeighInfo k(*n.dst, *n.dev);
    if (n.isProxy()) k.proxy = true;
    return k;
  };
  // An entry that vanished meanwhile is already flushed.
  return rtnl::flush<Traits>(engine_, f, key, NeighRequests::del, {std::errc::no_such_file_or_directory});
}

}  // namespace fastlink
