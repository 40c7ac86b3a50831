// `fastlink monitor`: kernel events as `ip monitor` prints them, or one JSON object per line;
// with `sync`, the current state first and a StateMirror that repairs overflows.
#include <fmt/format.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "kit/ip_names.hpp"
#include "fastlink/events.hpp"
#include "fastlink/link.hpp"
#include "fastlink/mirror.hpp"
#include "ethtool/monitor_ethtool.hpp"
#include "events/monitor_print.hpp"
#include "kit/output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink [ -t | -ts ] [ -j ] [ -4 | -6 | -0 | -B ] [ -rcvbuf BYTES ] [ -n NS ] monitor [ all | OBJECT... ] [ dev DEV ] [ all-nsid ] [ sync ]
       fastlink [ -j ] [ -rcvbuf BYTES ] [ -n NS ] monitor ethtool [ dev DEV ]
OBJECT := { link | address | route | neigh | rule | nexthop | qdisc | class | filter | chain | tc }
  all       ip monitor's objects (link, address, route, neigh, rule, nexthop)
  tc        qdisc, class, filter and chain, as tc monitor prints them
  all-nsid  also the namespaces that have an id here; lines start with [nsid N]
  sync      print the current state first (link, address, route, neigh), then changes; after a
            lost notification (overflow) re-read the state and print the differences)";

struct MonitorOptions {
  std::vector<ObjectKind> kinds;
  bool banner = false;  // `all` or several objects: [LINK]-style labels, like ip
  std::optional<std::string> dev;
  bool allNsid = false;
  bool sync = false;
  bool ethtool = false;  // `ethtool`: its own stream (generic netlink), like ethtool --monitor
};

std::optional<ObjectKind> parseKind(std::string_view w) {
  if (w == "link") return ObjectKind::Link;
  if (w == "address" || w == "addr" || w == "a") return ObjectKind::Address;
  if (w == "route" || w == "r") return ObjectKind::Route;
  if (w == "neigh" || w == "neighbour" || w == "neighbor") return ObjectKind::Neighbour;
  if (w == "rule") return ObjectKind::Rule;
  if (w == "nexthop") return ObjectKind::Nexthop;
  if (w == "qdisc") return ObjectKind::Qdisc;
  if (w == "class") return ObjectKind::Class;
  if (w == "filter") return ObjectKind::Filter;
  if (w == "chain") return ObjectKind::Chain;
  return std::nullopt;
}

MonitorOptions parseMonitor(Args& args) {
  MonitorOptions m;
  bool all = false;
  while (!args.done()) {
    std::string w = args.next();
    if (w == "all") all = true;
    else if (w == "tc") m.kinds.insert(m.kinds.end(), {ObjectKind::Qdisc, ObjectKind::Class, ObjectKind::Filter, ObjectKind::Chain});
    else if (auto k = parseKind(w)) m.kinds.push_back(*k);
    else if (w == "ethtool") m.ethtool = true;
    else if (w == "dev") m.dev = args.value("dev");
    else if (w == "all-nsid") m.allNsid = true;
    else if (w == "sync") m.sync = true;
    else if (w == "help") throw UsageError(kUsage);
    else throw UsageError(fmt::format("argument \"{}\" is wrong: unknown monitor object, try \"fastlink monitor help\"", w));
  }
  if (m.ethtool) {
    if (all || !m.kinds.empty() || m.allNsid || m.sync)
      throw UsageError("\"ethtool\" is a stream of its own (ethtool --monitor): it takes only \"dev DEV\"");
    return m;
  }
  if (all || m.kinds.empty()) {
    // ip monitor's objects, and tc's when named beside `all`.
    std::vector<ObjectKind> named = m.kinds;
    m.kinds = {ObjectKind::Link, ObjectKind::Address, ObjectKind::Route, ObjectKind::Neighbour, ObjectKind::Rule,
               ObjectKind::Nexthop};
    for (ObjectKind k : named)
      if (std::find(m.kinds.begin(), m.kinds.end(), k) == m.kinds.end()) m.kinds.push_back(k);
    // `ip monitor all` labels each line ([LINK], ...); `ip monitor` and named objects do not.
    m.banner = all;
  }
  // The neighbour group carries the bridges' FDB entries (AF_BRIDGE neighbours) too, and ip's
  // monitor prints them with print_neigh. `sync` mirrors the IP neighbour tables only.
  bool neigh = std::find(m.kinds.begin(), m.kinds.end(), ObjectKind::Neighbour) != m.kinds.end();
  if (neigh && !m.sync) m.kinds.push_back(ObjectKind::Fdb);
  if (m.sync) {
    for (ObjectKind k : m.kinds) {
      bool mirrored = k == ObjectKind::Link || k == ObjectKind::Address || k == ObjectKind::Route || k == ObjectKind::Neighbour;
      if (mirrored || (all && (k == ObjectKind::Rule || k == ObjectKind::Nexthop))) continue;
      throw UsageError("sync mirrors link, address, route and neigh only");
    }
  }
  return m;
}

