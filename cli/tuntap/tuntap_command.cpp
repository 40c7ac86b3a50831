// The `tuntap` object: `fastlink tuntap { add | del | show | list }`, in `ip tuntap`'s grammar
// and with its output (iproute2 6.1), byte for byte. Extensions: `show dev NAME` filters (ip
// ignores it), `del` needs no mode and refuses devices that are not tun/tap, `-j -d` prints valid
// JSON (ip 6.1 prints `"processes":["name":"x","pid":1]`).
//
// In -batch files only `tuntap del` can be a line (RTM_DELLINK by name); `tuntap add` is an ioctl
// on /dev/net/tun, not a netlink request, so a batch naming it is refused before anything is sent.
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "fastlink/link.hpp"
#include "fastlink/tuntap.hpp"
#include "kit/fields.hpp"
#include "kit/output.hpp"
#include "steer/steer_support.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink tuntap { add | del | show | list | lst | help } [ dev PHYS_DEV ]
       [ mode { tun | tap } ] [ user USER ] [ group GROUP ]
       [ one_queue ] [ pi ] [ vnet_hdr ] [ multi_queue ] [ backpressure ] [ name NAME ]

Where: USER  := { STRING | NUMBER }
       GROUP := { STRING | NUMBER })";

struct ParsedTunTap {
  TunTapInfo info;
  bool named = false;
};

TunTapMode parseMode(const std::string& word, const std::optional<TunTapMode>& already) {
  TunTapMode mode;
  if (word == "tun") mode = TunTapMode::Tun;
  else if (word == "tap") mode = TunTapMode::Tap;
  else throw UsageError(fmt::format("tuntap: unknown mode \"{}\" (mode tun or mode tap)", word));
  if (already && *already != mode) throw UsageError("tuntap: more than one mode given (tun and tap)");
  return mode;
}

void setName(ParsedTunTap& p, const std::string& word, std::string_view keyword) {
  if (p.named) throw UsageError(fmt::format("tuntap: the device is named twice (\"{}\" and \"{}\")", p.info.name, word));
  p.info.name = parseIfname(word, keyword);
  p.named = true;
}

/// `user USER` / `group GROUP`: a name or a number, looked up now.
void setId(TunTapInfo& info, TunTapInfo& (TunTapInfo::*set)(std::string_view), const std::string& nameOrId) {
  try {
    (info.*set)(nameOrId);
  } catch (const Error& e) {
    throw UsageError("tuntap: " + e.reason());
  }
}

ParsedTunTap parseArgs(Args& args, bool add) {
  ParsedTunTap p;
  while (!args.done()) {
    if (args.accept("mode")) p.info.mode = parseMode(args.value("mode"), p.info.mode);
    else if (add && args.accept("user")) setId(p.info, &TunTapInfo::setOwner, args.value("user"));
    else if (add && args.accept("group")) setId(p.info, &TunTapInfo::setGroup, args.value("group"));
    else if (add && args.accept("pi")) p.info.pi = true;
    else if (add && args.accept("one_queue")) p.info.oneQueue = true;
    else if (add && args.accept("vnet_hdr")) p.info.vnetHdr = true;
    else if (add && args.accept("multi_queue")) p.info.multiQueue = true;
    else if (add && args.accept("backpressure")) p.info.backpressure = true;
    else if (args.accept("dev")) setName(p, args.value("dev"), "dev");
    else if (args.accept("name")) setName(p, args.value("name"), "name");
    else if (args.peek() == "help") throw UsageError(kUsage);
    else if (!add && (args.peek() == "user" || args.peek() == "group" || args.peek() == "pi" ||
                      args.peek() == "one_queue" || args.peek() == "vnet_hdr" || args.peek() == "multi_queue" ||
                      args.peek() == "backpressure"))
      args.unknown("tuntap del takes: dev NAME, mode tun|tap");
    else setName(p, args.next(), "name");
  }
  if (add && !p.info.mode) throw UsageError("tuntap add: a mode is needed (mode tun or mode tap)");
  if (!add && !p.named) throw UsageError("tuntap del: which device? (tuntap del dev NAME [mode tun|tap])");
  return p;
}

