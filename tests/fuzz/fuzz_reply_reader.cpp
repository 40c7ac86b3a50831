// libFuzzer harness for the reply reader as a whole: core::Engine over the scripted kernel of the
// unit tests (tests/unit/support/fake_kernel.hpp), which answers every request with datagrams
// built from the fuzz input: arbitrary message types, flags, lengths (truncation), sequence
// numbers (literal or relative to the request's) and senders (the kernel or another port).
// Whatever arrives, the engine must return or throw fastlink::Error; nothing is sent anywhere.
//
// Input: byte 0 picks the operation (execute, dump, batch Stop, batch Continue, query) and the
// batch size; then chunks of [control u8][length u8][length bytes]: the bytes are one message
// (its header fields overwritten as control says), control bit 0x80 starts a new datagram.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "unit/support/fake_kernel.hpp"

namespace {

using fastlink::test::FakeKernel;

struct Script {
  const uint8_t* data;
  std::size_t size;
  std::size_t at = 1;
  bool used = false;

  // Queues the scripted datagrams in answer to `request` (once: later requests get nothing, so
  // the engine sees a lost answer as EAGAIN from the fake, which it must report, not hang on).
  void answer(FakeKernel& kernel, const nlmsghdr* request) {
    if (used) return;
    used = true;
    std::vector<uint8_t> datagram;
    uint32_t sender = 0;
    while (at + 2 <= size) {
      uint8_t control = data[at];
      std::size_t length = std::min<std::size_t>(data[at + 1], size - at - 2);
      const uint8_t* body = data + at + 2;
      at += 2 + length;
      if ((control & 0x80) && !datagram.empty()) {
        kernel.queueDatagram(std::move(datagram), sender);
        datagram.clear();
      }
      sender = (control & 0x40) ? 777 : 0;  // another socket's port id: must be dropped
      std::size_t start = datagram.size();
      datagram.insert(datagram.end(), body, body + length);
      if (length >= NLMSG_HDRLEN) {
        auto* h = reinterpret_cast<nlmsghdr*>(datagram.data() + start);
        nlmsghdr copy;
        std::memcpy(&copy, h, sizeof copy);
        if (control & 0x01) copy.nlmsg_seq = request->nlmsg_seq + ((control >> 1) & 3);
        if (control & 0x08) copy.nlmsg_pid = FakeKernel::kPortId;
        if (control & 0x10) copy.nlmsg_len = static_cast<uint32_t>(length);
        if (control & 0x20) copy.nlmsg_type = (copy.nlmsg_type & 1) ? NLMSG_ERROR : NLMSG_DONE;
        std::memcpy(h, &copy, sizeof copy);
      }
      datagram.resize(NLMSG_ALIGN(datagram.size()), 0);
    }
    if (!datagram.empty()) kernel.queueDatagram(std::move(datagram), sender);
  }
};

fastlink::Request linkRequest(int index) {
  fastlink::core::MessageWriter w(RTM_NEWLINK, 0);
  w.putHeader<ifinfomsg>().ifi_index = index;
  return w.toRequest("link set ifindex " + std::to_string(index));
}

void touch(const nlmsghdr* m) {
  volatile uint32_t sink = m->nlmsg_len ^ m->nlmsg_type;
  (void)sink;
}

}  // namespace

// One engine for every input: constructing one per input (a 64 KiB receive buffer and a 256 KiB
// send reserve, poisoned and unpoisoned by ASan each time) was most of the harness's time
// (~1,300 inputs a second). Reusing it also tests what a long-lived Netlink relies on: that the
// engine stays usable after whatever reply came before. Each input starts with an empty wire
// (nothing queued, nothing recorded: each input clears what it left), so an input that crashes
// mostly crashes alone too; one that does not is replayed with the corpus in order.
struct Harness {
  fastlink::test::FakeKernel* kernel = nullptr;  // owned by the engine
  std::unique_ptr<fastlink::core::Engine> engine;
};

Harness& harness() {
  static Harness h = [] {
    Harness made;
    auto kernel = std::make_unique<FakeKernel>(64 * 1024);
    made.kernel = kernel.get();
    made.engine = std::make_unique<fastlink::core::Engine>(std::move(kernel), fastlink::NetlinkOptions{});
    return made;
  }();
  return h;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 16384) return 0;
  Harness& h = harness();
  auto script = std::make_shared<Script>(Script{data, size});
  h.kernel->setResponder([script](FakeKernel& k, const nlmsghdr* m) { script->answer(k, m); });
  fastlink::core::Engine& engine = *h.engine;
  fastlink::core::MessageWriter get(RTM_GETLINK, 0);
  get.putHeader<ifinfomsg>();
  fastlink::Request getRequest = get.toRequest("link show");
  try {
    switch (data[0] & 7) {
      case 0: engine.execute(linkRequest(1)); break;
      case 1: engine.dump(getRequest.bytes(), "link show", touch, [] {}); break;
      case 2: engine.query(getRequest.bytes(), "link get", touch); break;
      default: {
        std::vector<fastlink::Request> requests;
        for (int i = 1; i <= 1 + (data[0] >> 4); ++i) requests.push_back(linkRequest(i));
        fastlink::BatchOptions batch;
        batch.onError = (data[0] & 1) ? fastlink::OnError::Continue : fastlink::OnError::Stop;
        batch.window = (data[0] >> 3) & 1 ? 0 : 3;
        engine.runBatch(std::span<const fastlink::Request>(requests), batch,
                        [](std::size_t, const fastlink::RequestResult&) {});
        break;
      }
    }
  } catch (const fastlink::Error&) {
    // a malformed, missing or foreign answer is reported as an Error: fine
  }
  // Back to an empty wire, freeing what this input made: the script (it points into this input's
  // bytes), and answers or records it left. libFuzzer runs a leak check after every input whose
  // mallocs and frees do not balance, which made that check most of the run.
  h.kernel->setResponder({});
  std::deque<FakeKernel::Datagram>().swap(h.kernel->queue);
  std::vector<FakeKernel::SentMessage>().swap(h.kernel->sent);
  return 0;
}