const char* bannerOf(ObjectKind k) {
  switch (k) {
    case ObjectKind::Link: return "[LINK]";
    case ObjectKind::Address: return "[ADDR]";
    case ObjectKind::Route: return "[ROUTE]";
    case ObjectKind::Neighbour: return "[NEIGH]";
    case ObjectKind::Rule: return "[RULE]";
    case ObjectKind::Nexthop: return "[NEXTHOP]";
    case ObjectKind::Fdb: return "[NEIGH]";
    case ObjectKind::Qdisc: return "[QDISC]";
    case ObjectKind::Class: return "[CLASS]";
    case ObjectKind::Filter: return "[FILTER]";
    case ObjectKind::Chain: return "[CHAIN]";
  }
  return "";
}

/// ip monitor's `dev DEV`: links, addresses, neighbours and FDB entries of DEV, routes whose output device
/// (RTA_OIF) is DEV (a multipath route has none: left out, as ip); nexthops and rules are not
/// filtered (ip's monitor does not reset the nexthop filter); tc objects on DEV.
bool onDevice(const Event& e, uint32_t dev) {
  if (auto* l = e.link()) return l->index.value_or(0) == dev;
  if (auto* a = e.address()) return a->devIndex() == dev;
  if (auto* n = e.neighbour()) return n->devIndex() == dev;
  if (auto* f = e.fdb()) return f->dev && f->dev->isIndex() && f->dev->index() == dev;
  if (e.nexthop()) return true;
  if (auto* q = e.qdisc()) return q->dev && q->dev->isIndex() && q->dev->index() == dev;
  if (auto* c = e.tcClass()) return c->dev && c->dev->isIndex() && c->dev->index() == dev;
  if (auto* f = e.filter()) return f->dev && f->dev->isIndex() && f->dev->index() == dev;
  if (auto* r = e.route()) return r->devIndex() == dev;
  return true;  // rules are not about a device
}

/// ip's -4, -6, -0 and -B with monitor: addresses, routes and rules of that family only (ip joins
/// only that family's groups: none for -0 and -B), neighbours of that family (its accept_msg
/// compares ndm_family): with -B the bridge FDB entries (AF_BRIDGE) alone, with the others none
/// of them; links, nexthops and tc objects whatever it is.
bool inFamily(const Event& e, FamilyOption family) {
  if (ipNameOptions.family == OtherFamily::Bridge) return !(e.address() || e.route() || e.rule() || e.neighbour());
  if (family == FamilyOption::Any) return true;
  auto is = [&](std::optional<IpAddress::Family> f) {
    return f && family == (*f == IpAddress::Family::v4 ? FamilyOption::Inet : FamilyOption::Inet6);
  };
  if (auto* a = e.address()) return a->address && is(a->address->family());
  if (auto* r = e.route()) return is(r->family());
  if (auto* r = e.rule()) return is(r->family);
  if (auto* n = e.neighbour()) return n->dst && is(n->dst->family());
  return !e.fdb();
}

/// Standard output without stdio's own buffer: OutBuffer hands it whole pieces, which stdio
/// would copy again (a drain writes ~64 KiB per write()).
class UnbufferedStdout {
 public:
  UnbufferedStdout() {
    std::fflush(stdout);  // what was printed through stdout before goes first
    int fd = ::dup(STDOUT_FILENO);
    file_ = fd < 0 ? nullptr : ::fdopen(fd, "w");
    if (!file_) {
      std::error_code code(errno, std::generic_category());
      if (fd >= 0) ::close(fd);
      throw Error(code, "open standard output");
    }
    std::setvbuf(file_, nullptr, _IONBF, 0);
  }
  ~UnbufferedStdout() { std::fclose(file_); }
  UnbufferedStdout(const UnbufferedStdout&) = delete;
  UnbufferedStdout& operator=(const UnbufferedStdout&) = delete;
  std::FILE* file() const { return file_; }

