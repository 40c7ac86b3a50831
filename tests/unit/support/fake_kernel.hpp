// A scripted kernel under core::Engine: records what the engine sends and answers with what the
// test queues, so the pipeline is tested without root or a socket.
//
// Behaviour the engine sees: send() hands every message to the test's responder (or, without
// one, ACKs every message that asked for an ACK, like the kernel for a request that applied).
// receive() returns queued datagrams in order; a datagram larger than the engine's buffer is
// reported tooLarge, left queued when read Whole (as the real socket's MSG_PEEK does) and cut
// off (gone) when read Straight; an empty queue is Error(EAGAIN) (the engine never blocks on a
// fake, so a lost answer shows up as that error), or `none` for StraightIfQueued.
#pragma once

#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "core/transport.hpp"
#include "fastlink/error.hpp"

namespace fastlink::test {

class FakeKernel final : public core::Transport {
 public:
  struct Datagram {
    std::vector<uint8_t> bytes;
    uint32_t sender = 0;
  };
  /// A message the engine sent, as it went on the wire.
  struct SentMessage {
    nlmsghdr header;
    std::vector<uint8_t> bytes;
    std::size_t sendCall;  ///< which sendmsg it came in (0-based)
  };
  using Responder = std::function<void(FakeKernel& kernel, const nlmsghdr* request)>;

  static constexpr uint32_t kPortId = 4242;

  explicit FakeKernel(int receiveBufferBytes = 4 * 1024 * 1024) : receiveBufferBytes_(receiveBufferBytes) {}

  void setResponder(Responder r) { responder_ = std::move(r); }

  uint32_t portId() const override { return kPortId; }
  int fd() const override { return -1; }
  int receiveBufferBytes() const override { return receiveBufferBytes_; }

  void send(std::span<const uint8_t> bytes) override {
    std::size_t at = 0;
    while (at + NLMSG_HDRLEN <= bytes.size()) {
      const auto* h = reinterpret_cast<const nlmsghdr*>(bytes.data() + at);
      sent.push_back({*h, std::vector<uint8_t>(bytes.begin() + at, bytes.begin() + at + h->nlmsg_len), sendCalls});
      if (responder_) responder_(*this, h);
      else if (h->nlmsg_flags & NLM_F_ACK) queueAck(h, 0);
      at += NLMSG_ALIGN(h->nlmsg_len);
    }
    ++sendCalls;
  }

  core::Received receive(std::span<uint8_t> buffer, core::ReceiveMode mode) override {
    ++receiveCalls;
    modes.push_back(mode);
    if (queue.empty() && mode == core::ReceiveMode::StraightIfQueued) return {.none = true};
    if (queue.empty()) throw Error(std::error_code(EAGAIN, std::generic_category()), "recvmsg");
    Datagram& d = queue.front();
    core::Received r{d.bytes.size(), d.sender, d.bytes.size() > buffer.size()};
    if (r.tooLarge && mode == core::ReceiveMode::Whole) return r;  // left queued
    std::memcpy(buffer.data(), d.bytes.data(), std::min(d.bytes.size(), buffer.size()));
    queue.pop_front();
    return r;
  }

  // ---- building answers ----

  /// One message answering `request` (same seq, our port id unless `pid` is given).
  static std::vector<uint8_t> message(const nlmsghdr* request, uint16_t type, uint16_t flags,
                                      std::span<const uint8_t> payload, uint32_t pid = kPortId) {
    std::vector<uint8_t> m(NLMSG_ALIGN(NLMSG_HDRLEN + payload.size()), 0);
    auto* h = reinterpret_cast<nlmsghdr*>(m.data());
    h->nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + payload.size());
    h->nlmsg_type = type;
    h->nlmsg_flags = flags;
    h->nlmsg_seq = request->nlmsg_seq;
    h->nlmsg_pid = pid;
    if (!payload.empty()) std::memcpy(m.data() + NLMSG_HDRLEN, payload.data(), payload.size());
    return m;
  }

  /// An NLMSG_ERROR for `request`: `error` 0 is an ACK, else -errno; capped, with an extack
  /// message if given.
  static std::vector<uint8_t> ack(const nlmsghdr* request, int error, const std::string& extack = {}) {
    std::vector<uint8_t> payload(sizeof(nlmsgerr), 0);
    auto* e = reinterpret_cast<nlmsgerr*>(payload.data());
    e->error = error;
    e->msg = *request;
    uint16_t flags = NLM_F_CAPPED;
    if (!extack.empty()) {
      flags |= NLM_F_ACK_TLVS;
      uint16_t len = static_cast<uint16_t>(4 + extack.size() + 1);
      uint16_t type = NLMSGERR_ATTR_MSG;
      const auto* l = reinterpret_cast<const uint8_t*>(&len);
      const auto* t = reinterpret_cast<const uint8_t*>(&type);
      payload.insert(payload.end(), l, l + 2);
      payload.insert(payload.end(), t, t + 2);
      payload.insert(payload.end(), extack.begin(), extack.end());
      payload.resize(payload.size() + 1 + (NLMSG_ALIGN(len) - len), 0);
    }
    return message(request, NLMSG_ERROR, flags, payload);
  }

  static std::vector<uint8_t> done(const nlmsghdr* request, uint16_t flags = NLM_F_MULTI) {
    int zero = 0;
    return message(request, NLMSG_DONE, flags, {reinterpret_cast<const uint8_t*>(&zero), sizeof zero});
  }

  void queueDatagram(std::vector<uint8_t> bytes, uint32_t sender = 0) { queue.push_back({std::move(bytes), sender}); }
  /// Several messages in one datagram, as a dump sends them.
  void queueDatagram(std::initializer_list<std::vector<uint8_t>> messages, uint32_t sender = 0) {
    std::vector<uint8_t> d;
    for (const auto& m : messages) d.insert(d.end(), m.begin(), m.end());
    queueDatagram(std::move(d), sender);
  }
  void queueAck(const nlmsghdr* request, int error, const std::string& extack = {}) {
    queueDatagram(ack(request, error, extack));
  }

  std::deque<Datagram> queue;
  std::vector<SentMessage> sent;
  std::size_t sendCalls = 0;
  std::size_t receiveCalls = 0;
  std::vector<core::ReceiveMode> modes;  ///< how each receive read

 private:
  int receiveBufferBytes_;
  Responder responder_;
};

}  // namespace fastlink::test
