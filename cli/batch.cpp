// -batch FILE: every line validated first, then sent as one streamed, pipelined batch.
//
// Memory stays bounded however long the file is: the first pass parses and encodes each line
// (with placeholder ifindexes) and keeps nothing but counts; the second pass re-reads the file
// (a pipe or stdin is spooled to an unlinked temporary file during the first pass), parses and
// encodes each line again as the pipeline asks for it. Re-parsing costs CPU, but holding a
// million encoded requests would cost hundreds of megabytes. See docs/CLI.md, "Batch files".
//
// Names the kernel only takes as an ifindex are resolved from a name->index map filled by one
// dump on first need. A line that names a device an earlier line created, deleted or renamed
// ends the current pipeline run: what is queued is sent and answered first, then the name is
// looked up (one RTM_GETLINK) and a new run continues with that line. Batches that need no
// lookups therefore stay one fully pipelined run.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "command.hpp"

namespace fastlink::cli {
namespace {

struct Line {
  std::size_t number = 0;
  std::string text;
};

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

/// Reads the batch file twice (validation pass, send pass), skipping blank and comment lines.
class LineReader {
 public:
  explicit LineReader(const std::string& path) {
    if (path == "-") {
      file_ = stdin;
    } else {
      file_ = std::fopen(path.c_str(), "r");
      if (!file_) throw UsageError(fmt::format("cannot open batch file \"{}\": {}", path, std::strerror(errno)));
      owned_ = true;
    }
    // A pipe cannot be read twice: keep a copy of it for the second pass.
    if (std::fseek(file_, 0, SEEK_CUR) != 0) {
      spool_ = std::tmpfile();
      if (!spool_) throw UsageError(fmt::format("cannot create a temporary file for the batch: {}", std::strerror(errno)));
    }
  }
  ~LineReader() {
    std::free(buffer_);
    if (owned_) std::fclose(file_);
    if (spool_) std::fclose(spool_);
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line with words; `line` is set before splitting so errors can name it.
  bool next(Line& line, std::vector<std::string>& words) {
    for (;;) {
      errno = 0;
      ssize_t n = getline(&buffer_, &capacity_, current());
      if (n < 0 && std::ferror(current())) {  // e.g. a directory: EISDIR, not an empty batch
        line.number = 0;  // about the file, not a line
        throw UsageError(fmt::format("cannot read the batch file: {}", std::strerror(errno ? errno : EIO)));
      }
      if (n < 0) return false;
      if (spool_ && firstPass_ && std::fwrite(buffer_, 1, static_cast<std::size_t>(n), spool_) != static_cast<std::size_t>(n))
        throw UsageError(fmt::format("cannot spool the batch to a temporary file: {}", std::strerror(errno)));
      line.number = ++number_;
      line.text = std::string(trim(std::string_view(buffer_, static_cast<std::size_t>(n))));
      if (line.text.find('\0') != std::string::npos) throw UsageError("the line contains a NUL byte");
      words = splitWords(line.text);
      if (!words.empty()) return true;
    }
  }

  void startSecondPass() {
    firstPass_ = false;
    number_ = 0;
    std::rewind(current());
  }

 private:
  std::FILE* current() const { return !firstPass_ && spool_ ? spool_ : file_; }

  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::FILE* spool_ = nullptr;
  bool firstPass_ = true;
  std::size_t number_ = 0;
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
};

PreparedRequest prepareLine(Context& ctx, const std::vector<std::string>& words) {
  Args args(words);
  std::string object = args.next();
  const ObjectCommand* command = findCommand(object);
  if (!command) {
    std::string known;
    for (const auto& c : allCommands()) known += (known.empty() ? "" : ", ") + c.name;
    throw UsageError(fmt::format("unknown object \"{}\" (known: {})", object, known));
  }
  if (!command->prepare) throw UsageError(fmt::format("\"{}\" commands cannot be used in a batch", command->name));
  return command->prepare(ctx, args);
}

struct Validation {
  std::size_t requests = 0;
};

/// First pass: every line parsed and encoded, nothing sent. Throws UsageError naming the line.
Validation validate(Context& ctx, LineReader& reader) {
  Validation v;
  Line line;
  std::vector<std::string> words;
  try {
    while (reader.next(line, words)) {
      validateEncoding(prepareLine(ctx, words));
      ++v.requests;
    }
  } catch (const UsageError& e) {
    if (line.number == 0) throw;
    throw UsageError(fmt::format("{} (line {}: {})", e.what(), line.number, shown(line.text)));
  } catch (const Error& e) {
    throw UsageError(fmt::format("{} (line {}: {})", e.reason(), line.number, shown(line.text)));
  }
  return v;
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

/// Second pass: streams the lines through Netlink::run, resolving names between runs.
class Sender {
 public:
  Sender(Context& ctx, LineReader& reader) : ctx_(ctx), netlink_(ctx.netlink()), reader_(reader) {
    options_.onError = ctx.options().force ? OnError::Continue : OnError::Stop;
    options_.window = ctx.options().window;
  }

  int run() {
    while (!finished_ && !stopped_) {
      netlink_.run([this] { return nextRequest(); }, options_,
                   [this](std::size_t, const RequestResult& r) { onResult(r); });
      if (carry_ && !stopped_) resolveCarry();
    }
    countUnsent();
    printSummary();
    return failed_ ? kExitFailed : kExitOk;
  }

 private:
  struct Pending {
    Line line;
    PreparedRequest request;
    std::optional<Error> error;  ///< failed before it could be sent (unknown device, ...)
  };
  struct InFlight {
    Line line;
    std::optional<std::string> device;
  };

  class CacheResolver final : public Resolver {
   public:
    explicit CacheResolver(const std::unordered_map<std::string, uint32_t>& cache) : cache_(cache) {}
    uint32_t index(const std::string& name) override { return cache_.at(name); }

   private:
    const std::unordered_map<std::string, uint32_t>& cache_;
  };

  /// The pipeline's RequestSource. Never does netlink I/O itself (the pipeline owns the socket
  /// while it runs): a line that needs a lookup ends the run and is carried to the next one.
  std::optional<Request> nextRequest() {
    if (stopped_) return std::nullopt;
    Pending p;
    if (carry_) {
      p = std::move(*carry_);
      carry_.reset();
    } else {
      std::vector<std::string> words;
      if (!reader_.next(p.line, words)) {
        finished_ = true;
        return std::nullopt;
      }
      p.request = prepareLine(ctx_, words);  // validated in the first pass
    }
    for (const auto& name : p.request.needs) {
      if (!cache_.count(name)) {
        carry_ = std::move(p);
        return std::nullopt;
      }
    }
    CacheResolver resolver(cache_);
    std::optional<Request> request;
    try {
      request = p.request.encode(resolver);
    } catch (const Error& e) {
      p.error = e;  // e.g. a namespace deleted since the first pass
      carry_ = std::move(p);
      return std::nullopt;
    }
    forgetTouched(p.request);
    inFlight_.push_back({std::move(p.line), p.request.device});
    return request;
  }

  void forgetTouched(const PreparedRequest& request) {
    if (request.touchesAll) cache_.clear();
    for (const auto& name : request.touches) cache_.erase(name);
  }

  /// Between runs: everything queued has been answered, so the kernel's view is current.
  void resolveCarry() {
    Pending& p = *carry_;
    try {
      if (!p.error) {
        bool justLoaded = false;
        if (!cacheLoaded_) {
          netlink_.links().forEach({}, [&](const LinkInfo& l) {
            if (l.name && l.index) cache_[*l.name] = *l.index;
          }, [&] { cache_.clear(); });
          cacheLoaded_ = justLoaded = true;
        }
        for (const auto& name : p.request.needs) {
          if (cache_.count(name)) continue;
          std::optional<LinkInfo> l = justLoaded ? std::nullopt : netlink_.links().find(name);
          if (!l) throw Error(std::make_error_code(std::errc::no_such_device), "link show dev " + name,
                              fmt::format("Cannot find device \"{}\"", name));
          cache_[name] = *l->index;
        }
        return;  // resolved: the next run sends it
      }
    } catch (const Error& e) {
      p.error = e;
    }
    inFlight_.push_back({p.line, p.request.device});
    RequestResult failure{RequestStatus::Failed, std::move(p.error)};
    carry_.reset();
    onResult(failure);
  }

  void onResult(const RequestResult& r) {
    InFlight done = std::move(inFlight_.front());
    inFlight_.pop_front();
    switch (r.status) {
      case RequestStatus::Applied:
        ++applied_;
        if (firstFailure_ && !ctx_.options().force) appliedAfterFailure_.push_back(done.line.number);
        break;
      case RequestStatus::Failed: {
        ++failed_;
        PreparedRequest about;
        about.device = done.device;
        printError(fmt::format("{} (line {}: {})", r.error ? failureReason(*r.error, &about) : "failed", done.line.number,
                               done.line.text));
        if (!firstFailure_) firstFailure_ = done.line.number;
        if (!ctx_.options().force) stopped_ = true;
        break;
      }
      case RequestStatus::NotSent:
        ++notSent_;
        if (!firstNotSent_) firstNotSent_ = done.line.number;
        break;
    }
  }

  /// After a stop: the lines never handed to the pipeline.
  void countUnsent() {
    if (carry_) {
      ++notSent_;
      if (!firstNotSent_) firstNotSent_ = carry_->line.number;
      carry_.reset();
    }
    Line line;
    std::vector<std::string> words;
    while (!finished_ && reader_.next(line, words)) {
      ++notSent_;
      if (!firstNotSent_) firstNotSent_ = line.number;
    }
  }

  void printSummary() {
    if (!failed_ && !notSent_) return;  // like ip: silence on success
    if (!appliedAfterFailure_.empty())
      fmt::print(stderr, "Note: {} already in flight when line {} failed, and applied\n", lineRanges(appliedAfterFailure_),
                 *firstFailure_);
    if (notSent_)
      fmt::print(stderr, "Not sent: line {} and every later line ({} request{})\n", *firstNotSent_, notSent_,
                 notSent_ == 1 ? "" : "s");
    fmt::print(stderr, "{} lines applied, {} failed, {} not sent\n", applied_, failed_, notSent_);
  }

  Context& ctx_;
  Netlink& netlink_;
  LineReader& reader_;
  BatchOptions options_;
  std::unordered_map<std::string, uint32_t> cache_;
  bool cacheLoaded_ = false;
  std::optional<Pending> carry_;
  std::deque<InFlight> inFlight_;
  bool finished_ = false;
  bool stopped_ = false;
  std::size_t applied_ = 0, failed_ = 0, notSent_ = 0;
  std::optional<std::size_t> firstFailure_, firstNotSent_;
  std::vector<std::size_t> appliedAfterFailure_;
};

}  // namespace

int runBatchFile(Context& ctx, const std::string& path) {
  LineReader reader(path);
  Validation v = validate(ctx, reader);
  if (v.requests == 0) return kExitOk;
  reader.startSecondPass();
  return Sender(ctx, reader).run();
}

}  // namespace fastlink::cli
