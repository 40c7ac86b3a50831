// -batch FILE: one pass over the file (each line read, parsed, validated and encoded once), then
// the encoded requests are sent from a spool; a bad line sends nothing.
//
// Pass 1 reads every line, parses it and encodes the request, and appends the encoded bytes
// with the line's number and text to the Spool: in memory up to kSpoolMemory, then in an
// unlinked temporary file, so memory stays bounded however long the file is. Nothing is sent
// until the whole file has been read and found good: the first bad line ends the run with
// `Error: ... (line N: TEXT)`, exit status 2, nothing sent.
//
// Device names the kernel only takes as an ifindex are resolved in pass 1, each once, among the
// devices that exist before the batch, unless an earlier line of the batch creates, deletes or
// renames that name (PreparedRequest::touches): such a line, and one whose request keeps a
// resource open (a namespace fd), is spooled as text, "deferred", and parsed again when it is
// sent, after everything before it has been answered and its names looked up in the kernel.
//
// Pass 2 sends (docs/CLI.md, "Batch files"):
// - default: runs of requests with an exact undo (Request::exactUndo: route/address/neighbour
//   adds) are pipelined; when one fails, the lines after it that the kernel already applied
//   are undone (deleted again, newest first), so the kernel ends up with exactly the lines
//   before the failure. Every other request is sent alone and answered before the next.
// - -force: everything pipelined, every failure reported, the rest applied.
// - -window N: N in flight, stop at a failure; lines in flight with it are reported as applied.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <stdexcept>
#include <unordered_set>

#include "kit/command.hpp"
#include "kit/ip_compat.hpp"
#include "kit/name_table.hpp"
#include "kit/spool.hpp"

