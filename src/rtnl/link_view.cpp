// LinkView (fastlink/link_view.hpp): the link's fields read from the message when asked. Every
// attribute in the link's FieldTable is read through its row (type and wire format) with the
// decoder's own reader, fields::view; the rest with the helpers decodeLink uses.
#include "fastlink/link_view.hpp"

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <exception>
#include <span>
#include <stdexcept>

#include "fastlink/link_view_reads.hpp"
#include "fastlink/netlink.hpp"
#include "core/api_access.hpp"
#include "core/engine.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/link_codec.hpp"
#include "rtnl/link_fields.hpp"
#include "rtnl/view_fields.hpp"
#include "rtnl/link_xdp.hpp"

namespace fastlink {
namespace {

const nlattr* asAttr(const uint8_t* a) { return reinterpret_cast<const nlattr*>(a); }

const rtnl::FieldContext kContext{"decode link"};

}  // namespace

LinkView::LinkView(std::span<const uint8_t> message) : attrs_(rtnl::checkedView<ifinfomsg>(message, "decode link", "link"), sizeof(ifinfomsg)) {}

LinkView::LinkView(std::span<const uint8_t> copy, const Index& index) : attrs_(copy, index) {
  if (copy.size() != index.message().size())
    throw std::invalid_argument("LinkView: the copy is not as long as the indexed message");
}

template <auto kMember>
auto LinkView::read() const {
  return rtnl::viewField<rtnl::kLinkFields, kMember>(attrs_, kContext);
}

namespace {
const ifinfomsg& header(std::span<const uint8_t> message) { return rtnl::viewHeader<ifinfomsg>(message); }
}  // namespace

uint32_t LinkView::index() const { return static_cast<uint32_t>(header(message()).ifi_index); }
uint32_t LinkView::flags() const { return header(message()).ifi_flags; }
uint16_t LinkView::type() const { return header(message()).ifi_type; }
bool LinkView::isUp() const { return flags() & IFF_UP; }
bool LinkView::isRunning() const { return flags() & IFF_RUNNING; }

std::optional<std::string_view> LinkView::name() const { return read<&LinkInfo::name>(); }
std::optional<uint32_t> LinkView::mtu() const { return read<&LinkInfo::mtu>(); }
std::optional<MacAddress> LinkView::address() const { return read<&LinkInfo::address>(); }
std::optional<MacAddress> LinkView::broadcast() const { return read<&LinkInfo::broadcast>(); }
std::optional<uint32_t> LinkView::group() const { return read<&LinkInfo::group>(); }
std::optional<uint32_t> LinkView::master() const { return read<&LinkInfo::master>(); }
uint32_t LinkView::masterIndex() const { return master().value_or(0); }
std::optional<uint32_t> LinkView::parent() const { return read<&LinkInfo::parent>(); }
std::optional<uint32_t> LinkView::txqlen() const { return read<&LinkInfo::txqlen>(); }
std::optional<std::string_view> LinkView::alias() const { return read<&LinkInfo::alias>(); }
std::optional<uint32_t> LinkView::numTxQueues() const { return read<&LinkInfo::numTxQueues>(); }
std::optional<uint32_t> LinkView::numRxQueues() const { return read<&LinkInfo::numRxQueues>(); }
std::optional<bool> LinkView::carrier() const { return read<&LinkInfo::carrier>(); }
std::optional<uint32_t> LinkView::promiscuity() const { return read<&LinkInfo::promiscuity>(); }
std::optional<uint32_t> LinkView::minMtu() const { return read<&LinkInfo::minMtu>(); }
std::optional<uint32_t> LinkView::maxMtu() const { return read<&LinkInfo::maxMtu>(); }
std::optional<std::string_view> LinkView::qdisc() const { return read<&LinkInfo::qdisc>(); }
std::optional<int32_t> LinkView::linkNetnsId() const { return read<&LinkInfo::linkNetnsId>(); }
std::optional<uint32_t> LinkView::allmulti() const { return read<&LinkInfo::allmulti>(); }
std::optional<uint32_t> LinkView::carrierChanges() const { return read<&LinkInfo::carrierChanges>(); }
std::optional<uint32_t> LinkView::gsoMaxSize() const { return read<&LinkInfo::gsoMaxSize>(); }
std::optional<uint32_t> LinkView::gsoMaxSegs() const { return read<&LinkInfo::gsoMaxSegs>(); }
std::optional<uint32_t> LinkView::tsoMaxSize() const { return read<&LinkInfo::tsoMaxSize>(); }
std::optional<uint32_t> LinkView::tsoMaxSegs() const { return read<&LinkInfo::tsoMaxSegs>(); }
std::optional<uint32_t> LinkView::groMaxSize() const { return read<&LinkInfo::groMaxSize>(); }

std::optional<std::string_view> LinkView::operState() const {
  const uint8_t* a = attrs_.find(IFLA_OPERSTATE);
  return a ? std::optional<std::string_view>(rtnl::operStateWord(core::readU8(asAttr(a)))) : std::nullopt;
}

std::optional<std::string_view> LinkView::linkMode() const {
  const uint8_t* a = attrs_.find(IFLA_LINKMODE);
  return a ? std::optional<std::string_view>(rtnl::linkModeWord(core::readU8(asAttr(a)))) : std::nullopt;
}

namespace {
std::optional<std::string_view> linkInfoString(const uint8_t* linkinfo, uint16_t type) {
  if (!linkinfo) return std::nullopt;
  const nlattr* a = rtnl::lastAttr(core::readBytes(asAttr(linkinfo)), type);
  if (!a) return std::nullopt;
  return rtnl::fields::view<std::string>(a, kContext);
}
}  // namespace

std::optional<std::string_view> LinkView::kind() const { return linkInfoString(attrs_.find(IFLA_LINKINFO), IFLA_INFO_KIND); }
std::optional<std::string_view> LinkView::slaveKind() const {
  return linkInfoString(attrs_.find(IFLA_LINKINFO), IFLA_INFO_SLAVE_KIND);
}

std::optional<Ipv6AddrGenMode> LinkView::addrGenMode() const {
  const uint8_t* a = attrs_.find(IFLA_AF_SPEC);
  return a ? rtnl::addrGenModeOf(asAttr(a)) : std::nullopt;
}

std::optional<LinkStats> LinkView::stats() const {
  const uint8_t* a = attrs_.find(IFLA_STATS64);
  return a ? std::optional(rtnl::decodeStats(asAttr(a))) : std::nullopt;
}

std::optional<XdpStatus> LinkView::xdp() const {
  const uint8_t* a = attrs_.find(IFLA_XDP);
  return a ? std::optional(rtnl::decodeXdpStatusNest(asAttr(a))) : std::nullopt;
}

LinkInfo LinkView::toInfo(bool withStats) const {
  return rtnl::decodeLink(reinterpret_cast<const nlmsghdr*>(message().data()), withStats);
}

}  // namespace fastlink

