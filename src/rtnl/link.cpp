// Links: request builders, and the kernel-backed LinkApi over the kit.
#include <fnmatch.h>
#include <linux/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/socket.hpp"
#include "fastlink/link.hpp"
#include "fastlink/link_view.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/link_codec.hpp"

namespace fastlink {
namespace {

using rtnl::Verb;

struct Traits : rtnl::Object<LinkInfo, LinkFilter, RTM_NEWLINK> {
  static constexpr const char* kNoun = "link";
  static void devices(auto& l, auto&& visit) {
    visit(l.master);
    visit(l.parent);
    // Devices named inside kind options (vxlan dev, gre/ipip link) come from the kind registry.
    // It hands out pointers into a non-const LinkInfo; read-only visits never write back.
    for (Ifref* ref : rtnl::kindDeviceRefs(const_cast<LinkInfo&>(static_cast<const LinkInfo&>(l)))) {
      std::optional<Ifref> device = *ref;
      visit(device);
      if (device && !(*device == *ref)) *ref = *device;
    }
  }
  // Kind and master are filtered by the kernel (strict checking is on); the rest in matches.
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) {
    w.putHeader<ifinfomsg>().ifi_family = AF_UNSPEC;
    if (f.kind) {
      std::size_t info = w.beginNest(IFLA_LINKINFO);
      w.putString(IFLA_INFO_KIND, *f.kind);
      w.endNest(info);
    }
    if (ix.master) w.putU32(IFLA_MASTER, ix.master);
    if (f.kernelSkipStats) w.putU32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  }
  static void decode(const nlmsghdr* m, Info& out, const Filter& f) { out = rtnl::decodeLink(m, f.withStats); }
  static bool matches(const Info& l, const Filter& f, const rtnl::Indexes&) {
    if (f.group && l.group != f.group) return false;
    return !f.namePattern || (l.name && fnmatch(f.namePattern->c_str(), l.name->c_str(), 0) == 0);
  }
  using View = LinkView;
  static bool matchesView(const LinkView& l, const Filter& f, const rtnl::Indexes&) {
    if (f.group && l.group() != f.group) return false;
    if (!f.namePattern) return true;
    auto name = l.name();
    if (!name) return false;
    char z[IFNAMSIZ * 4];  // fnmatch takes a C string: no allocation for a device's name
    // A longer name (no kernel sends one, a hostile peer may) is matched as list() matches it.
    if (name->size() >= sizeof z) return fnmatch(f.namePattern->c_str(), std::string(*name).c_str(), 0) == 0;
    name->copy(z, name->size());
    z[name->size()] = 0;
    return fnmatch(f.namePattern->c_str(), z, 0) == 0;
  }
};

// `group`: a Set without a device, applied by the kernel to every device of IFLA_GROUP.
Request build(const LinkInfo& link, Verb verb, uint16_t flags, Request::Describer operation, const Ifref* device = nullptr,
              std::optional<uint32_t> group = std::nullopt) {
  core::MessageWriter w(RTM_NEWLINK, flags);
  rtnl::KeepAlive keep;
  rtnl::encodeLink(w, link, verb, keep, device);
  if (group) w.putU32(IFLA_GROUP, *group);
  return w.toRequest(std::move(operation), std::move(keep));
}

// The lazy description of add/replace/set group: only the fields describeLink reads are kept.
Request::Describer describe(std::string verb, const LinkInfo& l) {
  LinkInfo words;
  words.name = l.name, words.index = l.index, words.kind = l.kind, words.mtu = l.mtu, words.admin = l.admin;
  return [verb = std::move(verb), words = std::move(words)] { return rtnl::describeLink(verb, words); };
}

// masterName: the kernel reports a master by index only (IFLA_MASTER), where users expect its
// name. A dump names it for free when the master is in the same dump; any other is one
// SIOCGIFNAME on the socket, in its namespace. Left unset when that cannot be answered (the
// unit tests' fake kernel has no socket) or the master went away meanwhile.
void nameMaster(core::Engine& engine, LinkInfo& link) {
  if (uint32_t master = link.masterIndex(); master && engine.fd() >= 0) link.masterName = core::interfaceName(engine.fd(), master);
}

void nameMasters(core::Engine& engine, std::vector<LinkInfo>& links) {
  if (std::none_of(links.begin(), links.end(), [](const LinkInfo& l) { return l.masterIndex() != 0; })) return;
  std::unordered_map<uint32_t, std::string> names;
  for (const LinkInfo& l : links)
    if (l.index && l.name) names.emplace(*l.index, *l.name);
  for (LinkInfo& l : links) {
    if (!l.masterIndex()) continue;
    auto found = names.find(l.masterIndex());
    if (found != names.end()) l.masterName = found->second;
    else nameMaster(engine, l);
  }
}

}  // namespace

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

