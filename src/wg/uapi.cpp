// The WireGuard userspace API: a text protocol over a unix stream socket (one per device) that
// wireguard-go and other userspace implementations serve. Requests are "get=1\n\n" or "set=1\n"
// + key=value lines + "\n"; replies are key=value lines ending with "errno=N\n\n". Keys are hex.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <sstream>

#include "core/whole_file.hpp"
#include "fastlink/error.hpp"
#include "wg/backend.hpp"

namespace fastlink::wg {
namespace {

constexpr std::string_view kSuffix = ".sock";

Error systemError(int err, const std::string& operation, std::string why = {}) {
  return Error(std::error_code(err, std::generic_category()), operation, std::move(why));
}

Error malformed(const std::string& operation, std::string why) {
  return Error(make_error_code(Errc::malformed_reply), operation, std::move(why));
}

/// Connects to `path`; returns -errno on failure.
int connectTo(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return -ENAMETOOLONG;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  // A daemon whose backlog is full must not hang connect() forever (SO_SNDTIMEO bounds it for
  // unix sockets); the exchange itself waits as exchange() says.
  timeval timeout{.tv_sec = 10, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

template <class T>
T number(std::string_view value, std::string_view key, const std::string& operation) {
  T out{};
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size())
    throw malformed(operation, "bad number for " + std::string(key));
  return out;
}

WgKey hexKey(std::string_view value, std::string_view key, const std::string& operation) {
  try {
    return WgKey::fromHex(value);
  } catch (const Error&) {
    throw malformed(operation, "bad key for " + std::string(key));
  }
}

/// The CPU time (user + system, in clock ticks) of process `pid` so far, from /proc/PID/stat;
/// nullopt when the process is gone or cannot be seen (another pid namespace: pid 0).
std::optional<unsigned long long> cpuTicks(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::optional<std::string> stat = core::readWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  // After "PID (COMM) ": state, then 10 fields up to utime and stime (proc(5) fields 14, 15).
  auto close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat->substr(close + 1));
  std::string skip;
  for (int i = 3; i <= 13; ++i) fields >> skip;
  unsigned long long utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return std::nullopt;
  return utime + stime;
}

/// Waits until `fd` is ready for `events`. wg(8) blocks on the daemon without a limit, and so
/// does this while the daemon works: formatting thousands of peers takes wireguard-go longer
/// than any fixed limit on a slow or loaded CPU. What fails is a `silence` in which the daemon
/// (the socket's peer, SO_PEERCRED) neither made the socket ready nor used any CPU: it is
/// stopped, deadlocked or gone. A daemon that cannot be seen gets `silence` in all.
void awaitDaemon(int fd, short events, std::chrono::milliseconds silence, const std::string& operation) {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) peer.pid = 0;
  std::optional<unsigned long long> before = cpuTicks(peer.pid);
  for (;;) {
    pollfd p{.fd = fd, .events = events, .revents = 0};
    int ready = ::poll(&p, 1, static_cast<int>(silence.count()));
    if (ready > 0) return;
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw systemError(errno, operation, "waiting for the userspace WireGuard socket failed");
    std::optional<unsigned long long> now = cpuTicks(peer.pid);
    if (before && now && *now != *before) {
      before = now;  // working on it: wait another `silence`
      continue;
    }
    throw systemError(ETIMEDOUT, operation,
                      "the userspace WireGuard daemon (pid " + std::to_string(peer.pid) + ") did not answer in " +
                          std::to_string(silence.count()) + " ms and used no CPU meanwhile");
  }
}

/// One send() or recv() without blocking (`transfer`), repeated after EINTR and, while the
/// socket is not ready, after awaitDaemon(); any other failure is thrown with `why`.
template <class Transfer>
std::size_t watched(int fd, short events, std::chrono::milliseconds silence, const std::string& operation,
                    const char* why, Transfer transfer) {
  for (;;) {
    ssize_t n = transfer();
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EAGAIN) awaitDaemon(fd, events, silence, operation);
    else if (errno != EINTR) throw systemError(errno, operation, why);
  }
}

}  // namespace

std::string uapiSetRequest(const WgDevice& d) {
  std::string out = "set=1\n";
  if (d.privateKey) out += "private_key=" + d.privateKey->toHex() + "\n";
  if (d.listenPort) out += "listen_port=" + std::to_string(*d.listenPort) + "\n";
  if (d.fwmark) out += "fwmark=" + std::to_string(*d.fwmark) + "\n";
  if (d.replacePeers) out += "replace_peers=true\n";
  for (const WgPeer& p : d.peers) {
    out += "public_key=" + p.publicKey.toHex() + "\n";
    if (p.remove) {
      out += "remove=true\n";
      continue;
    }
    if (p.updateOnly) out += "update_only=true\n";
    if (p.presharedKey) out += "preshared_key=" + p.presharedKey->toHex() + "\n";
    if (p.endpoint) out += "endpoint=" + p.endpoint->toString() + "\n";
    if (p.persistentKeepalive) out += "persistent_keepalive_interval=" + std::to_string(*p.persistentKeepalive) + "\n";
    if (p.replaceAllowedIps) out += "replace_allowed_ips=true\n";
    for (const WgAllowedIp& ip : p.allowedIps) out += "allowed_ip=" + ip.toString() + "\n";
  }
  out += "\n";
  return out;
}

