// The `wg` object: `fastlink wg ...` in wireguard-tools' grammar and output (show, showconf,
// set, setconf, addconf, syncconf, genkey, genpsk, pubkey), plus -j.
//
// Secrets: private and preshared keys are printed only where wg prints them (showconf, dump,
// `show DEV private-key|preshared-keys`, genkey/genpsk); plain `show` and -j show "(hidden)" /
// leave them out, except -j with dump. Error messages never contain key text.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "fastlink/error.hpp"
#include "fastlink/wireguard.hpp"
#include "kit/output.hpp"
#include "wg/wg_print.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink wg [ show [ { all | interfaces | DEV } [ FIELD ] ] ]
       fastlink wg showconf DEV
       fastlink wg set DEV [ listen-port PORT ] [ fwmark MARK ] [ private-key FILE ]
                           [ peer KEY [ remove ] [ update-only ] [ preshared-key FILE ]
                             [ endpoint IP:PORT ] [ persistent-keepalive SECONDS ]
                             [ allowed-ips IP/CIDR[,IP/CIDR]... ] ]...
       fastlink wg { setconf | addconf | syncconf } DEV FILE
       fastlink wg { genkey | genpsk | pubkey }
FIELD := { public-key | private-key | listen-port | fwmark | peers | preshared-keys | endpoints |
           allowed-ips | latest-handshakes | transfer | persistent-keepalive | dump })";

/// wg exits 1 for every failure: a bad command line, key, port or file, a device it cannot
/// reach, a change refused (wireguard-tools 1.0.20210914; docs/CLI.md, "Exit statuses").
constexpr int kWgFailed = 1;

WireGuardApi& api(Context& ctx) { return ctx.netlink().wireguard(); }

/// The whole file ("-": standard input), read with read(2) so a directory or an unreadable file
/// is a usage error naming it. (libstdc++'s filebuf opens a directory, then throws
/// ios_base::failure from its first read.)
std::string readFile(const std::string& path) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError(fmt::format("cannot open \"{}\": {}", path, std::strerror(errno)));
  std::string content;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      content.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    int err = errno;
    if (fd != STDIN_FILENO) ::close(fd);
    if (n < 0) throw UsageError(fmt::format("cannot read \"{}\": {}", path, std::strerror(err)));
    return content;
  }
}

/// Library input errors (bad key, port, prefix) are usage errors for the command line.
template <class F>
auto asUsage(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.code() != std::errc::invalid_argument) throw;
    if (e.line()) throw UsageError(fmt::format("line {}: {}", *e.line(), e.reason()));
    throw UsageError(e.reason());
  }
}

int64_t handshake(const WgPeer& p) { return p.lastHandshake ? p.lastHandshake->seconds : 0; }

/// wg's pretty listing shows the most recent handshakes first.
void sortPeers(WgDevice& d) {
  std::stable_sort(d.peers.begin(), d.peers.end(), [](const WgPeer& a, const WgPeer& b) { return handshake(a) > handshake(b); });
}

/// -j: one object per device. Secrets only with `dump` (as wg's dump prints them).
nlohmann::ordered_json toJson(const WgDevice& d, bool secrets) {
  nlohmann::ordered_json j;
  j["ifname"] = d.name;
  if (secrets && d.privateKey && !d.privateKey->isZero()) j["private_key"] = d.privateKey->toBase64();
  if (d.publicKey && !d.publicKey->isZero()) j["public_key"] = d.publicKey->toBase64();
  j["listen_port"] = d.listenPort.value_or(0);
  j["fwmark"] = d.fwmark.value_or(0);
  auto peers = nlohmann::ordered_json::array();
  for (const WgPeer& p : d.peers) {
    nlohmann::ordered_json jp;
    jp["public_key"] = p.publicKey.toBase64();
    if (p.presharedKey && !p.presharedKey->isZero()) {
      if (secrets) jp["preshared_key"] = p.presharedKey->toBase64();
      else jp["has_preshared_key"] = true;
    }
    if (p.endpoint) jp["endpoint"] = p.endpoint->toString();
    auto ips = nlohmann::ordered_json::array();
    for (const auto& ip : p.allowedIps) ips.push_back(ip.toString());
    jp["allowed_ips"] = ips;
    jp["latest_handshake"] = handshake(p);
    jp["rx_bytes"] = p.rxBytes.value_or(0);
    jp["tx_bytes"] = p.txBytes.value_or(0);
    jp["persistent_keepalive"] = p.persistentKeepalive.value_or(0);
    if (p.protocolVersion) jp["protocol_version"] = *p.protocolVersion;
    peers.push_back(jp);
  }
  j["peers"] = peers;
  return j;
}

