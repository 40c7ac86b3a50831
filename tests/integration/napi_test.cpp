// Threaded NAPI on a veth with GRO on (which gives each receive queue a NAPI instance), through
// the netdev generic netlink family (Netlink::netdev()) and sysfs (SteeringApi::setThreaded). Oracles, none
// of them fastlink: what the kernel offers is read by iproute2 (`genl ctrl get name netdev`), the
// NAPI instances from the kernel's own NAPI_GET reply read raw here (a socket and an attribute
// walk of this file, not fastlink's engine or decoder), the kernel threads threaded NAPI creates
// ("napi/DEV-ID", seen by `ps`), and /sys/class/net/DEV/threaded read inside the namespace.
// On a kernel without a feature (decided by those oracles, never by fastlink) a test asserts
// fastlink's refusal instead and says so on stdout: no skip, because tests/vm/run fails a skip
// that names no missing module, and the VM's 6.1 has the refusal to check.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fastlink/fastlink.hpp>
#include <fastlink/napi.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "support/genl_oracle.hpp"
#include "support/namespace_sysfs.hpp"
#include "support/test_netns.hpp"

namespace fastlink::test {
namespace {

// include/uapi/linux/netdev.h (Debian 12's headers predate NAPI_GET).
constexpr uint8_t kNapiGet = 11;       // NETDEV_CMD_NAPI_GET (6.9)
constexpr uint8_t kNapiSet = 14;       // NETDEV_CMD_NAPI_SET (6.13)
constexpr uint16_t kAttrIfindex = 1;   // NETDEV_A_NAPI_IFINDEX
constexpr uint16_t kAttrId = 2;        // NETDEV_A_NAPI_ID
constexpr uint16_t kAttrIrq = 3;       // NETDEV_A_NAPI_IRQ
constexpr uint16_t kAttrPid = 4;       // NETDEV_A_NAPI_PID
constexpr uint16_t kAttrThreaded = 8;  // NETDEV_A_NAPI_THREADED (6.17)

/// `genl ctrl get name netdev`: the family as iproute2 reads it; nullopt when the kernel has none
/// (the family came in Linux 6.3).
std::optional<OracleFamily> genlNetdev() {
  if (run("command -v genl").status != 0) throw std::runtime_error("genl (iproute2) is missing: it is this test's oracle of the netdev family");
  auto r = run("genl ctrl get name netdev");
  if (r.status != 0 && r.err.find("No such file or directory") != std::string::npos) return std::nullopt;  // ENOENT: no family
  if (r.status != 0) throw std::runtime_error("genl ctrl get name netdev: " + r.err);
  auto families = parseGenlCtrl(r.out);
  if (families.size() != 1) throw std::runtime_error("genl printed " + std::to_string(families.size()) + " families:\n" + r.out);
  return families[0];
}

bool genlHasOp(const std::optional<OracleFamily>& f, uint32_t op) {
  if (!f) return false;
  for (const auto& o : f->ops)
    if (o.id == op) return true;
  return false;
}

/// One NAPI instance as the kernel sent it: attribute type -> u32 value.
using RawNapi = std::map<uint16_t, uint32_t>;

/// The kernel's NAPI_GET dump for `ifindex` in namespace `ns`, from a raw NETLINK_GENERIC socket
/// opened by a thread that joined the namespace (the socket keeps it), attributes walked here.
std::vector<RawNapi> kernelNapis(const std::string& ns, uint16_t familyId, uint32_t ifindex) {
  int sock = -1;
  std::thread([&] {
    int fd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0) sock = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd >= 0) ::close(fd);
  }).join();
  if (sock < 0) throw std::runtime_error("no generic netlink socket in " + ns);
  struct {
    nlmsghdr h;
    genlmsghdr g;
    nlattr a;
    uint32_t ifindex;
  } req{};
  req.h = {sizeof req, familyId, NLM_F_REQUEST | NLM_F_DUMP, 1, 0};
  req.g = {kNapiGet, 1, 0};
  req.a = {sizeof(nlattr) + sizeof(uint32_t), kAttrIfindex};
  req.ifindex = ifindex;
  if (::send(sock, &req, sizeof req, 0) != static_cast<ssize_t>(sizeof req)) throw std::runtime_error("send failed");
  std::vector<RawNapi> out;
  std::vector<char> buf(65536);
  for (bool done = false; !done;) {
    ssize_t n = ::recv(sock, buf.data(), buf.size(), 0);
    if (n <= 0) throw std::runtime_error("recv failed");
    int left = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) done = true;
      if (h->nlmsg_type == NLMSG_ERROR) {
        int err = static_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
        ::close(sock);
        throw std::runtime_error("NAPI_GET: " + std::string(std::strerror(-err)));
      }
      if (h->nlmsg_type != familyId) continue;
      RawNapi napi;
      const char* at = static_cast<const char*>(NLMSG_DATA(h)) + GENL_HDRLEN;
      const char* end = reinterpret_cast<const char*>(h) + h->nlmsg_len;
      while (at + sizeof(nlattr) <= end) {
        nlattr a;
        std::memcpy(&a, at, sizeof a);
        if (a.nla_len < sizeof a || at + a.nla_len > end) break;
        uint32_t v = 0;
        if (a.nla_len >= sizeof a + sizeof v) std::memcpy(&v, at + sizeof a, sizeof v);
        napi[a.nla_type & NLA_TYPE_MASK] = v;
        at += NLA_ALIGN(a.nla_len);
      }
      out.push_back(napi);
    }
  }
  ::close(sock);
  return out;
}

