// NetdevApi: the netdev generic netlink family (its NAPI instances). The constants are the kernel's uapi
// (include/uapi/linux/netdev.h); Debian 12's headers (6.1) predate NAPI_GET, so they are
// spelled out here, with the kernel version that added each.
#include "fastlink/napi.hpp"

#include <cerrno>
#include <string>

#include "core/attr_rows.hpp"
#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "genl/genl_message.hpp"
#include "netdev/napi_codec.hpp"

namespace fastlink {

namespace {

constexpr const char* kFamily = "netdev";
constexpr uint8_t kVersion = 1;
constexpr uint8_t kCmdNapiGet = 11;  // NETDEV_CMD_NAPI_GET (6.9)
constexpr uint8_t kCmdNapiSet = 14;  // NETDEV_CMD_NAPI_SET (6.13)
constexpr uint16_t kNapiIfindex = 1;  // NETDEV_A_NAPI_IFINDEX
constexpr uint16_t kNapiId = 2;       // NETDEV_A_NAPI_ID
constexpr uint16_t kNapiIrq = 3;      // NETDEV_A_NAPI_IRQ
constexpr uint16_t kNapiPid = 4;      // NETDEV_A_NAPI_PID
constexpr uint16_t kNapiThreaded = 8;  // NETDEV_A_NAPI_THREADED (6.17): u32, 0 disabled, 1 enabled

using core::AttrField;
using core::FieldContext;
using core::Wire;

// Threaded is a u32 (0 disabled, 1 enabled), not a u8 like a bool member's row.
void putThreaded(core::MessageWriter& w, const AttrField<NapiInfo>&, const NapiInfo& n) {
  if (n.threaded) w.putU32(kNapiThreaded, *n.threaded ? 1 : 0);
}
bool getThreaded(const nlattr* a, NapiInfo& n, const FieldContext&) {
  n.threaded = core::readU32(a) != 0;
  return true;
}

// A request names a NAPI by id or a device by ifindex (0 for neither: every NAPI is listed, as
// the kernel does for ifindex 0); the rest is reported.
constexpr core::FieldTable kNapi({
    core::valueField<kNapiIfindex, &NapiInfo::ifindex>(),
    core::valueField<kNapiId, &NapiInfo::id>(),
    core::field<kNapiIrq, &NapiInfo::irq, Wire::Reported>(),
    core::field<kNapiPid, &NapiInfo::pid, Wire::Reported>(),
    AttrField<NapiInfo>{kNapiThreaded, putThreaded, getThreaded},
});

/// What a request names: a NAPI by id (and its threaded mode, to set it), or a device's NAPIs.
NapiInfo named(uint32_t id, uint32_t ifindex = 0, std::optional<bool> threaded = std::nullopt) {
  NapiInfo n;
  n.id = id, n.ifindex = ifindex, n.threaded = threaded;
  return n;
}

Request request(const GenlFamily& family, uint8_t cmd, const NapiInfo& napi, std::string operation) {
  genl::GenlWriter w(family, cmd, kVersion);
  kNapi.encode(w, napi);
  return w.toRequest(std::move(operation));
}

}  // namespace

namespace netdev {

NapiInfo decodeNapi(const nlmsghdr* m) {
  NapiInfo n;
  core::decodeKnown(kNapi, genl::genlPayload(m), n, FieldContext{"netdev napi-get"});
  return n;
}

}  // namespace netdev

NetdevApi& Netlink::netdev() { return lazy(netdev_, families(), genericEngine()); }

// The family appeared in Linux 6.3: before that, "not supported" is the honest answer.
NetdevApi::NetdevApi(GenlApi& families, core::Engine& engine) : GenlFamilyApi(families, engine, kFamily, "6.3") {}

std::vector<NapiInfo> NetdevApi::list(uint32_t ifindex) {
  std::string op = "ynl --family netdev --dump napi-get --json '{\"ifindex\": " + std::to_string(ifindex) + "}'";
  Request r = request(familyWith(kCmdNapiGet, op, "napi-get", "6.9"), kCmdNapiGet, named(0, ifindex), op);
  std::vector<NapiInfo> out;
  dump(r, [&](const nlmsghdr* m) { out.push_back(netdev::decodeNapi(m)); }, [&] { out.clear(); });
  return out;
}

void NetdevApi::setThreaded(uint32_t napiId, bool on) {
  std::string op = "ynl --family netdev --do napi-set --json '{\"id\": " + std::to_string(napiId) + ", \"threaded\": \"" +
                   (on ? "enabled" : "disabled") + "\"}'";
  const GenlFamilyInfo& family = familyWith(kCmdNapiSet, op, "napi-set", "6.13");
  execute(request(family, kCmdNapiSet, named(napiId, 0, on), op));
  // Read back: the kernel's answer is the only proof the NAPI switched (a driver may refuse
  // threaded polling for one instance while accepting the request).
  NapiInfo back = queryOne<NapiInfo>(request(family, kCmdNapiGet, named(napiId),
                                             "ynl --family netdev --do napi-get --json '{\"id\": " + std::to_string(napiId) + "}'"),
                                     netdev::decodeNapi);
  if (!back.threaded || *back.threaded != on)
    throw Error(std::make_error_code(std::errc::io_error), op, "read back threaded " + std::string(back.threaded ? (*back.threaded ? "enabled" : "disabled") : "absent"));
}

}  // namespace fastlink
