// The raw pipelined netlink floor: hand-written libmnl, many requests per sendmsg, an ACK asked
// only on the last request of each sendmsg (errors come back anyway). What is left is the
// kernel's own work plus the unavoidable syscalls; fastlink is measured against it.
//
//   raw_floor mtu PREFIX COUNT MTU           set the MTU of PREFIX0..PREFIX{COUNT-1} (by name)
//   raw_floor create-veth PREFIX PAIRS       create veth PREFIX{2i} peer PREFIX{2i+1}
//   raw_floor dump addr|route                dump every address or every route (all families and
//                                            tables), count the messages: apply's other dumps
//   raw_floor read6                          dump every link, read name, index, mtu, flags, kind,
//                                            master (issue 29's library target), print a checksum
//   raw_floor list KIND|- none|skipstats|vf|brvlan  dump links, kind-filtered in the kernel or not,
//                                            with the given IFLA_EXT_MASK
//   raw_floor u32-mirred DEV TARGET COUNT    add COUNT u32 filters on DEV's clsact ingress, each
//                                            `protocol ip pref 1+i/2000 u32 match ip dst
//                                            10.x.y.z/32 action mirred egress redirect dev TARGET`
//                                            (bench/tc_filter_bench.sh's lines, as tc encodes them)
//   raw_floor flower-mirred DEV TARGET COUNT add COUNT flower filters on DEV's clsact ingress,
//                                            each `protocol ip pref 1 flower dst_ip 10.x.y.z
//                                            action mirred egress redirect dev TARGET`
//                                            (bench/tc_filter/flower_bench.cpp's lines, as tc 6.1
//                                            encodes them)
// Prints one JSON line (bench_common.hpp); the time includes opening the socket.
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/tc_act/tc_mirred.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <span>
#include <ctime>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

constexpr std::size_t kWindow = 1024;
constexpr std::size_t kSendBytes = 256 * 1024;

// Static (zero pages until touched), so the floor does not pay for clearing buffers it never uses.
char gReceive[1 << 20];
char gSend[kSendBytes + 8192];

struct Socket {
  mnl_socket* nl = nullptr;
  uint32_t port = 0;
  uint64_t bytes = 0;
  std::span<char> rx;
  Socket() : rx(gReceive, sizeof gReceive) {
    nl = mnl_socket_open(NETLINK_ROUTE);
    if (!nl) throw std::runtime_error("mnl_socket_open");
    int on = 1;
    mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &on, sizeof on);
    mnl_socket_setsockopt(nl, NETLINK_GET_STRICT_CHK, &on, sizeof on);
    int rcv = 32 * 1024 * 1024;
    setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv);
    if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) throw std::runtime_error("mnl_socket_bind");
    port = mnl_socket_get_portid(nl);
  }
  ~Socket() { mnl_socket_close(nl); }
};

using Builder = void (*)(nlmsghdr*, std::size_t i, const std::vector<std::string>&, unsigned);