class NapiTest : public ::testing::Test {
 protected:
  TestNetns ns;
  std::unique_ptr<Netlink> nl;
  uint32_t ifindex = 0;
  // What the kernel's netdev family offers, as iproute2's genl reads it.
  std::optional<OracleFamily> netdev = genlNetdev();

  void SetUp() override {
    ns.ip("link add e0 numtxqueues 2 numrxqueues 2 type veth peer name e1 numtxqueues 2 numrxqueues 2");
    ns.ip("link set e0 up");
    ns.ip("link set e1 up");
    ASSERT_EQ(ns.exec("ethtool -K e0 gro on").status, 0);
    nl = std::make_unique<Netlink>(NetlinkOptions{.netns = Netns::named(ns.name())});
    ifindex = std::stoul(ns.sysfs("e0", "ifindex"));
  }
  bool kthreadExists(uint32_t napiId) const {
    return run("ps -e -o comm= | grep -qx 'napi/e0-" + std::to_string(napiId) + "'").status == 0;
  }
  int napiThreads() const {
    auto r = run("ps -e -o comm= | grep -c '^napi/e0-'");
    return std::stoi(r.out);
  }
  /// The kernel's NAPI instances of e0, by id.
  std::map<uint32_t, RawNapi> kernel() const {
    std::map<uint32_t, RawNapi> out;
    for (auto& n : kernelNapis(ns.name(), static_cast<uint16_t>(netdev->id), ifindex)) out[n.at(kAttrId)] = n;
    return out;
  }
  template <typename F>
  static void expectNotSupported(F call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " succeeded on a kernel without it";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), std::errc::operation_not_supported) << e.what();
    }
  }
};

