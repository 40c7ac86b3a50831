// The wire observer (see wire_observer.hpp): libc's socket calls, interposed.
#include "support/wire_observer.hpp"

#include <dlfcn.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

namespace fastlink::test::wire {
namespace {

constexpr std::size_t kMaxSentRecorded = 4096;
constexpr std::size_t kMaxSentBytesRecorded = 64;

struct State {
  std::mutex mutex;
  std::map<int, Counts> byProtocol;
  std::map<int, std::set<int>> fds;  // protocol -> fds sent on
  std::map<int, std::deque<std::vector<uint8_t>>> injected;
};

State& state() {
  static State* s = new State;  // never destroyed: other static destructors may still send
  return *s;
}

/// The netlink protocol of `fd`, or -1 when it is not a netlink socket.
int netlinkProtocol(int fd) {
  sockaddr_nl addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || addr.nl_family != AF_NETLINK) return -1;
  int protocol = -1;
  len = sizeof protocol;
  if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) != 0) return -1;
  return protocol;
}

void noteSent(int fd, const uint8_t* data, std::size_t size) {
  int protocol = netlinkProtocol(fd);
  if (protocol < 0) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.fds[protocol].insert(fd);
  Counts& c = s.byProtocol[protocol];
  ++c.sendCalls;
  const auto* h = reinterpret_cast<const nlmsghdr*>(data);
  int remaining = static_cast<int>(size);
  for (; NLMSG_OK(h, remaining); h = NLMSG_NEXT(h, remaining)) {
    ++c.requests;
    // NLM_F_DUMP shares bits with NLM_F_REPLACE|NLM_F_EXCL: in rtnetlink only RTM_GET* dump.
    bool get = protocol != NETLINK_ROUTE || (h->nlmsg_type >= 16 && h->nlmsg_type % 4 == 2);
    if ((h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && get) ++c.dumpRequests;
    ++c.requestTypes[h->nlmsg_type];
    if (c.sent.size() < kMaxSentRecorded) c.sent.push_back({h->nlmsg_type, h->nlmsg_flags, h->nlmsg_seq});
    if (c.sentBytes.size() < kMaxSentBytesRecorded) {
      const auto* p = reinterpret_cast<const uint8_t*>(h);
      c.sentBytes.emplace_back(p, p + h->nlmsg_len);
    }
  }
}

void noteReceived(int fd, const uint8_t* data, std::size_t size) {
  int protocol = netlinkProtocol(fd);
  if (protocol < 0) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  Counts& c = s.byProtocol[protocol];
  ++c.receiveCalls;
  c.replyBytes += size;
  const auto* h = reinterpret_cast<const nlmsghdr*>(data);
  int remaining = static_cast<int>(size);
  for (; NLMSG_OK(h, remaining); h = NLMSG_NEXT(h, remaining)) {
    ++c.replyMessages;
    if (h->nlmsg_flags & NLM_F_DUMP_INTR) ++c.dumpInterrupted;
    if (h->nlmsg_type == NLMSG_ERROR) {
      int error = 0;
      if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) std::memcpy(&error, NLMSG_DATA(h), sizeof error);
      ++(error == 0 ? c.acks : c.errors);
    } else if (h->nlmsg_type != NLMSG_DONE) {
      ++c.dataMessages;
      ++c.dataBySeq[h->nlmsg_seq];
    }
  }
}

/// Takes an injected datagram for `fd` if there is one: fills the caller's buffer like the
/// kernel would and returns the size recvmsg would return; -1 when nothing is injected.
ssize_t takeInjected(int fd, const iovec* iov, std::size_t iovlen, sockaddr* from, socklen_t* fromLen, int flags,
                     int* msgFlags) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto it = s.injected.find(fd);
  if (it == s.injected.end() || it->second.empty()) return -1;
  const std::vector<uint8_t>& d = it->second.front();
  std::size_t copied = 0;
  for (std::size_t i = 0; i < iovlen && copied < d.size(); ++i) {
    std::size_t n = std::min(iov[i].iov_len, d.size() - copied);
    std::memcpy(iov[i].iov_base, d.data() + copied, n);
    copied += n;
  }
  if (from && fromLen && *fromLen >= sizeof(sockaddr_nl)) {
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    std::memcpy(from, &kernel, sizeof kernel);
    *fromLen = sizeof kernel;
  }
  if (msgFlags) *msgFlags = copied < d.size() ? MSG_TRUNC : 0;
  ssize_t result = static_cast<ssize_t>((flags & MSG_TRUNC) ? d.size() : copied);
  if (!(flags & MSG_PEEK)) it->second.pop_front();
  return result;
}

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t);
using SendmsgFn = ssize_t (*)(int, const msghdr*, int);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using RecvmsgFn = ssize_t (*)(int, msghdr*, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using RecvmmsgFn = int (*)(int, mmsghdr*, unsigned int, int, timespec*);

/// One more of `counter` (batchReceiveCalls, peekCalls) for fd's protocol; nothing off netlink.
void count(int fd, uint64_t Counts::*counter) {
  int protocol = netlinkProtocol(fd);
  if (protocol < 0) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  ++(s.byProtocol[protocol].*counter);
}

void noteReceivedIov(int fd, const msghdr* msg, ssize_t n) {
  std::size_t size = static_cast<std::size_t>(n);
  if (msg->msg_iovlen == 1) {
    noteReceived(fd, static_cast<const uint8_t*>(msg->msg_iov[0].iov_base), std::min(size, msg->msg_iov[0].iov_len));
    return;
  }
  std::vector<uint8_t> all;
  for (std::size_t i = 0; i < msg->msg_iovlen && all.size() < size; ++i) {
    const auto* p = static_cast<const uint8_t*>(msg->msg_iov[i].iov_base);
    all.insert(all.end(), p, p + std::min(msg->msg_iov[i].iov_len, size - all.size()));
  }
  noteReceived(fd, all.data(), all.size());
}

}  // namespace

