// nlctrl codec: the GETFAMILY request, and the family description in its reply.
#include "genl/ctrl_codec.hpp"

#include <linux/genetlink.h>

#include <string>

#include "core/attr_rows.hpp"
#include "genl/genl_message.hpp"

namespace fastlink::genl {

namespace {

using core::FieldContext;
using core::FieldTable;
using core::Wire;

// The controller's protocol version (the kernel's genl_ctrl family registers version 2); the
// kernel does not check it, iproute2 and libmnl's examples send 0 and 1.
constexpr uint8_t kCtrlVersion = 2;

constexpr FieldTable kOperation({
    core::valueField<CTRL_ATTR_OP_ID, &GenlOperation::id, Wire::Reported>(),
    core::valueField<CTRL_ATTR_OP_FLAGS, &GenlOperation::flags, Wire::Reported>(),
});

constexpr FieldTable kGroup({
    core::valueField<CTRL_ATTR_MCAST_GRP_NAME, &GenlGroup::name, Wire::Reported>(),
    core::valueField<CTRL_ATTR_MCAST_GRP_ID, &GenlGroup::id, Wire::Reported>(),
});

// A family's row; GenlFamilyInfo's name, id and version are its base GenlFamily's members.
template <uint16_t kType, auto kMember, Wire kWire = Wire::Reported>
constexpr auto familyField() {
  return core::valueField<kType, kMember, kWire, core::Send::IfNotDefault, GenlFamilyInfo>();
}

// A request names a family by name (or by id, which nothing here sends); the rest is reported.
// Commands and groups are nests of nests, one per entry, numbered from 1.
constexpr FieldTable kFamily({
    familyField<CTRL_ATTR_FAMILY_NAME, &GenlFamilyInfo::name, Wire::Native>(),
    familyField<CTRL_ATTR_FAMILY_ID, &GenlFamilyInfo::id, Wire::Native>(),
    familyField<CTRL_ATTR_VERSION, &GenlFamilyInfo::version>(),
    familyField<CTRL_ATTR_HDRSIZE, &GenlFamilyInfo::headerSize>(),
    familyField<CTRL_ATTR_MAXATTR, &GenlFamilyInfo::maxAttr>(),
    core::nestArrayField<CTRL_ATTR_OPS, &GenlFamilyInfo::ops, core::decodeEntry<kOperation, GenlOperation>>(),
    core::nestArrayField<CTRL_ATTR_MCAST_GROUPS, &GenlFamilyInfo::groups, core::decodeEntry<kGroup, GenlGroup>>(),
});

Request getFamily(std::string_view name, std::string operation) {
  GenlWriter w(controllerFamily(), CTRL_CMD_GETFAMILY, kCtrlVersion);
  GenlFamilyInfo wanted;
  wanted.name = name;
  kFamily.encode(w, wanted);
  return w.toRequest(std::move(operation));
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
  return getFamily(name, "genl ctrl get name " + std::string(name));
}

Request encodeListFamilies() { return getFamily({}, "genl ctrl list"); }

std::optional<GenlFamilyInfo> decodeFamily(const nlmsghdr* message) {
  if (message->nlmsg_type != GENL_ID_CTRL) return std::nullopt;
  std::span<const uint8_t> attributes = genlPayload(message);
  if (core::messageHeader<genlmsghdr>(message)->cmd != CTRL_CMD_NEWFAMILY) return std::nullopt;
  GenlFamilyInfo f;
  core::decodeKnown(kFamily, attributes, f, FieldContext{"genl ctrl family"});
  return f;
}

}  // namespace fastlink::genl