TEST_F(NapiTest, ListsTheNapiInstancesOrRefusesWithoutNapiGet) {
  if (!genlHasOp(netdev, kNapiGet)) {
    expectNotSupported([&] { nl->netdev().list(ifindex); }, "list()");
    std::printf("    the kernel has no napi-get (Linux 6.9+; genl ctrl get name netdev): fastlink's EOPNOTSUPP checked\n");
    return;
  }
  auto napis = nl->netdev().list(ifindex);
  auto oracle = kernel();
  ASSERT_EQ(oracle.size(), 2u);  // one per receive queue
  ASSERT_EQ(napis.size(), oracle.size());
  for (const auto& n : napis) {
    ASSERT_TRUE(oracle.count(n.id)) << n.id;
    const RawNapi& k = oracle[n.id];
    EXPECT_EQ(n.ifindex, ifindex);
    EXPECT_EQ(n.ifindex, k.at(kAttrIfindex));
    EXPECT_EQ(n.irq.has_value(), k.count(kAttrIrq) == 1);  // veth: no interrupt
    EXPECT_FALSE(n.irq.has_value());
    EXPECT_EQ(n.pid.has_value(), k.count(kAttrPid) == 1);
    EXPECT_EQ(n.threaded.has_value(), k.count(kAttrThreaded) == 1);
    if (n.threaded) { EXPECT_EQ(*n.threaded, k.at(kAttrThreaded) != 0); }
    EXPECT_FALSE(kthreadExists(n.id));
  }
  EXPECT_TRUE(nl->netdev().list(std::stoul(ns.sysfs("lo", "ifindex"))).empty());
}

TEST_F(NapiTest, ThreadedPerNapiOrRefusesWithoutIt) {
  INetdevApi& napi = nl->netdev();
  if (!genlHasOp(netdev, kNapiSet)) {
    expectNotSupported([&] { napi.setThreaded(1, true); }, "setThreaded()");
    std::printf("    the kernel has no napi-set (Linux 6.13+; genl ctrl get name netdev): fastlink's EOPNOTSUPP checked\n");
    return;
  }
  auto before = kernel();
  ASSERT_EQ(before.size(), 2u);
  uint32_t first = before.begin()->first, second = std::next(before.begin())->first;
  if (!before[first].count(kAttrThreaded)) {
    // napi-set without the threaded attribute (6.13-6.16): the kernel refuses it, nothing changes.
    EXPECT_THROW(napi.setThreaded(first, true), Error);
    EXPECT_EQ(napiThreads(), 0);
    EXPECT_EQ(kernel(), before);
    std::printf("    the kernel's NAPI_GET reply has no threaded attribute (Linux 6.17+): the kernel's refusal checked\n");
    return;
  }
  EXPECT_EQ(before[first].at(kAttrThreaded), 0u);
  napi.setThreaded(first, true);
  auto after = kernel();
  EXPECT_EQ(after[first].at(kAttrThreaded), 1u);
  ASSERT_TRUE(after[first].count(kAttrPid));
  EXPECT_TRUE(kthreadExists(first));
  EXPECT_EQ(run("ps -o comm= -p " + std::to_string(after[first].at(kAttrPid))).out, "napi/e0-" + std::to_string(first) + "\n");
  EXPECT_EQ(after[second].at(kAttrThreaded), 0u);  // only the one asked for
  EXPECT_FALSE(kthreadExists(second));
  auto mine = napi.list(ifindex);
  for (const auto& n : mine) {
    EXPECT_EQ(n.threaded, after[n.id].at(kAttrThreaded) != 0) << n.id;
    EXPECT_EQ(n.pid.has_value(), after[n.id].count(kAttrPid) == 1) << n.id;
  }
  napi.setThreaded(first, false);
  EXPECT_EQ(kernel()[first].at(kAttrThreaded), 0u);
  try {
    napi.setThreaded(0xffffff, true);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory) << e.what();
  }
}

TEST_F(NapiTest, ThreadedForTheWholeDeviceThroughSysfs) {
  NamespaceSysfs sysfs(ns.name());
  SteeringApi steer(sysfs.root());
  EXPECT_FALSE(steer.threaded("e0"));
  steer.setThreaded("e0", true);
  EXPECT_EQ(ns.sysfs("e0", "threaded"), "1");
  EXPECT_TRUE(steer.threaded("e0"));
  EXPECT_EQ(napiThreads(), 2);  // one kernel thread per NAPI instance (per receive queue)
  steer.setThreaded("e0", false);
  EXPECT_EQ(ns.sysfs("e0", "threaded"), "0");
  EXPECT_FALSE(steer.threaded("e0"));
  EXPECT_THROW(steer.setThreaded("nosuchdev", true), Error);
}

}  // namespace
}  // namespace fastlink::test