int show(Context& ctx, Args& args) {
  std::string target = args.done() ? "all" : args.next();
  if (target == "help") throw UsageError(kUsage);  // `wg show help`: wg's "Invalid parameter"
  if (target == "interfaces") {
    if (!args.done()) args.unknown("wg show interfaces takes nothing more");
    auto names = api(ctx).list();
    if (ctx.options().json) {
      JsonArrayWriter out(stdout, ctx.options().pretty);
      for (const auto& n : names) out.add(n);
      return kExitOk;
    }
    std::string line;
    for (const auto& n : names) line += (line.empty() ? "" : " ") + n;
    if (!line.empty()) printLine(line);
    return kExitOk;
  }
  std::optional<WgField> field;
  if (!args.done()) {
    std::string word = args.next();
    field = parseWgField(word);
    if (!field) throw UsageError(fmt::format("wg show: unknown field \"{}\"\n{}", word, kUsage));
  }
  if (!args.done()) args.unknown("wg show takes one field");
  bool all = target == "all";
  std::vector<std::string> names = all ? api(ctx).list() : std::vector<std::string>{parseIfname(target, "wg show")};
  std::optional<JsonArrayWriter> json;
  std::optional<OutBuffer> text;
  // Nothing here is restarted (see writer.hpp): write out from the first chunk on.
  if (ctx.options().json) json.emplace(stdout, ctx.options().pretty);
  else text.emplace(stdout, OutBuffer::kChunk);
  int status = kExitOk;
  bool first = true;
  for (const auto& name : names) {
    WgDevice d;
    try {
      d = api(ctx).get(name);
    } catch (const Error& e) {
      // A device that vanished between list and get is skipped in `all`, like wg.
      if (all && e.code() == std::errc::no_such_device) continue;
      if (text) text->flush();  // what was printed before the error comes before it
      reportFailure(e);
      status = kWgFailed;
      if (!all) return status;
      continue;
    }
    if (!field) sortPeers(d);
    if (json) json->add(toJson(d, field == WgField::Dump));
    else if (field) printWgField(*text, d, *field, all);
    else printWgPretty(*text, d, !first);
    first = false;
  }
  return status;
}

int showconf(Context& ctx, Args& args) {
  std::string name = parseIfname(args.value("showconf"), "wg showconf");
  if (!args.done()) args.unknown("wg showconf takes one device");
  WgDevice device = api(ctx).get(name);
  OutBuffer out(stdout, OutBuffer::kChunk);
  printWgConfig(out, device);
  return kExitOk;
}

int setCommand(Context& ctx, Args& args) {
  std::string name = parseIfname(args.value("set"), "wg set");
  std::vector<std::string> words;
  while (!args.done()) words.push_back(args.next());
  WgDevice change = asUsage([&] {
    return parseWgSetArgs(words, name, [](const std::string& path) { return path == "/dev/null" ? std::string() : readFile(path); });
  });
  api(ctx).set(change);
  return kExitOk;
}

int conf(Context& ctx, Args& args, std::string_view verb) {
  std::string name = parseIfname(args.value(verb), fmt::format("wg {}", verb));
  std::string path = args.value(fmt::format("wg {} {}", verb, name));
  if (!args.done()) args.unknown(fmt::format("wg {} takes DEV FILE", verb));
  std::string text = readFile(path);
  WgDevice change = asUsage([&] {
    try {
      return parseWgConfig(text, name);
    } catch (Error& e) {
      if (e.line()) throw UsageError(fmt::format("{} line {}: {}", path, *e.line(), e.reason()));
      throw;
    }
  });
  std::fill(text.begin(), text.end(), '\0');
  if (verb == "setconf") {
    change.replacePeers = true;
  } else if (verb == "syncconf") {
    // Like setconf, but peers that stay keep their sessions: remove only the peers the file
    // no longer lists instead of replacing them all.
    WgDevice current = api(ctx).get(name);
    for (const WgPeer& p : current.peers) {
      bool kept = std::any_of(change.peers.begin(), change.peers.end(), [&](const WgPeer& c) { return c.publicKey == p.publicKey; });
      if (!kept) change.peers.push_back(WgPeer(p.publicKey).setRemove());
    }
  }
  if (verb != "addconf") {
    // setconf and syncconf state the whole configuration: what the file leaves out is reset,
    // like wg does.
    if (!change.privateKey) change.privateKey = WgKey();
    if (!change.listenPort) change.listenPort = 0;
    if (!change.fwmark) change.fwmark = 0;
  }
  api(ctx).set(change);
  return kExitOk;
}

int keys(Args& args, std::string_view verb) {
  if (!args.done()) args.unknown(fmt::format("wg {} takes no arguments", verb));
  if (verb == "genkey") printLine(WgKey::generatePrivate().toBase64());
  else if (verb == "genpsk") printLine(WgKey::generatePreshared().toBase64());
  else {
    std::string text = readFile("-");
    std::string trimmed;
    for (char c : text)
      if (!std::isspace(static_cast<unsigned char>(c))) trimmed += c;
    std::fill(text.begin(), text.end(), '\0');
    WgKey key = asUsage([&] { return WgKey::fromBase64(trimmed); });
    std::fill(trimmed.begin(), trimmed.end(), '\0');
    printLine(key.publicKey().toBase64());
  }
  return kExitOk;
}

int runWg(Context& ctx, Args& args) {
  if (args.done()) return show(ctx, args);
  if (args.accept("show")) return show(ctx, args);
  if (args.accept("showconf")) return showconf(ctx, args);
  if (args.accept("set")) return setCommand(ctx, args);
  for (std::string_view verb : {"setconf", "addconf", "syncconf"})
    if (args.accept(verb)) return conf(ctx, args, verb);
  for (std::string_view verb : {"genkey", "genpsk", "pubkey"})
    if (args.accept(verb)) return keys(args, verb);
  if (args.peek() == "help" || args.peek() == "--help" || args.peek() == "-h") {
    printLine(kUsage);  // as `wg help`: the usage on stdout, status 0
    return kExitOk;
  }
  args.unknown("wg commands: show, showconf, set, setconf, addconf, syncconf, genkey, genpsk, pubkey");
}

int runWgWithItsStatuses(Context& ctx, Args& args) {
  try {
    return runWithUsageStatus(kWgFailed, [&] { return runWg(ctx, args); });
  } catch (const Error& e) {
    reportFailure(e);  // its status (ip's) is not wg's
    return kWgFailed;
  }
}

const Registrar kWg{{.name = "wg", .aliases = {"wireguard"}, .usage = kUsage, .run = runWgWithItsStatuses, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