// Sends COUNT requests pipelined; returns how many failed.
std::size_t pipeline(Socket& s, std::size_t count, const std::vector<std::string>& names, unsigned arg, Builder build) {
  std::span<char> buf(gSend, sizeof gSend);
  // FL_RAW_WINDOW=N caps the requests per sendmsg (1 = stop-and-wait), for experiments.
  std::size_t window = kWindow;
  if (const char* w = std::getenv("FL_RAW_WINDOW")) window = std::max<std::size_t>(1, std::stoul(w));
  uint32_t seq = static_cast<uint32_t>(time(nullptr));
  std::size_t failed = 0;
  for (std::size_t i = 0; i < count;) {
    std::size_t used = 0, n = 0;
    nlmsghdr* last = nullptr;
    uint32_t first = seq;
    while (i < count && n < window && used + 4096 <= kSendBytes) {
      nlmsghdr* h = mnl_nlmsg_put_header(buf.data() + used);
      h->nlmsg_seq = seq++;
      build(h, i, names, arg);
      used += NLMSG_ALIGN(h->nlmsg_len);
      last = h;
      ++i;
      ++n;
    }
    last->nlmsg_flags |= NLM_F_ACK;
    if (mnl_socket_sendto(s.nl, buf.data(), used) < 0) throw std::runtime_error("sendto");
    uint32_t lastSeq = seq - 1;
    for (bool done = false; !done;) {
      ssize_t r = mnl_socket_recvfrom(s.nl, s.rx.data(), s.rx.size());
      if (r < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
      s.bytes += static_cast<uint64_t>(r);
      int left = static_cast<int>(r);
      for (auto* m = reinterpret_cast<nlmsghdr*>(s.rx.data()); mnl_nlmsg_ok(m, left); m = mnl_nlmsg_next(m, &left)) {
        if (m->nlmsg_type != NLMSG_ERROR || m->nlmsg_seq - first >= n) continue;
        auto* e = static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(m));
        if (e->error) ++failed;
        if (m->nlmsg_seq == lastSeq) done = true;
      }
    }
  }
  return failed;
}

void buildMtu(nlmsghdr* h, std::size_t i, const std::vector<std::string>& names, unsigned mtu) {
  h->nlmsg_type = RTM_NEWLINK;
  h->nlmsg_flags = NLM_F_REQUEST;
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(h, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  mnl_attr_put_strz(h, IFLA_IFNAME, names[i].c_str());
  mnl_attr_put_u32(h, IFLA_MTU, mtu);
}

void buildVeth(nlmsghdr* h, std::size_t i, const std::vector<std::string>& names, unsigned) {
  h->nlmsg_type = RTM_NEWLINK;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(h, sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  mnl_attr_put_strz(h, IFLA_IFNAME, names[2 * i].c_str());
  nlattr* info = mnl_attr_nest_start(h, IFLA_LINKINFO);
  mnl_attr_put_strz(h, IFLA_INFO_KIND, "veth");
  nlattr* data = mnl_attr_nest_start(h, IFLA_INFO_DATA);
  nlattr* peer = mnl_attr_nest_start(h, VETH_INFO_PEER);
  auto* pifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(h, sizeof(ifinfomsg)));
  pifi->ifi_family = AF_UNSPEC;
  mnl_attr_put_strz(h, IFLA_IFNAME, names[2 * i + 1].c_str());
  mnl_attr_nest_end(h, peer);
  mnl_attr_nest_end(h, data);
  mnl_attr_nest_end(h, info);
}

// The u32 filter's devices, resolved once (names[0] = DEV, names[1] = TARGET).
unsigned gFilterDev = 0, gRedirectTo = 0;

/// TCA_OPTIONS' action list: one mirred egress redirect to gRedirectTo, as tc encodes it.
void putMirredRedirect(nlmsghdr* h, uint16_t listType) {
  nlattr* actions = mnl_attr_nest_start(h, listType);
  nlattr* first = mnl_attr_nest_start(h, 1);
  mnl_attr_put_strz(h, TCA_ACT_KIND, "mirred");
  nlattr* act = mnl_attr_nest_start(h, TCA_ACT_OPTIONS);
  tc_mirred parms{};
  parms.action = TC_ACT_STOLEN;
  parms.eaction = TCA_EGRESS_REDIR;
  parms.ifindex = gRedirectTo;
  mnl_attr_put(h, TCA_MIRRED_PARMS, sizeof parms, &parms);
  mnl_attr_nest_end(h, act);
  mnl_attr_nest_end(h, first);
  mnl_attr_nest_end(h, actions);
}

/// A new IPv4 filter of `kind` at `pref` on gFilterDev's clsact ingress: the header, the kind,
/// and the TCA_OPTIONS nest left open for the classifier's attributes.
nlattr* putIngressFilter(nlmsghdr* h, uint32_t pref, const char* kind) {
  h->nlmsg_type = RTM_NEWTFILTER;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
  auto* t = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(tcmsg)));
  t->tcm_family = AF_UNSPEC;
  t->tcm_ifindex = static_cast<int>(gFilterDev);
  t->tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS);
  t->tcm_info = TC_H_MAKE(pref << 16, htons(ETH_P_IP));
  mnl_attr_put_strz(h, TCA_KIND, kind);
  return mnl_attr_nest_start(h, TCA_OPTIONS);
}

