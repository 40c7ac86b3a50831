#include "rtnl/codec_helpers.hpp"

#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/netlink.h>

#include <algorithm>
#include <climits>

namespace fastlink::rtnl {

const char* verbWord(Verb verb) {
  static const char* const kWords[] = {"add", "del", "set", "replace", "append", "get", "show", "change"};
  return kWords[static_cast<int>(verb)];
}

uint16_t createFlags(Verb verb) {
  switch (verb) {
    case Verb::Add: return NLM_F_CREATE | NLM_F_EXCL;
    case Verb::Replace: return NLM_F_CREATE | NLM_F_REPLACE;
    case Verb::Append: return NLM_F_CREATE | NLM_F_APPEND;
    case Verb::Change: return NLM_F_REPLACE;
    default: return 0;
  }
}

uint8_t familyOf(IpAddress::Family f) { return f == IpAddress::Family::v4 ? AF_INET : AF_INET6; }

std::string devWord(const Ifref& dev) { return dev.isName() ? dev.name() : std::to_string(dev.index()); }

}  // namespace fastlink::rtnl

// The errors of the views' inline readers (fastlink/attr_index.hpp): the decoders' own.
namespace fastlink::detail {
void attributeTooShort(const char* what) { core::attributeTooShort(what); }
void badAddressLength(std::size_t size, const char* what) { core::badAddressLength(size, what); }
}  // namespace fastlink::detail

namespace fastlink::rtnl {

void encodeNetns(core::MessageWriter& writer, const Netns& ns, KeepAlive& keep) {
  if (ns.kind() == Netns::Kind::Pid) {
    writer.putU32(IFLA_NET_NS_PID, static_cast<uint32_t>(ns.rawPid()));
    return;
  }
  auto handle = NetnsHandle::open(ns);  // throws if the namespace does not exist
  writer.putU32(IFLA_NET_NS_FD, static_cast<uint32_t>(handle->fd()));
  keep.push_back(handle);
}

void keepUnknown(const core::AttrTable& table, const std::vector<uint16_t>& known, RawAttributes& out) {
  for (const nlattr* a : table.all()) {
    uint16_t type = core::attrType(a);
    if (std::find(known.begin(), known.end(), type) == known.end()) out.append(type, core::readBytes(a));
  }
}

}  // namespace fastlink::rtnl
