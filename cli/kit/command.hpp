// The CLI framework: global options, the per-run Context, and the registry of object commands.
//
// ---- Adding an object (addr, route, neigh, ...) ------------------------------------------------
// One file, cli/<folder>/<object>_command.cpp (<folder> named after the folder of src/ whose API
// it drives: rtnl, wg, ethtool, ...), that registers itself at start-up:
//
//   namespace fastlink::cli {
//   namespace {
//   PreparedRequest prepareAddr(Context& ctx, Args& args) { ... }   // add/del/replace/set lines
//   int runAddr(Context& ctx, Args& args) {                          // the command line: show,
//     return runObject(ctx, args, kUsage, {{{"show", "list"}, showAddrs}}, prepareAddr);  // help,
//   }                                                   // else one request, one ACK (runPrepared)
//   const Registrar kAddr{{.name = "address", .aliases = {"a", "addr"},
//                          .usage = "Usage: fastlink address { add | del } ...",
//                          .run = runAddr, .prepare = prepareAddr}};
//   }  // namespace
//   }  // namespace fastlink::cli
//
// - Parse words with Args and the parsers in args.hpp; throw UsageError for bad input (exit 2).
// - `prepare` turns one line into a PreparedRequest: the request is encoded by a function that
//   receives a Resolver for the device names the kernel only takes as an ifindex (list them in
//   `needs`). The same PreparedRequest serves the command line (runPrepared) and -batch files
//   (batch.cpp parses, validates and encodes every line once into a spool before sending any;
//   requests with Request::exactUndo are pipelined by default). Declare in
//   `touches` the device names whose ifindex the request creates, deletes or changes, so a batch
//   re-resolves them after that line has been applied.
// - Print with output.hpp: one JsonArrayWriter per command for -j (field names documented in
//   docs/CLI.md), TextLine for iproute2-like text. For dumps, stream: print in the forEach
//   callback through an OutBuffer (writer.hpp; JsonArrayWriter(OutBuffer&, pretty) or JsonOut),
//   and call its restartDump() from forEach's restart callback.
// - Verbs that only read (show) are not batchable: leave them out of `prepare`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kit/args.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/request.hpp"