std::vector<uint64_t> dumpReplies(const Counts& c, uint16_t type) {
  std::vector<uint64_t> out;
  for (const auto& m : c.sent) {
    if (m.type != type || (m.flags & NLM_F_DUMP) != NLM_F_DUMP) continue;
    auto it = c.dataBySeq.find(m.seq);
    out.push_back(it == c.dataBySeq.end() ? 0 : it->second);
  }
  return out;
}

void reset() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.byProtocol.clear();
}

Counts counts(int protocol) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.byProtocol[protocol];
}

std::vector<int> sockets(int protocol) {
  std::vector<int> out;
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (int fd : s.fds[protocol])
    if (netlinkProtocol(fd) == protocol) out.push_back(fd);
  return out;
}

void injectFromKernel(int fd, std::vector<uint8_t> datagram) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.injected[fd].push_back(std::move(datagram));
}

std::map<uint16_t, std::vector<uint8_t>> attributes(const std::vector<uint8_t>& message, std::size_t fixedSize) {
  std::map<uint16_t, std::vector<uint8_t>> out;
  std::size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(fixedSize);
  while (at + sizeof(nlattr) <= message.size()) {
    nlattr a;
    std::memcpy(&a, message.data() + at, sizeof a);
    if (a.nla_len < sizeof a || at + a.nla_len > message.size()) break;
    const uint8_t* p = message.data() + at + sizeof a;
    out[a.nla_type & NLA_TYPE_MASK].assign(p, p + (a.nla_len - sizeof a));
    at += NLA_ALIGN(a.nla_len);
  }
  return out;
}

bool readWireLog(const std::string& path, Counts& out) {
  std::ifstream f(path);
  if (!f) return false;
  out = Counts{};
  std::string key;
  while (f >> key) {
    if (key == "type") {
      unsigned type = 0;
      uint64_t n = 0;
      f >> type >> n;
      out.requestTypes[static_cast<uint16_t>(type)] = n;
    } else if (key == "replies") {
      uint32_t seq = 0;
      uint64_t n = 0;
      f >> seq >> n;
      out.dataBySeq[seq] = n;
    } else if (key == "sent") {
      unsigned type = 0, flags = 0;
      uint32_t seq = 0;
      f >> type >> flags >> seq;
      out.sent.push_back({static_cast<uint16_t>(type), static_cast<uint16_t>(flags), seq});
    } else {
      uint64_t v = 0;
      f >> v;
      if (key == "sendCalls") out.sendCalls = v;
      else if (key == "requests") out.requests = v;
      else if (key == "dumpRequests") out.dumpRequests = v;
      else if (key == "receiveCalls") out.receiveCalls = v;
      else if (key == "peekCalls") out.peekCalls = v;
      else if (key == "batchReceiveCalls") out.batchReceiveCalls = v;
      else if (key == "replyBytes") out.replyBytes = v;
      else if (key == "replyMessages") out.replyMessages = v;
      else if (key == "dataMessages") out.dataMessages = v;
      else if (key == "acks") out.acks = v;
      else if (key == "errors") out.errors = v;
      else if (key == "dumpInterrupted") out.dumpInterrupted = v;
    }
  }
  return true;
}