// ---- show ------------------------------------------------------------------------------------

/// A process holding a /dev/net/tun file attached to a device (like `ip -d tuntap show`).
struct Holder {
  std::string name;
  long pid;
};

std::string firstLine(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

/// Scans /proc/PID/fd like iproute2 (readdir order, skipping ourselves): every fd that is
/// /dev/net/tun and whose fdinfo says `iff: NAME`. Device names are not namespace-aware there,
/// as in ip.
std::vector<Holder> holders(const std::string& device) {
  namespace fs = std::filesystem;
  std::vector<Holder> out;
  std::error_code ec;
  long self = static_cast<long>(getpid());
  for (const auto& proc : fs::directory_iterator("/proc", ec)) {
    const std::string pidText = proc.path().filename();
    if (pidText.empty() || pidText.find_first_not_of("0123456789") != std::string::npos) continue;
    long pid = std::stol(pidText);
    if (pid == self) continue;
    std::error_code fdEc;
    for (const auto& fd : fs::directory_iterator(proc.path() / "fd", fdEc)) {
      std::error_code linkEc;
      if (fs::read_symlink(fd.path(), linkEc) != "/dev/net/tun" || linkEc) continue;
      std::ifstream info(proc.path() / "fdinfo" / fd.path().filename());
      std::string line;
      while (std::getline(info, line)) {
        if (line.rfind("iff:", 0) != 0) continue;
        std::size_t start = line.find_first_not_of(" \t", 4);
        if (start != std::string::npos && line.substr(start) == device) {
          std::string comm = firstLine(proc.path() / "comm");
          out.push_back({comm.empty() ? "<NULL>" : comm, pid});
        }
      }
    }
  }
  return out;
}

/// The flag words in ip's order; bits ip does not name go last as one hex number.
std::vector<std::string> flagWords(const TunTapInfo& d, uint64_t& other) {
  std::vector<std::string> words;
  bool pi = d.pi.value_or(false);
  if (d.mode) words.emplace_back(tunTapModeName(*d.mode));
  if (pi) words.emplace_back("pi");
  if (d.oneQueue.value_or(false)) words.emplace_back("one_queue");
  if (d.multiQueue.value_or(false)) words.emplace_back("multi_queue");
  if (d.vnetHdr.value_or(false)) words.emplace_back("vnet_hdr");
  if (d.persist.value_or(false)) words.emplace_back("persist");
  // IFF_NOFILTER has IFF_NO_PI's value, so ip prints "filter" exactly when pi is on.
  if (pi) words.emplace_back("filter");
  // ip 6.1 does not know IFF_BACKPRESSURE and would print it as 0x80 here.
  if (d.backpressure.value_or(false)) words.emplace_back("backpressure");
  other = d.otherFlags.value_or(0);
  if (d.napi.value_or(false)) other |= 0x10;       // IFF_NAPI
  if (d.napiFrags.value_or(false)) other |= 0x20;  // IFF_NAPI_FRAGS
  return words;
}

/// One device as ip prints it: "NAME: FLAGS user U group G", -d its holders; or its JSON.
void writeDevice(FieldOut& f, const TunTapInfo& d, bool details) {
  uint64_t other = 0;
  nlohmann::ordered_json flags = flagWords(d, other);
  if (other) flags.push_back(fmt::format("{:#x}", other));
  f.any("ifname", "{}:", d.name).json("flags", flags);
  for (const auto& w : flags) f.text(" {}", w.get<std::string>());
  if (d.owner) f.any("user", " user {}", *d.owner);
  if (d.group) f.any("group", " group {}", *d.group);
  if (!details) return;
  // ip 6.1 prints the holders without separators: "Attached to processes:qemu(12)vhost(13)".
  nlohmann::ordered_json processes = nlohmann::ordered_json::array();
  f.text("\n\tAttached to processes:");
  for (const auto& h : holders(d.name)) {
    processes.push_back({{"name", h.name}, {"pid", h.pid}});
    f.text("{}({})", h.name, h.pid);
  }
  f.json("processes", processes);
}

int show(Context& ctx, Args& args) {
  std::optional<std::string> dev;
  while (!args.done()) {
    if (args.accept("dev") || args.accept("name")) dev = parseIfname(args.value("dev"), "dev");
    else if (args.peek() == "help") throw UsageError(kUsage);
    else args.unknown("tuntap show takes: dev NAME");
  }
  // With -n, sysfs must show that namespace's devices (the `tun` link info lacks one_queue and
  // napi), as steer's: best effort, since without it the library reads only what rtnetlink says
  // (it verifies that a sysfs entry is the device it describes).
  try {
    enterSysfsOf(ctx.options().netns);
  } catch (const Error&) {
  }
  TunTapApi& api = ctx.netlink().tuntap();
  std::vector<TunTapInfo> devices;
  if (dev) {
    if (auto d = api.find(*dev)) devices.push_back(*d);
  } else {
    devices = api.list();
  }
  printRecords(devices, ctx.options().json, ctx.options().pretty,
               [&](FieldOut& f, const TunTapInfo& d) { writeDevice(f, d, ctx.options().details); });
  return kExitOk;
}

// ---- add / del -------------------------------------------------------------------------------

/// Runs `send`. ip tuntap exits 1 when an ioctl or the kernel refuses (`ioctl(TUNSETIFF): Device
/// or resource busy`), not the 2 of ip's rtnetlink objects (measured on ip 6.1).
template <class Send>
int sendReporting(Send send) {
  try {
    send();
  } catch (const Error& e) {
    reportFailure(e);
    return kExitBadValue;
  }
  return kExitOk;
}

int add(Context& ctx, Args& args) {
  ParsedTunTap p = parseArgs(args, true);
  return sendReporting([&] { ctx.netlink().tuntap().add(p.info); });
}

int del(Context& ctx, Args& args) {
  ParsedTunTap p = parseArgs(args, false);
  return sendReporting([&] { ctx.netlink().tuntap().del(p.info.name, p.info.mode); });
}

/// A batch line. Only del is a netlink request; it goes by name, so a batch cannot check the
/// device's kind as `fastlink tuntap del` does (docs/cli/tuntap.md).
PreparedRequest prepareTunTap(Context&, Args& args) {
  if (args.acceptAny({"del", "delete"})) {
    ParsedTunTap p = parseArgs(args, false);
    PreparedRequest r;
    r.device = p.info.name;
    r.touches = {p.info.name};
    std::string dev = p.info.name;
    r.encode = [dev](Resolver&) { return LinkRequests::del(Ifref(dev)); };
    return r;
  }
  if (args.peek() == "add")
    throw UsageError("tuntap add cannot be a batch line: it creates the device with an ioctl on /dev/net/tun, "
                     "not a netlink request (run it as its own command)");
  throw UsageError("tuntap: only \"tuntap del\" can be a batch line");
}

int runTunTap(Context& ctx, Args& args) {
  if (args.done() || args.acceptAny({"show", "list", "lst"})) return show(ctx, args);
  if (args.accept("add")) return add(ctx, args);
  if (args.acceptAny({"del", "delete"})) return del(ctx, args);
  if (args.accept("help")) throw UsageError(kUsage);
  throw UsageError(fmt::format("tuntap: command \"{}\" is unknown, try \"fastlink tuntap help\"", args.peek()));
}

const Registrar kTunTap{{.name = "tuntap", .aliases = {"tap"}, .usage = kUsage, .run = runTunTap,
                         .prepare = prepareTunTap}};

}  // namespace
}  // namespace fastlink::cli