namespace fastlink::cli {

/// Exit statuses, ip's (docs/CLI.md, "Exit statuses"): success; a bad value (an address or
/// prefix that does not parse, a device that does not exist, an unknown object); the kernel
/// refused a request; a usage error (an unknown verb or option, a missing or malformed argument).
constexpr int kExitOk = 0;
constexpr int kExitBadValue = 1;
constexpr int kExitFailed = 2;
constexpr int kExitUsage = 255;
/// `ip -batch`'s status when a line failed (its EXIT_FAILURE), whatever the reason.
constexpr int kExitBatchLineFailed = 1;

/// `-4`, `-6`, `-0` / `-f[amily] inet|inet6|link`: which protocol family `show` lists (and
/// `route`/`addr flush` touches). Any: the object's own default (route: IPv4, as ip).
enum class FamilyOption { Any, Inet, Inet6, Link };

struct GlobalOptions {
  bool json = false;
  FamilyOption family = FamilyOption::Any;
  bool brief = false;    ///< -br: one line per device (link, address) or route, as `ip -br`
  bool oneline = false;  ///< -o: each record on one line, `\` where ip would break it
  bool pretty = false;
  bool details = false;
  int stats = 0;  ///< -s given this many times
  bool force = false;
  bool timestamp = false;  ///< -t: `ip -t monitor` timestamps
  bool timestampShort = false;  ///< -ts[hort]: `[2026-11-26T18:21:14.123456] ` before each event
  bool human = false;      ///< -h[uman]: `-s` counters as ip's print_num writes them (1.5M)
  bool iec = false;        ///< -iec: -human in powers of 1024 (1.5Mi)
  int maxFlushLoops = 10;  ///< -l[oops] N: ip's rounds of `address flush`; 0 = until nothing is left
  int rcvbuf = 0;          ///< -rcvbuf BYTES: monitor's socket receive buffer; 0 = default
  std::size_t window = 0;  ///< -window N; 0 = default (1 without -force, automatic with it)
  std::optional<std::string> netns;
  std::optional<std::string> batchFile;
  /// `tc -batch FILE`: each line holds that object's words (`qdisc add ...`), as tc's batch file.
  std::optional<std::string> batchObject;
  bool all = false;  ///< -a[ll]: `netns delete` and `netns exec` act on every named namespace
};

/// Turns a device name into its ifindex while a request is encoded.
class Resolver {
 public:
  virtual ~Resolver() = default;
  /// Throws fastlink::Error (ENODEV) when the device does not exist.
  virtual uint32_t index(const std::string& name) = 0;
};

/// One parsed command line (or batch line), ready to be encoded.
struct PreparedRequest {
  /// Builds the request; names in `needs` are looked up through the resolver.
  std::function<Request(Resolver&)> encode;
  /// Device names that must be resolved to an ifindex before encoding (master, link, vxlan dev,
  /// the device being renamed).
  std::vector<std::string> needs;
  /// Device names whose ifindex this request creates, deletes or changes (add, del, rename,
  /// move to another namespace).
  std::vector<std::string> touches;
  /// The request may change any device's ifindex (e.g. `link del group G`).
  bool touchesAll = false;
  /// The device the request is about, for "Cannot find device" messages.
  std::optional<std::string> device;
  /// Errors of the sent request name the command as typed (runPrepared's Args::text()), not
  /// the ifindexes its names resolved to. A batch names the line itself, so it formats nothing
  /// per line for this.
  bool namedAsTyped = false;
  /// A line that is no single request (netns add mounts a namespace, netns list-id prints): set
  /// instead of `encode`. A batch parses it with the others (a bad line still sends nothing) and
  /// runs it at its turn, after every line before it has been answered; the exit status it
  /// returns is the line's (it prints its own errors).
  std::function<int()> run;
};

/// State of one fastlink run: the options and the (lazily opened) netlink socket.
class Context {
 public:
  explicit Context(GlobalOptions options) : options_(std::move(options)) {}
  const GlobalOptions& options() const { return options_; }
  /// The socket, opened on first use in the -n namespace.
  Netlink& netlink();

 private:
  GlobalOptions options_;
  std::unique_ptr<Netlink> netlink_;
};

/// An object's other names (`a`, `addr` for `address`): views of literals, in the object itself.
/// Built at compile time (consteval: a list longer than kMax does not compile).
class CommandAliases {
 public:
  static constexpr std::size_t kMax = 6;
  constexpr CommandAliases() = default;
  consteval CommandAliases(std::initializer_list<std::string_view> words) {
    if (words.size() > kMax) throw "an object has at most CommandAliases::kMax aliases";
    for (std::string_view w : words) words_[count_++] = w;
  }
  const std::string_view* begin() const { return words_.data(); }
  const std::string_view* end() const { return words_.data() + count_; }

 private:
  std::array<std::string_view, kMax> words_{};
  std::size_t count_ = 0;
};

/// An object of the command line (`link`, `address`, ...). Literals and plain functions only:
/// registering one copies a few words, no string or std::function is built at start-up (every
/// fastlink process registers every object before main).
struct ObjectCommand {
  std::string_view name;
  CommandAliases aliases;
  std::string_view usage;
  /// Runs the command (words after the object name); returns the exit status.
  int (*run)(Context&, Args&) = nullptr;
  /// Parses one batchable line (words after the object name). Null: the object cannot be
  /// used in -batch files.
  PreparedRequest (*prepare)(Context&, Args&) = nullptr;
};

/// Registers an object command from a static object in its file: the registrar holds the
/// command and links itself to the end of the registry's list (the files' static
/// initialisers' order, as before), so registering costs a few stores per object.
class Registrar {
 public:
  explicit Registrar(ObjectCommand command);
  Registrar(const Registrar&) = delete;
  Registrar& operator=(const Registrar&) = delete;

