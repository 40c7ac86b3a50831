// The engine's dump receive (src/core/engine.cpp, Engine::dumpRuns) against the kernel: a dump's
// datagrams are read with one recvmsg each, never peeked (seen on the wire), and a datagram
// larger than the receive buffer is not lost: a device with ~500 altnames has a link message
// over 64 KiB, the kernel sizes the dump's datagrams for it (min_dump_alloc, computed when the
// dump sends an extension mask, as `ip` and kernelSkipStats do), the first read cuts it off,
// and the dump starts again with sizes peeked first. `ip -j link show` (which peeks every
// datagram) is the oracle for what the dump must list.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "integration/link_fixture.hpp"
#include "support/wire_observer.hpp"

namespace fastlink::test {
namespace {

using Devices = std::set<std::pair<uint32_t, std::string>>;

class DumpReceiveTest : public LinkTest {
 protected:
  Devices ipDevices() {
    Devices out;
    for (const auto& l : ns.ipJson("link show")) out.emplace(l["ifindex"].get<uint32_t>(), l["ifname"].get<std::string>());
    return out;
  }
  Devices dumpDevices(const LinkFilter& filter = {}) {
    Devices out;
    links.forEach(
        filter, [&](const LinkView& v) { out.emplace(v.index(), std::string(v.name().value_or(""))); },
        [&] { out.clear(); });
    return out;
  }
};

TEST_F(DumpReceiveTest, DumpDatagramsAreReadWithOneRecvmsgEach) {
  std::vector<std::string> lines;
  for (int i = 0; i < 60; ++i) lines.push_back("link add v" + std::to_string(i) + " type veth peer name p" + std::to_string(i));
  ns.ipBatch(lines);
  Devices expected = ipDevices();
  SocketCounters before = nl.counters();
  wire::reset();
  EXPECT_EQ(dumpDevices(), expected);
  wire::Counts c = wire::counts();
  EXPECT_EQ(c.peekCalls, 0u) << "a dump datagram was peeked before it was read";
  EXPECT_EQ(c.receiveCalls, nl.counters().receiveCalls - before.receiveCalls);
  EXPECT_GE(c.receiveCalls, 4u) << "121 devices should take several datagrams";
  EXPECT_EQ(nl.counters().dumpRestarts, before.dumpRestarts);
}

TEST_F(DumpReceiveTest, DatagramLargerThanTheBufferRestartsTheDumpInsteadOfLosingIt) {
  addVeth("va", "vb");
  addVeth("vc", "vd");
  // 495 altnames of 126 bytes: the property list just under its 64 KiB limit, va's message ~66 KiB.
  std::vector<std::string> lines;
  for (int i = 0; i < 495; ++i) lines.push_back("link property add dev va altname " + std::string(120, 'x') + std::to_string(100000 + i));
  ns.ipBatch(lines);
  Devices expected = ipDevices();
  ASSERT_EQ(expected.size(), 5u);
  LinkFilter masked;
  masked.kernelSkipStats = true;  // an extension mask: the kernel sizes datagrams for va
  wire::reset();
  EXPECT_EQ(dumpDevices(masked), expected) << "the dump lost a device";
  EXPECT_EQ(nl.counters().dumpRestarts, 1u) << "the cut-off datagram did not restart the dump";
  EXPECT_EQ(nl.counters().receiveBufferGrowths, 1u);
  EXPECT_GT(wire::counts().peekCalls, 0u) << "the restarted dump should peek";
  // The buffer kept its size: the next dump reads straight and whole.
  wire::reset();
  EXPECT_EQ(dumpDevices(masked), expected);
  EXPECT_EQ(nl.counters().dumpRestarts, 1u);
  EXPECT_EQ(wire::counts().peekCalls, 0u);
}

}  // namespace
}  // namespace fastlink::test
