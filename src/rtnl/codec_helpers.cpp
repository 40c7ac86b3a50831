#include "rtnl/codec_helpers.hpp"

#include <linux/if_link.h>

#include <algorithm>
#include <string>

#include "fastlink/error.hpp"

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

uint32_t requireIndex(const Ifref& ref, std::string_view what) {
  if (ref.isIndex()) return ref.index();
  throw Error::invalidArgument(std::string(what), std::string(what) + " \"" + ref.name() +
                                                      "\" must be resolved to an ifindex first (LinkApi does this)");
}

}  // namespace fastlink::rtnl