 private:
  friend class CommandList;
  ObjectCommand command_;
  const Registrar* next_ = nullptr;
};

/// The registered objects in registration order (a forward range over the registrars' list).
class CommandList {
 public:
  class iterator {
   public:
    using value_type = ObjectCommand;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(const Registrar* at) : at_(at) {}
    const ObjectCommand& operator*() const { return at_->command_; }
    const ObjectCommand* operator->() const { return &at_->command_; }
    iterator& operator++() {
      at_ = at_->next_;
      return *this;
    }
    iterator operator++(int) {
      iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const iterator&) const = default;

   private:
    const Registrar* at_ = nullptr;
  };
  explicit CommandList(const Registrar* first) : first_(first) {}
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(); }

 private:
  const Registrar* first_;
};

/// The command named `word` (exact name or alias), or nullptr.
const ObjectCommand* findCommand(std::string_view word);
CommandList allCommands();

/// The request of a line about one device (`dev DEV`): `info` with its dev set to the device's
/// ifindex, built by `build(info, resolver)` (which may resolve more names: list them in the
/// result's needs). Errors name the device, and the command as typed when `namedAsTyped`.
template <class Info, class Build>
PreparedRequest deviceRequest(const std::string& dev, Info info, Build build, bool namedAsTyped = true) {
  PreparedRequest r;
  r.needs = {dev};
  r.device = dev;
  r.namedAsTyped = namedAsTyped;
  r.encode = [dev, info = std::move(info), build = std::move(build)](Resolver& resolver) {
    Info resolved = info;
    resolved.dev = Ifref(resolver.index(dev));
    return build(resolved, resolver);
  };
  return r;
}

/// A verb of an object that is not a batchable request (show, flush, get): its words and run.
struct ObjectVerb {
  std::vector<std::string_view> words;
  int (*run)(Context& ctx, Args& args);
};

/// The command line of an object with batchable lines, as ip reads it: no words runs the first
/// verb (show), `help` prints `usage`, a verb's word runs that verb, anything else is one
/// prepared request (runPrepared).
int runObject(Context& ctx, Args& args, const std::string& usage, std::initializer_list<ObjectVerb> verbs,
              PreparedRequest (*prepare)(Context& ctx, Args& args));

/// The command line of an object that only shows (maddress, netconf): `help` prints `usage`;
/// no words, show, list or lst run `show`; another word is refused, listing `verbs`.
int runShowOnly(Context& ctx, Args& args, const std::string& usage, std::string_view verbs,
                int (*show)(Context& ctx, Args& args));

/// Runs one PreparedRequest now: validates, resolves names (one lookup each), sends, waits for
/// the ACK. Prints errors; returns the exit status. `args`: the command line it was prepared
/// from (named in errors when prepared.namedAsTyped).
int runPrepared(Context& ctx, const PreparedRequest& prepared, const Args& args);

/// The reason of a failure as the user should read it: the kernel's extack, else the errno text,
/// with "Cannot find device" for ENODEV on the request's device.
std::string failureReason(const Error& error, const PreparedRequest* prepared);

/// The exit status of a failed request, as ip's: 1 (a bad value) when the device it names does
/// not exist (ENODEV: ip's `Cannot find device`), else 2 (the kernel refused).
int exitStatusOf(const Error& error);

/// Prints `Error: <message>` on stderr.
void printError(std::string_view message);

/// Runs an object's command, a UsageError (printed) exiting `usageStatus` instead of ip's 255:
/// for the objects that keep their own tool's statuses (ethtool 1, conntrack 2, apply 2).
template <class Run>
int runWithUsageStatus(int usageStatus, Run&& run) {
  try {
    return run();
  } catch (const UsageError& e) {
    printError(e.what());
    return usageStatus;
  }
}

/// A PreparedRequest's encode called with every name resolved to a placeholder index: checks
/// everything the encoder checks, sends nothing. Throws UsageError with the encoder's reason.
void validateEncoding(const PreparedRequest& prepared);

/// Runs a -batch file (see batch.cpp); returns the exit status.
int runBatchFile(Context& ctx, const std::string& path);

}  // namespace fastlink::cli
