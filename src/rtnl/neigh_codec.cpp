#include "rtnl/neigh_codec.hpp"

#include <sys/socket.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <bit>
#include <cctype>

#include "fastlink/error.hpp"

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
    if (bits & static_cast<uint16_t>(s.state)) {
      if (!out.empty()) out += ',';
      out += s.name;
      bits &= static_cast<uint16_t>(~static_cast<uint16_t>(s.state));
    }
  }
  if (bits) {
    if (!out.empty()) out += ',';
    out += "0x" + [&] {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%x", bits);
      return std::string(buf);
    }();
  }
  return out;
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

namespace rtnl {
namespace {

Error invalid(const std::string& operation, const std::string& why) { return Error::invalidArgument(operation, why); }

uint32_t devIndexOf(const NeighInfo& neigh, const std::string& operation) {
  if (!neigh.dev) throw invalid(operation, "a neighbour needs a device (dev DEV)");
  if (neigh.dev->isName())
    throw invalid(operation, "device \"" + neigh.dev->name() + "\" must be resolved to an ifindex first (NeighApi does this)");
  if (neigh.dev->index() == 0) throw invalid(operation, "ifindex 0 names no device");
  if (neigh.dev->index() > INT32_MAX) throw invalid(operation, "ifindex out of range");
  return neigh.dev->index();
}

}  // namespace

uint8_t neighFamily(IpAddress::Family family) { return family == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

std::string describeNeigh(const char* verb, const NeighInfo& neigh) {
  std::string s = std::string("neigh ") + verb;
  if (neigh.isProxy()) s += " proxy";
  if (neigh.dst) s += " " + neigh.dst->toString();
  if (neigh.lladdr) s += " lladdr " + neigh.lladdr->toString();
  if (neigh.dev) s += " dev " + (neigh.dev->isName() ? neigh.dev->name() : std::to_string(neigh.dev->index()));
  if (neigh.state) {
    std::string st = neighStateName(*neigh.state);
    std::transform(st.begin(), st.end(), st.begin(), [](unsigned char c) { return std::tolower(c); });
    s += " nud " + st;
  }
  if (neigh.isRouter()) s += " router";
  return s;
}

void encodeNeigh(core::MessageWriter& w, const NeighInfo& neigh, NeighEncodeMode mode) {
  static const char* const kVerbs[] = {"add", "replace", "change", "del"};
  std::string operation = describeNeigh(kVerbs[static_cast<int>(mode)], neigh);
  if (!neigh.dst) throw invalid(operation, "a neighbour needs a destination address");
  uint32_t ifindex = devIndexOf(neigh, operation);
  bool del = mode == NeighEncodeMode::Del;
  if (neigh.isProxy()) {
    if (neigh.lladdr) throw invalid(operation, "a proxy entry has no link-layer address");
    if (neigh.state) throw invalid(operation, "a proxy entry has no state");
  }
  if (neigh.lladdr && neigh.lladdr->size() == 0) throw invalid(operation, "empty link-layer address");
  if (neigh.state && std::popcount(static_cast<unsigned>(neigh.state.value())) > 1)
    throw invalid(operation, "a neighbour has one state, not " + neighStateName(*neigh.state));
  if (del && (neigh.lladdr || neigh.router || neigh.externLearn || neigh.protocol || neigh.state))
    throw invalid(operation, "a delete names the entry by address and device only");

  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = neighFamily(neigh.dst->family());
  ndm.ndm_ifindex = static_cast<int32_t>(ifindex);
  if (!del) {
    // Like `ip neigh add`: an entry without a state is permanent (proxies ignore it).
    ndm.ndm_state = static_cast<uint16_t>(neigh.state.value_or(NeighState::Permanent));
  }
  uint8_t flags = 0;
  if (neigh.isProxy()) flags |= NTF_PROXY;
  if (neigh.isRouter()) flags |= NTF_ROUTER;
  if (neigh.externLearn.value_or(false)) flags |= NTF_EXT_LEARNED;
  ndm.ndm_flags = flags;
  w.putBytes(NDA_DST, neigh.dst->bytes());
  if (neigh.lladdr) w.putBytes(NDA_LLADDR, neigh.lladdr->bytes());
  if (neigh.protocol) w.putU8(NDA_PROTOCOL, *neigh.protocol);
}

void encodeNeighGet(core::MessageWriter& w, const IpAddress& dst, uint32_t ifindex, bool proxy) {
  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = neighFamily(dst.family());
  ndm.ndm_ifindex = static_cast<int32_t>(ifindex);
  if (proxy) ndm.ndm_flags = NTF_PROXY;
  w.putBytes(NDA_DST, dst.bytes());
}

void encodeNeighDump(core::MessageWriter& w, std::optional<IpAddress::Family> family, uint32_t ifindex,
                     uint32_t master, bool proxy) {
  // Strict checking: ifindex, state and type stay zero in the header; the device filter goes
  // in NDA_IFINDEX, the bridge/VRF filter in NDA_MASTER.
  auto& ndm = w.putHeader<ndmsg>();
  ndm.ndm_family = family ? neighFamily(*family) : AF_UNSPEC;
  if (proxy) ndm.ndm_flags = NTF_PROXY;
  if (ifindex) w.putU32(NDA_IFINDEX, ifindex);
  if (master) w.putU32(NDA_MASTER, master);
}

NeighInfo decodeNeigh(const nlmsghdr* message) {
  const auto* ndm = core::messageHeader<ndmsg>(message);
  if (!ndm) throw Error(make_error_code(Errc::malformed_reply), "decode neigh", "short neighbour message");
  NeighInfo n;
  n.dev = Ifref(static_cast<uint32_t>(ndm->ndm_ifindex));
  n.flags = ndm->ndm_flags;
  n.proxy = (ndm->ndm_flags & NTF_PROXY) != 0;
  n.router = (ndm->ndm_flags & NTF_ROUTER) != 0;
  n.externLearn = (ndm->ndm_flags & NTF_EXT_LEARNED) != 0;
  if (!n.isProxy()) n.state = static_cast<NeighState>(ndm->ndm_state);
  core::AttrTable t = core::AttrTable::ofMessage(message, sizeof(ndmsg), NDA_MAX);
  for (const nlattr* a : t.all()) {
    switch (core::attrType(a)) {
      case NDA_DST: {
        auto bytes = core::readBytes(a);
        if (bytes.size() != 4 && bytes.size() != 16)
          throw Error(make_error_code(Errc::malformed_reply), "decode neigh", "NDA_DST of " + std::to_string(bytes.size()) + " bytes");
        n.dst = IpAddress::fromBytes(bytes);
        break;
      }
      case NDA_LLADDR: n.lladdr = MacAddress(core::readBytes(a)); break;
      case NDA_PROBES: n.probes = core::readU32(a); break;
      case NDA_PROTOCOL: n.protocol = core::readU8(a); break;
      case NDA_CACHEINFO: {
        auto bytes = core::readBytes(a);
        if (bytes.size() < sizeof(nda_cacheinfo))
          throw Error(make_error_code(Errc::malformed_reply), "decode neigh", "short NDA_CACHEINFO");
        nda_cacheinfo ci;
        std::memcpy(&ci, bytes.data(), sizeof ci);
        n.confirmedAgo = ci.ndm_confirmed;
        n.usedAgo = ci.ndm_used;
        n.updatedAgo = ci.ndm_updated;
        n.refcnt = ci.ndm_refcnt;
        break;
      }
      default: n.unknown.append(core::attrType(a), core::readBytes(a));
    }
  }
  return n;
}

}  // namespace rtnl
}  // namespace fastlink
