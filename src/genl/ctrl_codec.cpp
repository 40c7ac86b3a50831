// nlctrl codec: the GETFAMILY request, and the family description in its reply.
#include "genl/ctrl_codec.hpp"

#include <linux/genetlink.h>

#include <string>

#include "genl/genl_message.hpp"

namespace fastlink::genl {

using core::AttrTable;

namespace {

// The controller's protocol version (the kernel's genl_ctrl family registers version 2); the
// kernel does not check it, iproute2 and libmnl's examples send 0 and 1.
constexpr uint8_t kCtrlVersion = 2;

void decodeOps(const nlattr* nest, std::vector<GenlOperation>& out) {
  // A nest of nests, one per command, each numbered from 1 (the number is only an index).
  AttrTable entries = AttrTable::ofNest(nest, 0);  // named: all() refers into it
  for (const nlattr* entry : entries.all()) {
    AttrTable t = AttrTable::ofNest(entry, CTRL_ATTR_OP_MAX);
    GenlOperation op;
    if (auto* a = t.get(CTRL_ATTR_OP_ID)) op.id = core::readU32(a);
    if (auto* a = t.get(CTRL_ATTR_OP_FLAGS)) op.flags = core::readU32(a);
    out.push_back(op);
  }
}

void decodeGroups(const nlattr* nest, std::vector<GenlGroup>& out) {
  AttrTable entries = AttrTable::ofNest(nest, 0);
  for (const nlattr* entry : entries.all()) {
    AttrTable t = AttrTable::ofNest(entry, CTRL_ATTR_MCAST_GRP_MAX);
    GenlGroup g;
    if (auto* a = t.get(CTRL_ATTR_MCAST_GRP_NAME)) g.name = core::readString(a);
    if (auto* a = t.get(CTRL_ATTR_MCAST_GRP_ID)) g.id = core::readU32(a);
    out.push_back(std::move(g));
  }
}

}  // namespace

const GenlFamily& controllerFamily() {
  static const GenlFamily kController{"nlctrl", GENL_ID_CTRL, kCtrlVersion};
  return kController;
}

Request encodeGetFamily(std::string_view name) {
  // The kernel keeps names in GENL_NAMSIZ bytes with the NUL: a longer one cannot exist.
  if (name.empty() || name.size() >= GENL_NAMSIZ)
    throw Error::invalidArgument("genl ctrl get name " + std::string(name),
                                 "a generic netlink family name has 1 to " + std::to_string(GENL_NAMSIZ - 1) + " characters");
  GenlWriter w(controllerFamily(), CTRL_CMD_GETFAMILY, kCtrlVersion);
  w.putString(CTRL_ATTR_FAMILY_NAME, name);
  return w.toRequest("genl ctrl get name " + std::string(name));
}

Request encodeListFamilies() {
  GenlWriter w(controllerFamily(), CTRL_CMD_GETFAMILY, kCtrlVersion);
  return w.toRequest("genl ctrl list");
}

std::optional<GenlFamilyInfo> decodeFamily(const nlmsghdr* message) {
  if (message->nlmsg_type != GENL_ID_CTRL) return std::nullopt;
  GenlReply reply = decodeGenl(message, CTRL_ATTR_MAX);
  if (reply.cmd != CTRL_CMD_NEWFAMILY) return std::nullopt;
  GenlFamilyInfo f;
  const AttrTable& t = reply.attrs;
  if (auto* a = t.get(CTRL_ATTR_FAMILY_NAME)) f.name = core::readString(a);
  if (auto* a = t.get(CTRL_ATTR_FAMILY_ID)) f.id = core::readU16(a);
  if (auto* a = t.get(CTRL_ATTR_VERSION)) f.version = core::readU32(a);
  if (auto* a = t.get(CTRL_ATTR_HDRSIZE)) f.headerSize = core::readU32(a);
  if (auto* a = t.get(CTRL_ATTR_MAXATTR)) f.maxAttr = core::readU32(a);
  if (auto* a = t.get(CTRL_ATTR_OPS)) decodeOps(a, f.ops);
  if (auto* a = t.get(CTRL_ATTR_MCAST_GROUPS)) decodeGroups(a, f.groups);
  return f;
}

}  // namespace fastlink::genl