void buildU32Mirred(nlmsghdr* h, std::size_t i, const std::vector<std::string>&, unsigned) {
  // 2,000 rules per pref: the kernel numbers one u32 table's rules 800-fff.
  nlattr* options = putIngressFilter(h, static_cast<uint32_t>(1 + i / 2000), "u32");
  // tc_u32_sel ends in a flexible array of keys: one key follows it.
  alignas(tc_u32_sel) char sel[sizeof(tc_u32_sel) + sizeof(tc_u32_key)] = {};
  auto* head = reinterpret_cast<tc_u32_sel*>(sel);
  head->flags = TC_U32_TERMINAL;
  head->nkeys = 1;
  tc_u32_key key{};
  key.mask = 0xffffffff;
  key.val = htonl(0x0a000000u | static_cast<uint32_t>(i & 0xffffff));
  key.off = 16;  // the IPv4 destination
  std::memcpy(sel + sizeof(tc_u32_sel), &key, sizeof key);
  mnl_attr_put(h, TCA_U32_SEL, sizeof sel, sel);
  putMirredRedirect(h, TCA_U32_ACT);
  mnl_attr_nest_end(h, options);
}

/// flower_bench's filter i: pref 1 (flower holds every filter of a pref, handles chosen by the
/// kernel), the attributes in tc 6.1's order (f_flower.c): the address and its mask as parsed,
/// the actions, then the flags and the EtherType.
void buildFlowerMirred(nlmsghdr* h, std::size_t i, const std::vector<std::string>&, unsigned) {
  nlattr* options = putIngressFilter(h, 1, "flower");
  mnl_attr_put_u32(h, TCA_FLOWER_KEY_IPV4_DST, htonl(0x0a000000u | static_cast<uint32_t>(i & 0xffffff)));
  mnl_attr_put_u32(h, TCA_FLOWER_KEY_IPV4_DST_MASK, 0xffffffff);
  putMirredRedirect(h, TCA_FLOWER_ACT);
  mnl_attr_put_u32(h, TCA_FLOWER_FLAGS, 0);
  mnl_attr_put_u16(h, TCA_FLOWER_KEY_ETH_TYPE, htons(ETH_P_IP));
  mnl_attr_nest_end(h, options);
}

struct ListState {
  std::vector<std::string> found;
  std::size_t count = 0;
  const char* kind = nullptr;
};

int onLink(const nlmsghdr* m, void* data) {
  auto* st = static_cast<ListState*>(data);
  ++st->count;
  const char* name = nullptr;
  const char* kind = nullptr;
  // libmnl's iteration macros are C (void* conversions): walk the attributes by hand.
  auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(m, sizeof(ifinfomsg)));
  const char* tail = reinterpret_cast<const char*>(mnl_nlmsg_get_payload_tail(m));
  for (; mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char*>(a))); a = mnl_attr_next(a)) {
    if (mnl_attr_get_type(a) == IFLA_IFNAME) name = mnl_attr_get_str(a);
    if (mnl_attr_get_type(a) == IFLA_LINKINFO) {
      auto* b = static_cast<const nlattr*>(mnl_attr_get_payload(a));
      const char* end = reinterpret_cast<const char*>(a) + a->nla_len;
      for (; mnl_attr_ok(b, static_cast<int>(end - reinterpret_cast<const char*>(b))); b = mnl_attr_next(b))
        if (mnl_attr_get_type(b) == IFLA_INFO_KIND) kind = mnl_attr_get_str(b);
    }
  }
  if (name && (!st->kind || (kind && std::strcmp(kind, st->kind) == 0))) st->found.emplace_back(name);
  return MNL_CB_OK;
}

