// Multicast addresses from /proc/net/{dev_mcast,igmp,igmp6}, read inside the namespace.
#include "fastlink/maddr.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/netns_guard.hpp"

namespace fastlink {
namespace {

// /proc/thread-self: /proc/net follows the process's leader, this the calling thread, which
// is the one the guard moved into the namespace.
constexpr const char* kProcNet = "/proc/thread-self/net/";

/// Hex digits as bytes ("333300000001" -> 33 33 00 00 00 01); empty if they are not hex.
std::vector<uint8_t> hexBytes(const std::string& hex) {
  std::vector<uint8_t> out;
  if (hex.size() % 2) return {};
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    unsigned v;
    if (std::sscanf(hex.c_str() + i, "%2x", &v) != 1) return {};
    out.push_back(static_cast<uint8_t>(v));
  }
  return out;
}

// "index name users global-users hex-address"; global users > 0: added by hand.
void readLinkLayer(std::vector<MulticastAddress>& out) {
  std::ifstream in(std::string(kProcNet) + "dev_mcast");
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    MulticastAddress m;
    unsigned global = 0;
    std::string hex;
    if (!(f >> m.ifindex >> m.ifname >> m.users >> global >> hex)) continue;
    m.family = MulticastAddress::Family::Link;
    m.address = hexBytes(hex);
    m.isStatic = global != 0;
    out.push_back(std::move(m));
  }
}

// A device line "index\tname : count querier", then its groups "\t\t\t\tGROUP users timer
// reporter" with GROUP the address as the kernel's 32-bit word in hex (host order).
void readIgmp(std::vector<MulticastAddress>& out) {
  std::ifstream in(std::string(kProcNet) + "igmp");
  std::string line;
  std::getline(in, line);  // the heading
  uint32_t index = 0;
  std::string name;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    if (line.empty()) continue;
    if (line[0] != '\t') {
      f >> index >> name;
      continue;
    }
    std::string group;
    MulticastAddress m;
    unsigned word;
    if (!(f >> group >> m.users) || group.size() != 8 || std::sscanf(group.c_str(), "%8x", &word) != 1) continue;
    m.ifindex = index;
    m.ifname = name;
    m.family = MulticastAddress::Family::Inet;
    m.address.resize(4);
    std::memcpy(m.address.data(), &word, 4);  // the kernel printed a big-endian word as a number
    out.push_back(std::move(m));
  }
}

// "index name hex-address users flags timer".
void readIgmp6(std::vector<MulticastAddress>& out) {
  std::ifstream in(std::string(kProcNet) + "igmp6");
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    MulticastAddress m;
    std::string hex;
    if (!(f >> m.ifindex >> m.ifname >> hex >> m.users)) continue;
    m.family = MulticastAddress::Family::Inet6;
    m.address = hexBytes(hex);
    if (m.address.size() == 16) out.push_back(std::move(m));
  }
}

}  // namespace

std::vector<MulticastAddress> listMulticastAddresses(const std::optional<Netns>& ns) {
  std::vector<MulticastAddress> out;
  {
    std::optional<core::NetnsGuard> inside;
    if (ns) inside.emplace(*ns);
    readLinkLayer(out);
    readIgmp(out);
    readIgmp6(out);
  }
  // ip inserts each address after those of lower or equal ifindex: by device, file order kept.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ifindex < b.ifindex; });
  return out;
}

}  // namespace fastlink