 private:
  std::FILE* file_;
};

/// Formats and writes events; flushes after each batch the kernel had queued, so a reader of a
/// pipe sees every event as soon as the monitor has it.
class Printer {
 public:
  Printer(const GlobalOptions& g, const MonitorOptions& m, Netlink& nl)
      : global_(g), monitor_(m), names_([&nl](uint32_t index) { return nl.links().find(Ifref(index)); }),
        netns_(g.netns) {
    growPipe();
    if (m.dev) dev_ = nl.links().indexOf(Ifref(*m.dev));
    // Like ip: know every device before the first event (names of routes, M-DOWN of peers).
    names_.load(nl.links());
  }

  void print(const Event& e) {
    if ((dev_ && !onDevice(e, *dev_)) || !inFamily(e, global_.family)) {
      if (auto* l = e.link()) names_.remember(*l);
      return;
    }
    if (global_.json) {
      writeEventJson(json_, e, names_, global_);
      json_.endElement();
    } else {
      text_.clear();
      if (global_.timestamp) timestamp();
      if (monitor_.allNsid) text_ += e.nsid ? fmt::format("[nsid {}]", *e.nsid) : std::string("[nsid current]");
      if (monitor_.banner) text_ += bannerOf(e.kind);
      out_.put(text_);
      putEventText(out_, e, names_, netns_, global_, dev_.has_value());
      out_.endRecord();
    }
    // After printing: a link's line shows the M-DOWN of its peer as known before this event.
    if (auto* l = e.link()) names_.remember(*l);
  }

  /// Writes what is buffered; called when the socket queue is drained, so no event waits in
  /// the buffer while the monitor waits for the kernel. False when stdout is gone (the reader
  /// closed the pipe).
  bool flush() {
    out_.flush();
    return !out_.failed();
  }

  DeviceNames& names() { return names_; }

 private:
  void timestamp() {
    timeval tv;
    gettimeofday(&tv, nullptr);
    std::tm tm;
    localtime_r(&tv.tv_sec, &tm);
    char text[64];
    if (global_.timestampShort) {  // -ts: one prefix on the event's line, as lib/utils.c's print_timestamp
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
      fmt::format_to(std::back_inserter(text_), "[{}.{:06}] ", text, static_cast<long>(tv.tv_usec));
      return;
    }
    std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &tm);
    fmt::format_to(std::back_inserter(text_), "Timestamp: {} {} usec\n", text, static_cast<long>(tv.tv_usec));
  }

  static constexpr int kPipeBytes = 1024 * 1024;

  // A pipe holds 64 KiB by default: in a burst the monitor would sleep in write() whenever its
  // reader lags, and while it sleeps the kernel's notifications pile up in the socket (towards
  // an overflow). 1 MiB (the unprivileged limit, fs.pipe-max-size) lets it go on reading while
  // the reader catches up. Best effort: a refusal (a user over fs.pipe-user-pages-soft) keeps 64 KiB.
  static void growPipe() {
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) && fcntl(STDOUT_FILENO, F_GETPIPE_SZ) < kPipeBytes)
      (void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, kPipeBytes);
  }

  const GlobalOptions& global_;
  const MonitorOptions& monitor_;
  DeviceNames names_;
  NetnsNames netns_;
  std::optional<uint32_t> dev_;
  // A long backlog is written in pieces of ~64 KiB (OutBuffer::kChunk): output stays bounded
  // and the reader sees events while the rest is still being read; flush() writes the rest.
  UnbufferedStdout stdout_;
  OutBuffer out_{stdout_.file(), OutBuffer::kChunk};
  JsonOut json_{out_, false, JsonOut::Layout::Lines};
  std::string text_;  // one event's text (fmt formats into a string)
};

