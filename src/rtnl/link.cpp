// Links: request builders, and the kernel-backed LinkApi.
#include <fnmatch.h>
#include <linux/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/link.hpp"
#include "rtnl/link_codec.hpp"

namespace fastlink {

using core::MessageWriter;
using rtnl::KeepAlive;
using rtnl::LinkEncodeMode;

// ---- LinkInfo ---------------------------------------------------------------------------------

bool LinkInfo::isUp() const { return flags ? (*flags & IFF_UP) != 0 : admin.value_or(false); }
bool LinkInfo::isRunning() const { return flags && (*flags & IFF_RUNNING) != 0; }
uint32_t LinkInfo::masterIndex() const { return master && master->isIndex() ? master->index() : 0; }
uint32_t LinkInfo::parentIndex() const { return parent && parent->isIndex() ? parent->index() : 0; }

std::vector<std::string> knownLinkKinds() {
  std::vector<std::string> out;
  for (const auto* k : rtnl::allLinkKinds()) out.emplace_back(k->kind);
  return out;
}

// ---- LinkRequests -------------------------------------------------------------------------

namespace {

Request build(uint16_t type, uint16_t flags, const LinkInfo& link, LinkEncodeMode mode, std::string operation) {
  MessageWriter w(type, flags);
  KeepAlive keep;
  rtnl::encodeLink(w, link, mode, keep);
  return w.toRequest(std::move(operation), std::move(keep));
}

Request deviceOnly(uint16_t type, const Ifref& dev, std::string operation) {
  MessageWriter w(type, 0);
  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_UNSPEC;
  if (dev.isIndex()) {
    if (dev.index() == 0) throw Error::invalidArgument(operation, "ifindex 0 names no device");
    ifi.ifi_index = static_cast<int>(dev.index());
  } else {
    validateIfname(dev.name());
    w.putString(IFLA_IFNAME, dev.name());
  }
  return w.toRequest(std::move(operation));
}

}  // namespace

Request LinkRequests::add(const LinkInfo& link) {
  if (!link.name) throw Error::invalidArgument("link add", "a new device needs a name");
  return build(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, link, LinkEncodeMode::Create, rtnl::describeLink("add", link));
}

Request LinkRequests::replace(const LinkInfo& link) {
  if (!link.name && !link.index) throw Error::invalidArgument("link replace", "needs a name or an index");
  // NLM_F_CREATE without EXCL: create, or change the existing device in place.
  return build(RTM_NEWLINK, NLM_F_CREATE, link, LinkEncodeMode::Create, rtnl::describeLink("replace", link));
}

Request LinkRequests::set(const Ifref& dev, const LinkInfo& changes) {
  std::string operation = "link set dev " + dev.toString();
  if (dev.isIndex()) {
    if (dev.index() == 0) throw Error::invalidArgument(operation, "ifindex 0 names no device");
  } else {
    validateIfname(dev.name());
    if (changes.name && *changes.name != dev.name())
      // The kernel looks a device up by IFLA_IFNAME before IFLA_ALT_IFNAME, so a rename must
      // name the device by index.
      throw Error::invalidArgument(operation, "renaming needs the device's ifindex (LinkApi::set resolves it)");
  }
  if (changes.name && dev.isIndex()) operation += " name " + *changes.name;
  MessageWriter w(RTM_NEWLINK, 0);
  KeepAlive keep;
  rtnl::encodeLink(w, changes, LinkEncodeMode::Change, keep, &dev);
  return w.toRequest(std::move(operation), std::move(keep));
}

Request LinkRequests::del(const Ifref& dev) { return deviceOnly(RTM_DELLINK, dev, "link del dev " + dev.toString()); }

Request LinkRequests::setGroup(uint32_t group, const LinkInfo& changes) {
  // ifindex 0 and no name: the kernel applies the change to every device of IFLA_GROUP.
  MessageWriter w(RTM_NEWLINK, 0);
  KeepAlive keep;
  rtnl::encodeLink(w, changes, LinkEncodeMode::Group, keep);
  w.putU32(IFLA_GROUP, group);
  return w.toRequest(rtnl::describeLink(("set group " + std::to_string(group)).c_str(), changes), std::move(keep));
}

Request LinkRequests::delGroup(uint32_t group) {
  std::string operation = "link del group " + std::to_string(group);
  if (group == 0) throw Error::invalidArgument(operation, "refusing to delete group 0: it holds every device by default");
  MessageWriter w(RTM_DELLINK, 0);
  w.putHeader<ifinfomsg>().ifi_family = AF_UNSPEC;
  w.putU32(IFLA_GROUP, group);
  return w.toRequest(std::move(operation));
}

// ---- LinkApi --------------------------------------------------------------------------------

namespace {

bool needsResolving(const LinkInfo& link) {
  return (link.master && link.master->isName()) || (link.parent && link.parent->isName()) ||
         rtnl::kindOptionsNameDevices(link);
}

// The common case (no names to resolve) encodes `link` itself: no copy of the whole LinkInfo.
const LinkInfo& resolved(LinkApi& api, const LinkInfo& link, std::optional<LinkInfo>& storage) {
  return needsResolving(link) ? storage.emplace(api.resolveNames(link)) : link;
}

}  // namespace

void LinkApi::add(const LinkInfo& link) {
  std::optional<LinkInfo> storage;
  Request r = LinkRequests::add(resolved(*this, link, storage));
  engine_.execute(r.bytes(), r.operation());
}

void LinkApi::replace(const LinkInfo& link) {
  std::optional<LinkInfo> storage;
  Request r = LinkRequests::replace(resolved(*this, link, storage));
  engine_.execute(r.bytes(), r.operation());
}

void LinkApi::set(const Ifref& dev, const LinkInfo& changes) {
  bool rename = dev.isName() && changes.name && *changes.name != dev.name();
  std::optional<LinkInfo> storage;
  Request r = LinkRequests::set(rename ? Ifref(indexOf(dev)) : dev, resolved(*this, changes, storage));
  engine_.execute(r.bytes(), r.operation());
}

void LinkApi::del(const Ifref& dev) {
  Request r = LinkRequests::del(dev);
  engine_.execute(r.bytes(), r.operation());
}

void LinkApi::setGroup(uint32_t group, const LinkInfo& changes) {
  std::optional<LinkInfo> storage;
  Request r = LinkRequests::setGroup(group, resolved(*this, changes, storage));
  engine_.execute(r.bytes(), r.operation());
}

void LinkApi::delGroup(uint32_t group) {
  Request r = LinkRequests::delGroup(group);
  engine_.execute(r.bytes(), r.operation());
}

LinkInfo LinkApi::get(const Ifref& dev, bool withStats) {
  std::string operation = "link show dev " + dev.toString();
  MessageWriter w(RTM_GETLINK, 0);
  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_UNSPEC;
  if (dev.isIndex()) {
    ifi.ifi_index = static_cast<int>(dev.index());
  } else {
    validateIfname(dev.name());
    w.putString(IFLA_IFNAME, dev.name());
  }
  std::optional<LinkInfo> out;
  engine_.query(w.bytes(), operation, [&](const nlmsghdr* m) {
    if (m->nlmsg_type == RTM_NEWLINK) out = rtnl::decodeLink(m, withStats);
  });
  if (!out) throw Error(make_error_code(Errc::malformed_reply), operation, "no link in the reply");
  return std::move(*out);
}

std::optional<LinkInfo> LinkApi::find(const Ifref& dev, bool withStats) {
  try {
    return get(dev, withStats);
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_device) return std::nullopt;
    throw;
  }
}

