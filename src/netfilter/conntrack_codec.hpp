// ConntrackEntry / ConntrackFilter <-> ctnetlink messages: nlmsghdr{type = CTNETLINK << 8 | msg} +
// nfgenmsg{family, version, res_id} + CTA_* attributes. Most numbers are big-endian on the
// wire (ports, mark, status, timeout, zone, id, counters): the kernel's nla_get_be* readers.
// No I/O here: src/netfilter/conntrack.cpp sends what this builds.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <optional>

#include "core/message.hpp"
#include "fastlink/conntrack.hpp"

namespace fastlink::netfilter {

/// CTA_FILTER_ORIG_FLAGS / CTA_FILTER_REPLY_FLAGS bits (nf_conntrack_netlink.c's
/// CTA_FILTER_F_*; not in the uapi headers): which fields of the filter tuple the kernel compares.
inline constexpr uint32_t kFilterIpSrc = 1u << 0;
inline constexpr uint32_t kFilterIpDst = 1u << 1;
inline constexpr uint32_t kFilterTupleZone = 1u << 2;
inline constexpr uint32_t kFilterProtoNum = 1u << 3;
inline constexpr uint32_t kFilterProtoSrcPort = 1u << 4;
inline constexpr uint32_t kFilterProtoDstPort = 1u << 5;

/// The nlmsg_type of a ctnetlink message (IPCTNL_MSG_CT_*).
uint16_t conntrackMessageType(uint8_t msg);
/// The ctnetlink message kind of `type` (IPCTNL_MSG_CT_*), or std::nullopt for another subsystem.
std::optional<uint8_t> conntrackMessageKind(uint16_t type);

/// Decodes one IPCTNL_MSG_CT_NEW/DELETE message. Throws Error(malformed_reply).
ConntrackEntry decodeEntry(const nlmsghdr* message);

}  // namespace fastlink::netfilter