Request LinkRequests::add(const LinkInfo& link) {
  if (!link.name) throw Error::invalidArgument("link add", "a new device needs a name");
  return build(link, Verb::Add, rtnl::createFlags(Verb::Add), describe("add", link));
}

Request LinkRequests::replace(const LinkInfo& link) {
  if (!link.name && !link.index) throw Error::invalidArgument("link replace", "needs a name or an index");
  // NLM_F_CREATE without REPLACE: create, or change the existing device in place.
  return build(link, Verb::Replace, NLM_F_CREATE, describe("replace", link));
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
  return build(changes, Verb::Set, 0, [operation = std::move(operation)] { return operation; }, &dev);
}

Request LinkRequests::del(const Ifref& dev) {
  std::string operation = "link del dev " + dev.toString();
  core::MessageWriter w(RTM_DELLINK, 0);
  rtnl::putDevice(w, dev, operation);
  return w.toRequest(std::move(operation));
}

Request LinkRequests::setGroup(uint32_t group, const LinkInfo& changes) {
  return build(changes, Verb::Set, 0, describe("set group " + std::to_string(group), changes), nullptr, group);
}

Request LinkRequests::delGroup(uint32_t group) {
  std::string operation = "link del group " + std::to_string(group);
  if (group == 0) throw Error::invalidArgument(operation, "refusing to delete group 0: it holds every device by default");
  core::MessageWriter w(RTM_DELLINK, 0);
  w.putHeader<ifinfomsg>().ifi_family = AF_UNSPEC;
  w.putU32(IFLA_GROUP, group);
  return w.toRequest(std::move(operation));
}

// ---- LinkApi --------------------------------------------------------------------------------

void LinkApi::add(const LinkInfo& link) { rtnl::apply<Traits>(engine_, link, LinkRequests::add); }
void LinkApi::replace(const LinkInfo& link) { rtnl::apply<Traits>(engine_, link, LinkRequests::replace); }
void LinkApi::del(const Ifref& dev) { rtnl::send(engine_, LinkRequests::del(dev)); }
void LinkApi::delGroup(uint32_t group) { rtnl::send(engine_, LinkRequests::delGroup(group)); }

void LinkApi::set(const Ifref& dev, const LinkInfo& changes) {
  bool rename = dev.isName() && changes.name && *changes.name != dev.name();
  Ifref target = rename ? Ifref(indexOf(dev)) : dev;
  rtnl::apply<Traits>(engine_, changes, [&](const LinkInfo& c) { return LinkRequests::set(target, c); });
}

void LinkApi::setGroup(uint32_t group, const LinkInfo& changes) {
  rtnl::apply<Traits>(engine_, changes, [&](const LinkInfo& c) { return LinkRequests::setGroup(group, c); });
}

LinkInfo LinkApi::get(const Ifref& dev, bool withStats) {
  std::string operation = "link show dev " + dev.toString();
  core::MessageWriter w(RTM_GETLINK, 0);
  rtnl::putDevice(w, dev, operation);
  LinkInfo link = rtnl::get<Traits>(engine_, w, operation, LinkFilter().setWithStats(withStats));
  nameMaster(engine_, link);
  return link;
}

std::optional<LinkInfo> LinkApi::find(const Ifref& dev, bool withStats) {
  return rtnl::find(std::errc::no_such_device, [&] { return get(dev, withStats); });
}

uint32_t LinkApi::indexOf(const Ifref& dev) { return rtnl::Names(engine_).index(dev); }

std::optional<uint32_t> LinkApi::findIndex(const std::string& name) { return rtnl::findIndex(engine_, name); }

LinkInfo LinkApi::resolveNames(const LinkInfo& link) { return rtnl::resolved<Traits>(engine_, link); }

void LinkApi::forEach(const LinkFilter& filter, const std::function<void(const LinkInfo&)>& each,
                      const std::function<void()>& restart) {
  rtnl::forEach<Traits>(engine_, filter, each, restart);
}

std::vector<LinkInfo> LinkApi::list(const LinkFilter& filter) {
  std::vector<LinkInfo> links = rtnl::list<Traits>(engine_, filter);
  nameMasters(engine_, links);
  return links;
}

FASTLINK_RTNL_VIEW_API(LinkApi, Traits, forEachLink, links)

// Like every API's accessor, defined beside the API it hands out (the factory names no object).
LinkApi& Netlink::links() {
  if (!links_) links_.reset(new LinkApi(routeEngine()));
  return *links_;
}

void rtnl::forEachLinkView(core::Engine& engine, const LinkFilter& filter, const std::function<void(const LinkView&)>& each,
                           const std::function<void()>& restart) {
  auto run = detail::viewRun<LinkView>(filter, each);
  rtnl::forEachViewRun<Traits>(engine, filter, detail::RunSink(run), restart);
}

}  // namespace fastlink