// ---- fastlink/link_view_reads.hpp ---------------------------------------------------------------

namespace fastlink {

LinkInfo linkKindInfo(const LinkView& view) {
  LinkInfo info;
  if (auto nest = view.attribute(IFLA_LINKINFO))
    rtnl::decodeLinkInfoNest(reinterpret_cast<const nlattr*>(nest->data() - NLA_HDRLEN), info);
  return info;
}

bool getLinkView(Netlink& netlink, const Ifref& dev, const std::function<void(const LinkView&)>& each) {
  std::string operation = "link show dev " + dev.toString();
  core::MessageWriter w(RTM_GETLINK, 0);
  rtnl::putDevice(w, dev, operation);
  // The view spans the reply where the engine received it: nothing is copied or decoded. It is
  // valid during `each` only (the sanitizer build poisons the buffer after it, Engine::query).
  // What `each` throws is carried past the query untouched, so that an ENODEV of the caller's
  // own (a lookup in the callback) is not taken for "no such device" here.
  bool answered = false;
  std::exception_ptr callbackFailure;
  bool found = rtnl::find(std::errc::no_such_device, [&] {
                 core::ApiAccess::routeEngine(netlink).query(w.bytes(), operation, [&](const nlmsghdr* m) {
                   if (m->nlmsg_type != RTM_NEWLINK) return;
                   answered = true;
                   try {
                     each(LinkView(std::span(reinterpret_cast<const uint8_t*>(m), m->nlmsg_len)));
                   } catch (...) {
                     callbackFailure = std::current_exception();
                   }
                 });
                 return true;
               }).has_value();
  if (callbackFailure) std::rethrow_exception(callbackFailure);
  if (found && !answered) throw rtnl::malformed(operation, "no link in the reply");
  return found;
}

}  // namespace fastlink
