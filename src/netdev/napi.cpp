// NetdevApi: the netdev generic netlink family (its NAPI instances). The constants are the kernel's uapi
// (include/uapi/linux/netdev.h); Debian 12's headers (6.1) predate NAPI_GET, so they are
// spelled out here, with the kernel version that added each.
#include "fastlink/napi.hpp"

#include <cerrno>
#include <string>

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
constexpr uint16_t kNapiMax = 8;

}  // namespace

namespace netdev {

NapiInfo decodeNapi(const nlmsghdr* m) {
  genl::GenlReply r = genl::decodeGenl(m, kNapiMax);
  NapiInfo n;
  if (auto* a = r.attrs.get(kNapiId)) n.id = core::readU32(a);
  if (auto* a = r.attrs.get(kNapiIfindex)) n.ifindex = core::readU32(a);
  if (auto* a = r.attrs.get(kNapiIrq)) n.irq = core::readU32(a);
  if (auto* a = r.attrs.get(kNapiPid)) n.pid = core::readU32(a);
  if (auto* a = r.attrs.get(kNapiThreaded)) n.threaded = core::readU32(a) != 0;
  return n;
}

}  // namespace netdev

NetdevApi& Netlink::netdev() { return lazy(netdev_, families(), genericEngine()); }

// The family appeared in Linux 6.3: before that, "not supported" is the honest answer.
NetdevApi::NetdevApi(GenlApi& families, core::Engine& engine) : GenlFamilyApi(families, engine, kFamily, "6.3") {}

std::vector<NapiInfo> NetdevApi::list(uint32_t ifindex) {
  std::string op = "ynl --family netdev --dump napi-get --json '{\"ifindex\": " + std::to_string(ifindex) + "}'";
  genl::GenlWriter w(familyWith(kCmdNapiGet, op, "napi-get", "6.9"), kCmdNapiGet, kVersion);
  w.putU32(kNapiIfindex, ifindex);
  Request r = w.toRequest(op);
  std::vector<NapiInfo> out;
  dump(r, [&](const nlmsghdr* m) { out.push_back(netdev::decodeNapi(m)); }, [&] { out.clear(); });
  return out;
}

void NetdevApi::setThreaded(uint32_t napiId, bool on) {
  std::string op = "ynl --family netdev --do napi-set --json '{\"id\": " + std::to_string(napiId) + ", \"threaded\": \"" +
                   (on ? "enabled" : "disabled") + "\"}'";
  const GenlFamilyInfo& family = familyWith(kCmdNapiSet, op, "napi-set", "6.13");
  genl::GenlWriter w(family, kCmdNapiSet, kVersion);
  w.putU32(kNapiId, napiId);
  w.putU32(kNapiThreaded, on ? 1 : 0);
  Request r = w.toRequest(op);
  execute(r);
  // Read back: the kernel's answer is the only proof the NAPI switched (a driver may refuse
  // threaded polling for one instance while accepting the request).
  genl::GenlWriter g(family, kCmdNapiGet, kVersion);
  g.putU32(kNapiId, napiId);
  Request get = g.toRequest("ynl --family netdev --do napi-get --json '{\"id\": " + std::to_string(napiId) + "}'");
  NapiInfo back = queryOne<NapiInfo>(get, netdev::decodeNapi);
  if (!back.threaded || *back.threaded != on)
    throw Error(std::make_error_code(std::errc::io_error), op, "read back threaded " + std::string(back.threaded ? (*back.threaded ? "enabled" : "disabled") : "absent"));
}

}  // namespace fastlink