#ifdef FASTLINK_WIRE_PRELOAD
namespace {
// In the preload library: write the NETLINK_ROUTE counts to $FASTLINK_WIRE_LOG at exit.
__attribute__((destructor)) void writeWireLog() {
  const char* path = std::getenv("FASTLINK_WIRE_LOG");
  if (!path || !*path) return;
  Counts c = counts(NETLINK_ROUTE);
  std::ofstream f(path);
  f << "sendCalls " << c.sendCalls << "\nrequests " << c.requests << "\ndumpRequests " << c.dumpRequests
    << "\nreceiveCalls " << c.receiveCalls << "\npeekCalls " << c.peekCalls << "\nbatchReceiveCalls " << c.batchReceiveCalls << "\nreplyBytes " << c.replyBytes << "\nreplyMessages " << c.replyMessages
    << "\ndataMessages " << c.dataMessages << "\nacks " << c.acks << "\nerrors " << c.errors << "\ndumpInterrupted "
    << c.dumpInterrupted << "\n";
  for (const auto& [type, n] : c.requestTypes) f << "type " << type << " " << n << "\n";
  for (const auto& m : c.sent) f << "sent " << m.type << " " << m.flags << " " << m.seq << "\n";
  for (const auto& [seq, n] : c.dataBySeq) f << "replies " << seq << " " << n << "\n";
}
}  // namespace
#endif

}  // namespace fastlink::test::wire

using namespace fastlink::test::wire;

extern "C" {

ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to, socklen_t toLen) {
  static SendtoFn real = next<SendtoFn>("sendto");
  ssize_t n = real(fd, buf, len, flags, to, toLen);
  if (n >= 0) noteSent(fd, static_cast<const uint8_t*>(buf), len);
  return n;
}

ssize_t send(int fd, const void* buf, size_t len, int flags) {
  static SendFn real = next<SendFn>("send");
  ssize_t n = real(fd, buf, len, flags);
  if (n >= 0) noteSent(fd, static_cast<const uint8_t*>(buf), len);
  return n;
}

ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  static SendmsgFn real = next<SendmsgFn>("sendmsg");
  ssize_t n = real(fd, msg, flags);
  if (n >= 0) {
    std::vector<uint8_t> all;
    for (std::size_t i = 0; i < msg->msg_iovlen; ++i) {
      const auto* p = static_cast<const uint8_t*>(msg->msg_iov[i].iov_base);
      all.insert(all.end(), p, p + msg->msg_iov[i].iov_len);
    }
    noteSent(fd, all.data(), all.size());
  }
  return n;
}

ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  static RecvmsgFn real = next<RecvmsgFn>("recvmsg");
  ssize_t n = takeInjected(fd, msg->msg_iov, msg->msg_iovlen, static_cast<sockaddr*>(msg->msg_name),
                           &msg->msg_namelen, flags, &msg->msg_flags);
  if (n >= 0) return n;
  n = real(fd, msg, flags);
  if (n >= 0 && (flags & MSG_PEEK)) count(fd, &Counts::peekCalls);
  if (n > 0 && !(flags & MSG_PEEK)) noteReceivedIov(fd, msg, n);
  return n;
}

// Injected datagrams come first, one per call (like recvmsg), so a test sees them in order.
int recvmmsg(int fd, mmsghdr* msgs, unsigned int vlen, int flags, timespec* timeout) {
  static RecvmmsgFn real = next<RecvmmsgFn>("recvmmsg");
  if (vlen > 0) {
    msghdr* msg = &msgs[0].msg_hdr;
    ssize_t n = takeInjected(fd, msg->msg_iov, msg->msg_iovlen, static_cast<sockaddr*>(msg->msg_name),
                             &msg->msg_namelen, flags, &msg->msg_flags);
    if (n >= 0) {
      msg->msg_controllen = 0;
      msgs[0].msg_len = static_cast<unsigned int>(n);
      return 1;
    }
  }
  int n = real(fd, msgs, vlen, flags, timeout);
  if (n > 0 && !(flags & MSG_PEEK)) {
    count(fd, &Counts::batchReceiveCalls);
    for (int i = 0; i < n; ++i) noteReceivedIov(fd, &msgs[i].msg_hdr, msgs[i].msg_len);
  }
  return n;
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from, socklen_t* fromLen) {
  static RecvfromFn real = next<RecvfromFn>("recvfrom");
  iovec iov{buf, len};
  ssize_t n = takeInjected(fd, &iov, 1, from, fromLen, flags, nullptr);
  if (n >= 0) return n;
  n = real(fd, buf, len, flags, from, fromLen);
  if (n > 0 && !(flags & MSG_PEEK)) noteReceived(fd, static_cast<const uint8_t*>(buf), std::min<size_t>(n, len));
  return n;
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  static RecvFn real = next<RecvFn>("recv");
  iovec iov{buf, len};
  ssize_t n = takeInjected(fd, &iov, 1, nullptr, nullptr, flags, nullptr);
  if (n >= 0) return n;
  n = real(fd, buf, len, flags);
  if (n > 0 && !(flags & MSG_PEEK)) noteReceived(fd, static_cast<const uint8_t*>(buf), std::min<size_t>(n, len));
  return n;
}

}  // extern "C"