/// An RTM_GETLINK dump request (every family) in `buf`, to add filters to.
nlmsghdr* putLinkDump(char* buf) {
  nlmsghdr* h = mnl_nlmsg_put_header(buf);
  h->nlmsg_type = RTM_GETLINK;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  h->nlmsg_seq = static_cast<uint32_t>(time(nullptr));
  static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(h, sizeof(ifinfomsg)))->ifi_family = AF_UNSPEC;
  return h;
}

/// Reads the answer to dump `seq`, handing every message to `each` (libmnl's callback loop).
void receiveDump(Socket& s, uint32_t seq, mnl_cb_t each, void* data) {
  for (;;) {
    ssize_t r = mnl_socket_recvfrom(s.nl, s.rx.data(), s.rx.size());
    if (r < 0) throw std::runtime_error(std::string("recv: ") + std::strerror(errno));
    s.bytes += static_cast<uint64_t>(r);
    int rc = mnl_cb_run(s.rx.data(), static_cast<size_t>(r), seq, s.port, each, data);
    if (rc == MNL_CB_ERROR) throw std::runtime_error(std::string("dump: ") + std::strerror(errno));
    if (rc == MNL_CB_STOP) return;
  }
}

/// `read6`: the six fields of issue 29's library target (name, index, mtu, flags, kind, master)
/// read from every link, folded into a checksum both sides print.
struct ReadState {
  std::size_t count = 0;
  uint64_t sum = 0;
};

