// Test support: an observer of the netlink traffic of this process, independent of fastlink.
//
// wire_observer.cpp defines sendto/sendmsg/send/recvmsg/recvmmsg/recvfrom/recv itself; a definition in the
// executable (or in an LD_PRELOAD library) comes before libc's, so every call fastlink or libmnl
// makes passes through it and on to libc (dlsym(RTLD_NEXT)). Only netlink sockets are looked at.
// It parses the netlink messages it sees, so a test can prove "one request" and "filtered in the
// kernel" from the wire rather than from fastlink's own SocketCounters.
//
// For the CLI the same file is built as a preload library (fastlink_wire_preload): with
// FASTLINK_WIRE_LOG=FILE in the environment it writes its counts to FILE when the process exits
// (see readWireLog).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fastlink::test::wire {

/// One netlink message this process sent.
struct SentMessage {
  uint16_t type = 0;
  uint16_t flags = 0;
  uint32_t seq = 0;
};

/// What crossed the process's netlink sockets of one protocol since the last reset().
struct Counts {
  uint64_t sendCalls = 0;       ///< sendto/sendmsg/send calls on netlink sockets
  uint64_t requests = 0;        ///< netlink messages in them
  uint64_t dumpRequests = 0;    ///< of which with NLM_F_DUMP
  uint64_t receiveCalls = 0;    ///< receives that consumed a datagram (MSG_PEEK ones are not counted)
  uint64_t peekCalls = 0;       ///< MSG_PEEK receives (recvmsg), which consume nothing
  uint64_t batchReceiveCalls = 0; ///< recvmmsg calls that consumed datagrams (each also counted above)
  uint64_t replyBytes = 0;      ///< bytes of those datagrams
  uint64_t replyMessages = 0;   ///< netlink messages in them, NLMSG_DONE and NLMSG_ERROR included
  uint64_t dataMessages = 0;    ///< of which neither NLMSG_DONE nor NLMSG_ERROR (objects)
  uint64_t acks = 0;            ///< NLMSG_ERROR with error 0
  uint64_t errors = 0;          ///< NLMSG_ERROR with an error
  uint64_t dumpInterrupted = 0; ///< messages carrying NLM_F_DUMP_INTR
  std::map<uint16_t, uint64_t> requestTypes;  ///< message type -> how many were sent
  std::map<uint32_t, uint64_t> dataBySeq;     ///< sequence number -> data messages received for it
  std::vector<SentMessage> sent;              ///< the first 4096 messages sent
  std::vector<std::vector<uint8_t>> sentBytes;  ///< the first 64 messages sent, whole (in process only)
};

/// The attributes of a sent rtnetlink message after its fixed header of `fixedSize` bytes:
/// type (nested/byte-order bits cleared) -> payload. For checking what a request carried.
std::map<uint16_t, std::vector<uint8_t>> attributes(const std::vector<uint8_t>& message, std::size_t fixedSize);

/// Data messages the kernel returned for each dump of `type` that was sent, in sending order.
std::vector<uint64_t> dumpReplies(const Counts& c, uint16_t type);

/// Forgets everything seen so far (all protocols).
void reset();
/// What was seen on sockets of `protocol` (NETLINK_ROUTE = 0) since the last reset().
Counts counts(int protocol = 0);
/// File descriptors of the open netlink sockets of `protocol` this process has sent on.
std::vector<int> sockets(int protocol = 0);
/// Makes the next receive on `fd` return `datagram` as if the kernel (port id 0) had sent it,
/// before anything the real socket holds. A MSG_PEEK receive sees it without consuming it.
void injectFromKernel(int fd, std::vector<uint8_t> datagram);

/// Parses a log written by the preload library (FASTLINK_WIRE_LOG); counts of NETLINK_ROUTE.
/// Returns false when the file is missing or unreadable.
bool readWireLog(const std::string& path, Counts& out);

}  // namespace fastlink::test::wire