int uapiErrno(std::string_view reply, const std::string& operation) {
  auto at = reply.rfind("errno=");
  if (at == std::string_view::npos || (at != 0 && reply[at - 1] != '\n'))
    throw malformed(operation, "the userspace reply has no errno line");
  auto end = reply.find('\n', at);
  int err = number<int>(reply.substr(at + 6, end == std::string_view::npos ? std::string_view::npos : end - at - 6),
                        "errno", operation);
  // wireguard-go writes negative errnos (-EINVAL), the protocol text positive ones: take either.
  return err < 0 ? -err : err;
}

WgDevice uapiParseGet(std::string_view reply, const std::string& name, const std::string& operation) {
  int err = uapiErrno(reply, operation);
  if (err != 0) throw systemError(err, operation);
  WgDevice d(name);
  WgPeer* peer = nullptr;
  std::size_t pos = 0;
  while (pos < reply.size()) {
    auto nl = reply.find('\n', pos);
    if (nl == std::string_view::npos) nl = reply.size();
    std::string_view line = reply.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) break;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) throw malformed(operation, "userspace reply line without '='");
    std::string_view key = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    if (key == "errno") break;
    if (key == "private_key") {
      d.privateKey = hexKey(value, key, operation);
      d.publicKey = d.privateKey->isZero() ? WgKey() : d.privateKey->publicKey();
    } else if (key == "listen_port") {
      d.listenPort = number<uint16_t>(value, key, operation);
    } else if (key == "fwmark") {
      d.fwmark = number<uint32_t>(value, key, operation);
    } else if (key == "public_key") {
      d.peers.emplace_back(hexKey(value, key, operation));
      peer = &d.peers.back();
    } else if (!peer) {
      // Keys this version does not know are skipped: the protocol grows by adding keys.
      continue;
    } else if (key == "preshared_key") {
      peer->presharedKey = hexKey(value, key, operation);
    } else if (key == "endpoint") {
      try {
        peer->endpoint = WgEndpoint::parse(value);
      } catch (const Error&) {
        throw malformed(operation, "bad endpoint in userspace reply");
      }
    } else if (key == "persistent_keepalive_interval") {
      peer->persistentKeepalive = number<uint16_t>(value, key, operation);
    } else if (key == "allowed_ip") {
      try {
        peer->allowedIps.emplace_back(Prefix::parse(value));
      } catch (const Error&) {
        throw malformed(operation, "bad allowed_ip in userspace reply");
      }
    } else if (key == "last_handshake_time_sec") {
      peer->lastHandshake = peer->lastHandshake.value_or(WgTime{});
      peer->lastHandshake->seconds = number<int64_t>(value, key, operation);
    } else if (key == "last_handshake_time_nsec") {
      peer->lastHandshake = peer->lastHandshake.value_or(WgTime{});
      peer->lastHandshake->nanoseconds = number<int64_t>(value, key, operation);
    } else if (key == "rx_bytes") {
      peer->rxBytes = number<uint64_t>(value, key, operation);
    } else if (key == "tx_bytes") {
      peer->txBytes = number<uint64_t>(value, key, operation);
    } else if (key == "protocol_version") {
      peer->protocolVersion = number<uint32_t>(value, key, operation);
    }
  }
  return d;
}

std::string UapiBackend::socketPath(const std::string& name) const { return directory_ + "/" + name + std::string(kSuffix); }

bool UapiBackend::has(const std::string& name) const {
  if (name.empty() || name.size() > 15 || name.find('/') != std::string::npos) return false;
  struct stat st {};
  if (::stat(socketPath(name).c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int fd = connectTo(socketPath(name));
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::vector<std::string> UapiBackend::list() {
  std::vector<std::string> names;  // none without the directory: no userspace implementation has run
  for (const std::string& file : core::directoryEntries(directory_)) {
    if (!file.ends_with(kSuffix)) continue;
    std::string name = file.substr(0, file.size() - kSuffix.size());
    if (has(name)) names.push_back(std::move(name));
  }
  return names;
}

std::string UapiBackend::exchange(const std::string& name, const std::string& request, const std::string& operation) const {
  int fd = connectTo(socketPath(name));
  if (fd < 0) throw systemError(-fd, operation, "cannot reach the userspace WireGuard socket of \"" + name + "\"");
  core::Fd socket(fd);
  for (std::size_t sent = 0; sent < request.size();)
    sent += watched(fd, POLLOUT, silence_, operation, "sending to the userspace WireGuard socket failed", [&] {
      return ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    });
  std::string reply;
  char buf[4096];
  // The reply ends with an empty line; the daemon keeps the connection open for more requests.
  while (!(reply.ends_with("\n\n") && reply.find("errno=") != std::string::npos)) {
    std::size_t n = watched(fd, POLLIN, silence_, operation, "no reply from the userspace WireGuard socket",
                            [&] { return ::recv(fd, buf, sizeof buf, MSG_DONTWAIT); });
    if (n == 0) break;
    reply.append(buf, n);
  }
  return reply;
}

WgDevice UapiBackend::get(const std::string& name) {
  std::string operation = "wg show " + name + " (userspace)";
  return uapiParseGet(exchange(name, "get=1\n\n", operation), name, operation);
}

void UapiBackend::set(const WgDevice& change) {
  std::string operation = "wg set " + change.name + " (userspace)";
  std::string request = uapiSetRequest(change);
  std::string reply = exchange(change.name, request, operation);
  std::fill(request.begin(), request.end(), '\0');  // it held the keys
  int err = uapiErrno(reply, operation);
  if (err != 0) throw systemError(err, operation);
}

}  // namespace fastlink::wg