namespace fastlink::cli {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// A line as error messages show it: control bytes as \xNN, cut after 120 bytes (a 10 MB line
/// must not become a 10 MB message).
std::string shown(std::string_view text) {
  constexpr std::size_t kMax = 120;
  std::string out;
  for (unsigned char c : text.substr(0, kMax)) out += (c < 0x20 || c == 0x7f) ? fmt::format("\\x{:02x}", c) : std::string(1, char(c));
  if (text.size() > kMax) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

/// Reads the batch file once, skipping blank and comment lines.
class LineReader {
 public:
  explicit LineReader(const std::string& path) {
    if (path == "-") {
      file_ = stdin;
    } else {
      file_ = std::fopen(path.c_str(), "r");
      // ip and tc exit 1 for a file they cannot open (`Cannot open file ... for reading`).
      if (!file_) throw BadValueError(fmt::format("cannot open batch file \"{}\": {}", path, std::strerror(errno)));
      owned_ = true;
      readBuffer_ = std::make_unique_for_overwrite<char[]>(kFileBuffer);  // before any read, as setvbuf wants
      std::setvbuf(file_, readBuffer_.get(), _IOFBF, kFileBuffer);
    }
  }
  ~LineReader() {
    std::free(buffer_);
    if (owned_) std::fclose(file_);
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line with words; `number` and `text` are set before splitting so errors can name
  /// it. `text` is a view into the reader's buffer and `args()` holds views into it (both valid
  /// until the next call: the line is not copied, its words reuse one Args' storage).
  bool next(std::size_t& number, std::string_view& text) {
    for (;;) {
      errno = 0;
      ssize_t n = getline(&buffer_, &capacity_, file_);
      if (n < 0 && std::ferror(file_)) {  // e.g. a directory: EISDIR, not an empty batch
        number = 0;  // about the file, not a line
        throw UsageError(fmt::format("cannot read the batch file: {}", std::strerror(errno ? errno : EIO)));
      }
      if (n < 0) return false;
      number = ++number_;
      text = trim(std::string_view(buffer_, static_cast<std::size_t>(n)));
      if (text.find('\0') != std::string::npos) throw UsageError("the line contains a NUL byte");
      args_.assignLine(text);
      if (!args_.done()) return true;
    }
  }
  Args& args() { return args_; }

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::size_t number_ = 0;
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
  std::unique_ptr<char[]> readBuffer_;  ///< an opened file's stdio buffer (freed after the fclose)
  Args args_{std::vector<std::string>()};  ///< the last line's words
};

/// One line's request. `args` holds the line's words; the object and verb are resolved as
/// `ip -batch` reads `a add ...` (views into static names: no copy of the line's words).
PreparedRequest prepareLine(Context& ctx, Args& args) {
  if (const auto& object = ctx.options().batchObject) return findCommand(*object)->prepare(ctx, args);
  std::string_view word = args.peekView();
  const ObjectCommand* command = findCommand(word);
  if (!command) command = findCommand(resolveIpObject(word));
  if (!command) {
    // Sorted: the registry's order is that of the files' static initialisers.
    std::vector<std::string> names;
    for (const auto& c : allCommands()) names.emplace_back(c.name);
    std::sort(names.begin(), names.end());
    std::string known;
    for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
    throw UsageError(fmt::format("unknown object \"{}\" (known: {})", resolveIpObject(word), known));
  }
  args.replace(0, command->name);
  args.nextView();
  if (!args.done()) {
    std::string_view verb = resolvedIpVerb(command->name, args.peekView());
    if (verb.data() != args.peekView().data()) args.replace(1, verb);
  }
  if (!command->prepare) throw UsageError(fmt::format("\"{}\" commands cannot be used in a batch", command->name));
  return command->prepare(ctx, args);
}

/// Pass 1's resolver: the devices that exist before the batch (each name looked up once, by
/// LinkApi::findIndex: one ioctl, ~3x cheaper than its share of a full link dump), except names
/// an earlier line touches. An unknown name is not an error here: the line is deferred.
class BeforeBatchResolver final : public Resolver {
 public:
  explicit BeforeBatchResolver(Context& ctx) : ctx_(ctx) {}

  /// True when every name resolves now (else the line must be resolved when it is sent); the
  /// indexes are kept for this line's index() calls, so each name costs one hash lookup.
  bool resolvable(const PreparedRequest& p) {
    line_ = &p;
    lineIndexes_.clear();
    if (p.needs.empty()) return true;
    if (allTouched_) return false;
    for (const auto& name : p.needs) {
      if (!touched_.empty() && touched_.count(name)) return false;
      std::optional<uint32_t> index = lookup(name);
      if (!index) return false;
      lineIndexes_.push_back(*index);
    }
    return true;
  }
  void touch(const PreparedRequest& p) {
    if (p.touchesAll) allTouched_ = true;
    for (const auto& name : p.touches) touched_.insert(name);
  }
  /// Asked by the encoder of the line resolvable() last answered true for, for its needs.
  uint32_t index(const std::string& name) override {
    for (std::size_t i = 0; i < lineIndexes_.size(); ++i)
      if (line_->needs[i] == name) return lineIndexes_[i];
    throw std::logic_error("batch: a line's encoder asked for a name it did not declare: " + name);
  }

 private:
  /// The name's index before the batch, looked up on first need (std::nullopt: no such device).
  /// The last two names answer without hashing: a batch's lines mostly name the same devices
  /// (a tc filter line with mirred names two; the hash was ~100 instructions a name, issue 33).
  std::optional<uint32_t> lookup(const std::string& name) {
    for (const Recent& r : recent_)
      if (r.name == name) return r.index;
    auto [index, inserted] = names_.findOrInsert(name);
    if (inserted) *index = ctx_.netlink().links().findIndex(name);
    // An entry never changes once looked up: a copy of it stays true.
    recent_[1] = std::move(recent_[0]);
    recent_[0] = Recent{name, *index};
    return *index;
  }
  struct Recent {
    std::string name;  ///< "" when unused (no device is named "")
    std::optional<uint32_t> index;
  };
  Recent recent_[2];

  Context& ctx_;
  bool allTouched_ = false;
  NameTable names_;
  std::unordered_set<std::string> touched_;
  const PreparedRequest* line_ = nullptr;
  std::vector<uint32_t> lineIndexes_;  ///< line_->needs' indexes, in order
};

/// Pass 1: every line parsed, validated and encoded into the spool; nothing sent. Throws
/// UsageError naming the first bad line.
void readAll(Context& ctx, LineReader& reader, Spool& spool) {
  BeforeBatchResolver resolver(ctx);
  Record r;
  std::string_view text;
  try {
    while (reader.next(r.line, text)) {
      PreparedRequest p = prepareLine(ctx, reader.args());
      r.text = text;
      r.bytes = {};
      r.undoable = false;
      r.kind = Record::Kind::Deferred;
      Request request;
      if (p.run) {
        // A command line (PreparedRequest::run): parsed now, run at its turn.
      } else if (resolver.resolvable(p)) {
        try {
          request = p.encode(resolver);
        } catch (const Error& e) {
          throw UsageError(e.reason());
        }
        if (!request.keepsAlive()) {
          r.bytes = request.bytes();
          r.undoable = request.hasExactUndo();
          r.kind = Record::Kind::Encoded;
        }
      } else {
        validateEncoding(p);
      }
      r.device = p.device ? std::string_view(*p.device) : std::string_view();
      resolver.touch(p);
      spool.append(r);
    }
  } catch (const BadValueError& e) {  // keeps its exit status (1)
    if (r.line == 0) throw;
    throw BadValueError(fmt::format("{} (line {}: {})", e.what(), r.line, shown(text)));
  } catch (const UsageError& e) {
    if (r.line == 0) throw;
    throw UsageError(fmt::format("{} (line {}: {})", e.what(), r.line, shown(text)));
  } catch (const Error& e) {
    throw UsageError(fmt::format("{} (line {}: {})", e.reason(), r.line, shown(text)));
  }
}

/// Writes "lines 3, 5-9" for a sorted list of line numbers.
std::string lineRanges(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    out += out.empty() ? "" : ", ";
    out += i == j ? std::to_string(lines[i]) : fmt::format("{}-{}", lines[i], lines[j]);
    i = j + 1;
  }
  return fmt::format("{} {}", lines.size() == 1 ? "line" : "lines", out);
}

/// Pass 2: streams the spooled requests through Netlink::run, in runs (see the file comment).
class Sender {
 public:
  Sender(Context& ctx, Spool& spool) : ctx_(ctx), netlink_(ctx.netlink()), spool_(spool) {
    const GlobalOptions& o = ctx.options();
    undoMode_ = !o.force && o.window == 0;
    options_.onError = o.force || undoMode_ ? OnError::Continue : OnError::Stop;
    options_.window = o.window;
  }

  int run() {
    while (!finished_ && !stopped_) {
      runSent_ = 0;
      netlink_.run([this] { return nextRequest(); }, options_,
                   [this](std::size_t, const RequestResult& r) { onResult(r); });
      if (!undo_.empty()) undoTail();
      if (carry_ && !stopped_ && carry_->kind == Record::Kind::Deferred && !carryPrepared_) prepareCarry();
    }
    countUnsent();
    printSummary();
    return failed_ ? kExitBatchLineFailed : kExitOk;
  }

 private:
  /// A line handed to the pipeline, with its text and device copied (the spool's views end with
  /// the next record).
  struct InFlight {
    std::size_t line = 0;
    std::string words;  ///< the text, then the device ("" when none)
    std::size_t textSize = 0;
    std::vector<uint8_t> bytes;  ///< kept for the undo (undoable requests in undo mode only)
    std::string_view text() const { return std::string_view(words).substr(0, textSize); }
    std::string_view device() const { return std::string_view(words).substr(textSize); }
  };
  /// Copies into the room of a line answered earlier (spare_): no allocation a line.
  void track(std::size_t line, std::string_view text, std::string_view device) {
    InFlight& f = inFlight_.emplace_back();
    if (!spare_.empty()) f.words = std::move(spare_.back()), spare_.pop_back();
    f.line = line;
    f.words.assign(text).append(device);
    f.textSize = text.size();
  }

  /// The pipeline's RequestSource. Never does netlink I/O itself (the pipeline owns the socket
  /// while it runs): a line that must wait for the answers before it ends the run.
  std::optional<Request> nextRequest() {
    if (stopped_) return std::nullopt;
    if (!carry_) {
      carry_.emplace();
      carryPrepared_.reset();
      if (!spool_.next(*carry_)) {
        carry_.reset();
        finished_ = true;
        return std::nullopt;
      }
    }
    Record& r = *carry_;
    if (r.kind == Record::Kind::Deferred) {
      // Its names are looked up between runs, after everything before it has been answered.
      if (runSent_ > 0 || !carryPrepared_) return std::nullopt;
    } else if (undoMode_ && runSent_ > 0 && !(r.undoable && runUndoable_)) {
      return std::nullopt;  // a request without exact undo goes alone, and nothing joins it
    }
    if (runSent_ == 0) runUndoable_ = r.kind == Record::Kind::Encoded && r.undoable;
    std::optional<Request> request;
    if (r.kind == Record::Kind::Encoded) {
      track(r.line, r.text, r.device);
      if (undoMode_ && runUndoable_) inFlight_.back().bytes.assign(r.bytes.begin(), r.bytes.end());
      request.emplace(std::vector<uint8_t>(r.bytes.begin(), r.bytes.end()), std::string());
    } else {
      const std::optional<std::string>& device = carryPrepared_->device;
      track(r.line, r.text, device ? std::string_view(*device) : std::string_view());
      request = std::move(carryRequest_);
    }
    carry_.reset();
    carryPrepared_.reset();
    ++runSent_;
    return request;
  }

  /// Between runs: parses a deferred line again and resolves its names in the kernel (one
  /// LinkApi::findIndex each). A failure here is the line's failure.
  void prepareCarry() {
    Record& r = *carry_;
    std::optional<Error> error;
    PreparedRequest p;
    try {
      Args args = Args::ofLine(r.text);
      p = prepareLine(ctx_, args);
      if (p.run) return runCommandLine(p);
      KernelLookup lookup(netlink_.links());
      carryRequest_ = p.encode(lookup);
      carryPrepared_ = std::move(p);
      return;
    } catch (const Error& e) {
      error = e;
    } catch (const UsageError& e) {
      error = Error(std::make_error_code(std::errc::invalid_argument), std::string(r.text), e.what());
    }
    track(r.line, r.text, p.device ? std::string_view(*p.device) : std::string_view());
    carry_.reset();
    onResult(RequestResult{RequestStatus::Failed, std::move(error)});
  }

  /// A command line runs now, between runs (nothing of the batch is in flight); it printed its
  /// own error, the batch names the line.
  void runCommandLine(const PreparedRequest& p) {
    Record& r = *carry_;
    std::fflush(stdout);
    int status = kExitOk;
    try {
      status = p.run();
    } catch (const UsageError& e) {  // found only when it runs (a tunnel's mode, say)
      printError(e.what());
      status = kExitUsage;
    } catch (const Error& e) {
      printError(e.what());
      status = kExitFailed;
    }
    std::fflush(stdout);
    track(r.line, r.text, p.device ? std::string_view(*p.device) : std::string_view());
    carry_.reset();
    if (status == kExitOk) return onResult(RequestResult{RequestStatus::Applied, std::nullopt});
    onResult(RequestResult{RequestStatus::Failed,
                           Error(std::make_error_code(std::errc::operation_canceled), "",
                                 fmt::format("the command failed with exit status {}", status))});
  }

  class KernelLookup final : public Resolver {
   public:
    explicit KernelLookup(LinkApi& links) : links_(links) {}
    uint32_t index(const std::string& name) override {
      std::optional<uint32_t> index = links_.findIndex(name);
      if (!index) throw Error(std::make_error_code(std::errc::no_such_device), "link show dev " + name,
                              fmt::format("Cannot find device \"{}\"", name));
      return *index;
    }

   private:
    LinkApi& links_;
  };

  void onResult(const RequestResult& r) {
    InFlight done = std::move(inFlight_.front());
    inFlight_.pop_front();
    report(done, r);
    spare_.push_back(std::move(done.words));
  }
  void report(InFlight& done, const RequestResult& r) {
    if (firstFailure_ && !ctx_.options().force && undoMode_) {
      // Sent with the failed line (pipelined) and after it: must not stay applied.
      if (r.status == RequestStatus::Applied) undo_.push_back(std::move(done));
      else ++refused_;
      return;
    }
    switch (r.status) {
      case RequestStatus::Applied:
        ++applied_;
        if (firstFailure_ && !ctx_.options().force) appliedAfterFailure_.push_back(done.line);
        break;
      case RequestStatus::Failed: {
        ++failed_;
        PreparedRequest about;
        if (!done.device().empty()) about.device = std::string(done.device());
        printError(fmt::format("{} (line {}: {})", r.error ? failureReason(*r.error, &about) : "failed", done.line,
                               done.text()));
        if (!firstFailure_) firstFailure_ = done.line;
        if (!ctx_.options().force) stopped_ = true;
        break;
      }
      case RequestStatus::NotSent:
        ++notSent_;
        if (!firstNotSent_) firstNotSent_ = done.line;
        break;
    }
  }

  /// After a failure in a pipelined run: deletes again, newest first, what the lines after the
  /// failed one added, so the kernel holds exactly the lines before it.
  void undoTail() {
    std::vector<InFlight> tail(std::make_move_iterator(undo_.rbegin()), std::make_move_iterator(undo_.rend()));
    undo_.clear();
    std::size_t next = 0;
    BatchOptions o;
    o.onError = OnError::Continue;
    netlink_.run(
        [&]() -> std::optional<Request> {
          if (next == tail.size()) return std::nullopt;
          return Request(tail[next++].bytes, std::string()).exactUndo();
        },
        o,
        [&](std::size_t i, const RequestResult& r) {
          if (r.status == RequestStatus::Applied) {
            undone_.push_back(tail[i].line);
            return;
          }
          ++applied_;  // it stays applied: say so
          printError(fmt::format("could not undo line {} ({}), it stays applied: {}", tail[i].line, tail[i].text(),
                                 r.error ? failureReason(*r.error, nullptr) : "not sent"));
          undoFailed_ = true;
        });
    std::sort(undone_.begin(), undone_.end());
  }

  /// After a stop: the lines never handed to the pipeline.
  void countUnsent() {
    auto count = [&](std::size_t line) {
      ++notSent_;
      if (!firstNotSent_) firstNotSent_ = line;
    };
    if (carry_) count(carry_->line);
    carry_.reset();
    Record r;
    while (!finished_ && spool_.next(r)) count(r.line);
  }

  void printSummary() {
    if (!failed_ && !notSent_) return;  // like ip: silence on success
    if (!appliedAfterFailure_.empty())
      fmt::print(stderr, "Note: {} already in flight when line {} failed, and applied\n", lineRanges(appliedAfterFailure_),
                 *firstFailure_);
    if (!undone_.empty())
      fmt::print(stderr, "Undone: {} (sent with line {}, applied, then deleted again)\n", lineRanges(undone_),
                 *firstFailure_);
    if (refused_)
      fmt::print(stderr, "Refused: {} line{} sent with line {} and refused by the kernel too (nothing applied)\n",
                 refused_, refused_ == 1 ? "" : "s", *firstFailure_);
    if (notSent_)
      fmt::print(stderr, "Not sent: line {} and every later line ({} request{})\n", *firstNotSent_, notSent_,
                 notSent_ == 1 ? "" : "s");
    std::string extra;
    if (!undone_.empty()) extra += fmt::format(", {} undone", undone_.size());
    if (refused_) extra += fmt::format(", {} refused after the failure", refused_);
    fmt::print(stderr, "{} lines applied, {} failed, {} not sent{}\n", applied_, failed_, notSent_, extra);
  }

  Context& ctx_;
  Netlink& netlink_;
  Spool& spool_;
  BatchOptions options_;
  bool undoMode_ = false;
  std::optional<Record> carry_;
  std::optional<PreparedRequest> carryPrepared_;
  Request carryRequest_;
  std::deque<InFlight> inFlight_;
  std::vector<std::string> spare_;
  std::vector<InFlight> undo_;
  bool runUndoable_ = false;
  std::size_t runSent_ = 0;
  bool finished_ = false;
  bool stopped_ = false;
  bool undoFailed_ = false;
  std::size_t applied_ = 0, failed_ = 0, notSent_ = 0, refused_ = 0;
  std::optional<std::size_t> firstFailure_, firstNotSent_;
  std::vector<std::size_t> appliedAfterFailure_, undone_;
};

}  // namespace

int runBatchFile(Context& ctx, const std::string& path) {
  Spool spool;
  {
    LineReader reader(path);
    readAll(ctx, reader, spool);
  }
  if (spool.size() == 0) return kExitOk;
  spool.startReading();
  return Sender(ctx, spool).run();
}

}  // namespace fastlink::cli