uint32_t LinkApi::indexOf(const Ifref& dev) {
  if (dev.isIndex()) return dev.index();
  return *get(dev).index;
}

LinkInfo LinkApi::resolveNames(const LinkInfo& link) {
  LinkInfo out = link;
  if (out.master && out.master->isName()) out.master = Ifref(indexOf(*out.master));
  if (out.parent && out.parent->isName()) out.parent = Ifref(indexOf(*out.parent));
  rtnl::resolveKindDevices(out, [this](const Ifref& dev) { return indexOf(dev); });
  return out;
}

namespace {

// The dump behind forEach and list: hands each decoded link over by rvalue, so list() can move
// it into its vector instead of copying ~1.2 KB per device.
void dumpLinks(core::Engine& engine, LinkApi& api, const LinkFilter& filter,
               const std::function<void(LinkInfo&&)>& each, const std::function<void()>& restart) {
  MessageWriter w(RTM_GETLINK, 0);
  w.putHeader<ifinfomsg>().ifi_family = AF_UNSPEC;
  // Kind and master are filtered by the kernel (strict checking is on); the rest here.
  if (filter.kind) {
    std::size_t info = w.beginNest(IFLA_LINKINFO);
    w.putString(IFLA_INFO_KIND, *filter.kind);
    w.endNest(info);
  }
  if (filter.master) w.putU32(IFLA_MASTER, api.indexOf(*filter.master));
  if (filter.kernelSkipStats) w.putU32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  engine.dump(
      w.bytes(), "link show",
      [&](const nlmsghdr* m) {
        if (m->nlmsg_type != RTM_NEWLINK) return;
        LinkInfo link = rtnl::decodeLink(m, filter.withStats);
        if (filter.group && link.group != filter.group) return;
        if (filter.namePattern && (!link.name || fnmatch(filter.namePattern->c_str(), link.name->c_str(), 0) != 0))
          return;
        each(std::move(link));
      },
      restart);
}

}  // namespace

void LinkApi::forEach(const LinkFilter& filter, const std::function<void(const LinkInfo&)>& each,
                      const std::function<void()>& restart) {
  dumpLinks(engine_, *this, filter, [&](LinkInfo&& link) { each(link); }, restart);
}

std::vector<LinkInfo> LinkApi::list(const LinkFilter& filter) {
  std::vector<LinkInfo> out;
  dumpLinks(engine_, *this, filter, [&](LinkInfo&& link) { out.push_back(std::move(link)); }, [&] { out.clear(); });
  return out;
}

}  // namespace fastlink