bool waitForInput(int fd) {
  pollfd p{fd, POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, -1);
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

using Clock = std::chrono::steady_clock;

/// How long events that come in a stream may wait for the next ones (see holdWhileStreaming).
constexpr auto kHold = std::chrono::milliseconds(1);

/// Called after a wake-up's events are written. When that wake-up came less than kHold after the
/// previous one, events are streaming in: sleeping kHold lets the next ones queue up and be read,
/// decoded and written together, instead of one wake-up (a context switch, a read and a write)
/// for every event or two. A single event, or the first of a stream, is never held; a held one
/// waits at most kHold (the kernel queues ~1 ms of events easily: 4 MiB of receive buffer).
void holdWhileStreaming(std::size_t events, Clock::time_point& previous) {
  if (!events) return;
  Clock::time_point now = Clock::now();
  bool streaming = now - previous < kHold;
  previous = now;
  if (streaming) std::this_thread::sleep_for(kHold);
}

int monitorEvents(Netlink& nl, Printer& printer, const MonitorOptions& m, const GlobalOptions& global) {
  EventOptions options;
  options.subscription.allNamespaces = m.allNsid;
  if (global.rcvbuf) options.subscription.receiveBufferBytes = global.rcvbuf;
  EventStream stream(nl, m.kinds, options);
  auto onOverflow = [&] {
    // Like ip monitor, say it and go on; `sync` repairs instead.
    printer.flush();
    std::fputs("Error: the kernel dropped events (receive buffer overflow, ENOBUFS); use \"sync\" to resynchronise\n", stderr);
  };
  // A blocking read per wake-up (no poll): it returns with everything the kernel had queued.
  Clock::time_point previous{};
  for (;;) {
    std::size_t n = stream.wait([&](const Event& e) { printer.print(e); }, onOverflow);
    if (!printer.flush()) return kExitOk;
    holdWhileStreaming(n, previous);
  }
}

int monitorMirror(Netlink& nl, Printer& printer, const MonitorOptions& m, const GlobalOptions& global) {
  MirrorOptions options;
  if (global.rcvbuf) options.subscription.receiveBufferBytes = global.rcvbuf;
  auto wants = [&](ObjectKind k) { return std::find(m.kinds.begin(), m.kinds.end(), k) != m.kinds.end(); };
  options.links = wants(ObjectKind::Link);
  options.addresses = wants(ObjectKind::Address);
  options.routes = wants(ObjectKind::Route);
  options.neighbours = wants(ObjectKind::Neighbour);
  StateMirror mirror(nl, options);
  // The current state, as events of a fresh start: what a restarted monitor's reader needs to
  // rebuild its view (nothing claimed before is lost; see docs/cli/monitor.md).
  auto snapshot = [&](ObjectKind kind, auto&& object) {
    Event e;
    e.kind = kind;
    e.object = object;
    printer.print(e);
  };
  mirror.forEachLink([&](const LinkInfo& x) { printer.names().remember(x); });
  mirror.forEachLink([&](const LinkInfo& x) { snapshot(ObjectKind::Link, x); });
  mirror.forEachAddress([&](const AddrInfo& x) { snapshot(ObjectKind::Address, x); });
  mirror.forEachRoute([&](const RouteInfo& x) { snapshot(ObjectKind::Route, x); });
  mirror.forEachNeighbour([&](const NeighInfo& x) { snapshot(ObjectKind::Neighbour, x); });
  if (!printer.flush()) return kExitOk;
  do {
    mirror.process([&](const Event& e) { printer.print(e); });
    if (!printer.flush()) return kExitOk;
  } while (waitForInput(mirror.fd()));
  return kExitFailed;
}

int runMonitor(Context& ctx, Args& args) {
  MonitorOptions m = parseMonitor(args);
  // A reader that closes the pipe (`| head`) ends the monitor with status 0: write() then fails
  // with EPIPE and the loop returns, instead of SIGPIPE killing the process (status 141).
  std::signal(SIGPIPE, SIG_IGN);
  Netlink& nl = ctx.netlink();
  try {
    if (m.ethtool) return monitorEthtool(nl, ctx.options(), m.dev);
    Printer printer(ctx.options(), m, nl);
    return m.sync ? monitorMirror(nl, printer, m, ctx.options()) : monitorEvents(nl, printer, m, ctx.options());
  } catch (const Error& e) {
    reportFailure(e, m.dev.value_or(""));  // a missing `dev DEV` reads `Cannot find device "DEV"`
    return kExitFailed;
  }
}

const Registrar kMonitor{{.name = "monitor", .aliases = {"mon"}, .usage = kUsage, .run = runMonitor, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