int onLinkFields(const nlmsghdr* m, void* data) {
  auto* st = static_cast<ReadState*>(data);
  auto* ifi = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(m));
  const char* name = nullptr;
  const char* kind = nullptr;
  uint32_t mtu = 0, master = 0;
  auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(m, sizeof(ifinfomsg)));
  const char* tail = reinterpret_cast<const char*>(mnl_nlmsg_get_payload_tail(m));
  for (; mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char*>(a))); a = mnl_attr_next(a)) {
    switch (mnl_attr_get_type(a)) {
      case IFLA_IFNAME: name = mnl_attr_get_str(a); break;
      case IFLA_MTU: mtu = mnl_attr_get_u32(a); break;
      case IFLA_MASTER: master = mnl_attr_get_u32(a); break;
      case IFLA_LINKINFO: {
        auto* b = static_cast<const nlattr*>(mnl_attr_get_payload(a));
        const char* end = reinterpret_cast<const char*>(a) + a->nla_len;
        for (; mnl_attr_ok(b, static_cast<int>(end - reinterpret_cast<const char*>(b))); b = mnl_attr_next(b))
          if (mnl_attr_get_type(b) == IFLA_INFO_KIND) kind = mnl_attr_get_str(b);
      }
    }
  }
  ++st->count;
  st->sum += static_cast<uint32_t>(ifi->ifi_index) + ifi->ifi_flags + mtu + master + (name ? std::strlen(name) : 0) +
             (kind ? std::strlen(kind) : 0);
  return MNL_CB_OK;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "mtu" && argc == 5) {
    auto list = bench::names(argv[2], std::stoul(argv[3]));
    double t0 = bench::now();
    Socket s;
    std::size_t failed = pipeline(s, list.size(), list, static_cast<unsigned>(std::stoul(argv[4])), buildMtu);
    bench::report(bench::now() - t0, list.size(), failed, s.bytes);
    return failed ? 1 : 0;
  }
  if (cmd == "create-veth" && argc == 4) {
    std::size_t pairs = std::stoul(argv[3]);
    auto list = bench::names(argv[2], 2 * pairs);
    double t0 = bench::now();
    Socket s;
    std::size_t failed = pipeline(s, pairs, list, 0, buildVeth);
    bench::report(bench::now() - t0, pairs, failed, s.bytes);
    return failed ? 1 : 0;
  }
  if ((cmd == "u32-mirred" || cmd == "flower-mirred") && argc == 5) {
    gFilterDev = if_nametoindex(argv[2]);
    gRedirectTo = if_nametoindex(argv[3]);
    if (!gFilterDev || !gRedirectTo) throw std::runtime_error("no such device");
    std::size_t count = std::stoul(argv[4]);
    double t0 = bench::now();
    Socket s;
    std::size_t failed = pipeline(s, count, {}, 0, cmd == "u32-mirred" ? buildU32Mirred : buildFlowerMirred);
    bench::report(bench::now() - t0, count, failed, s.bytes);
    return failed ? 1 : 0;
  }
  if (cmd == "list" && argc == 4) {
    std::string kind = argv[2], mask = argv[3];
    double t0 = bench::now();
    Socket s;
    char buf[512];
    nlmsghdr* h = putLinkDump(buf);
    if (kind != "-") {
      nlattr* info = mnl_attr_nest_start(h, IFLA_LINKINFO);
      mnl_attr_put_strz(h, IFLA_INFO_KIND, kind.c_str());
      mnl_attr_nest_end(h, info);
    }
    if (mask == "skipstats") mnl_attr_put_u32(h, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
    if (mask == "vf") mnl_attr_put_u32(h, IFLA_EXT_MASK, RTEXT_FILTER_VF);
    if (mask == "brvlan") mnl_attr_put_u32(h, IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN);
    if (mnl_socket_sendto(s.nl, h, h->nlmsg_len) < 0) throw std::runtime_error("sendto");
    ListState st;
    if (kind != "-") st.kind = kind.c_str();
    receiveDump(s, h->nlmsg_seq, onLink, &st);
    double t = bench::now() - t0;
    // A full dump reports the count, not every name.
    if (kind == "-") st.found = {std::to_string(st.count)};
    bench::report(t, st.count, 0, s.bytes, st.found);
    return 0;
  }
  if (cmd == "dump" && argc == 3 && (std::string(argv[2]) == "addr" || std::string(argv[2]) == "route")) {
    bool addresses = std::string(argv[2]) == "addr";
    double t0 = bench::now();
    Socket s;
    char buf[512];
    nlmsghdr* h = mnl_nlmsg_put_header(buf);
    h->nlmsg_type = addresses ? RTM_GETADDR : RTM_GETROUTE;
    h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    h->nlmsg_seq = static_cast<uint32_t>(time(nullptr));
    if (addresses) static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(ifaddrmsg)))->ifa_family = AF_UNSPEC;
    else static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(h, sizeof(rtmsg)))->rtm_family = AF_UNSPEC;
    if (mnl_socket_sendto(s.nl, h, h->nlmsg_len) < 0) throw std::runtime_error("sendto");
    std::size_t count = 0;
    receiveDump(s, h->nlmsg_seq, [](const nlmsghdr*, void* n) { ++*static_cast<std::size_t*>(n); return MNL_CB_OK; }, &count);
    bench::report(bench::now() - t0, count, 0, s.bytes, {std::to_string(count)});
    return 0;
  }
  if (cmd == "read6" && argc == 2) {
    double t0 = bench::now();
    Socket s;
    char buf[512];
    nlmsghdr* h = putLinkDump(buf);
    if (mnl_socket_sendto(s.nl, h, h->nlmsg_len) < 0) throw std::runtime_error("sendto");
    ReadState st;
    receiveDump(s, h->nlmsg_seq, onLinkFields, &st);
    bench::report(bench::now() - t0, st.count, 0, s.bytes, {std::to_string(st.sum)});
    return 0;
  }
  std::fprintf(stderr, "usage: raw_floor mtu PREFIX COUNT MTU | create-veth PREFIX PAIRS | list KIND|- none|skipstats|vf|brvlan | dump addr|route | read6 | u32-mirred|flower-mirred DEV TARGET COUNT\n");
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "raw_floor: %s\n", e.what());
  return 1;
}
