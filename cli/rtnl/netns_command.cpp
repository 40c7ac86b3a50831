// The `netns` object: named network namespaces under /run/netns and the ids namespaces give each
// other, with ip 6.1's grammar (verbs by matches() in ip/ipnetns.c's order), text, -j and exit
// statuses:
//   fastlink netns [ list ] | add NAME | attach NAME PID | set NAME NETNSID | [-all] delete [NAME]
//                | identify [PID] | pids NAME | [-all] exec [NAME] CMD... | monitor
//                | list-id [target-nsid N] [nsid N]
// Every verb also runs inside -batch (PreparedRequest::run): parsed with the file, run at its turn.
#include <dirent.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "fastlink/netns_ids.hpp"
#include "fastlink/netns_named.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/usage_status.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink netns list
       fastlink netns add NAME
       fastlink netns attach NAME PID
       fastlink netns set NAME NETNSID
       fastlink [-all] netns delete [NAME]
       fastlink netns identify [PID]
       fastlink netns pids NAME
       fastlink [-all] netns exec [NAME] cmd ...
       fastlink netns monitor
       fastlink netns list-id [target-nsid POSITIVE-INT] [nsid POSITIVE-INT]
NETNSID := auto | POSITIVE-INT
(-j prints JSON; see docs/cli/netns.md))";

/// ip's exit status for the failures its netns verbs report themselves (their `return -1`).
constexpr int kExitNetnsFailed = 1;

/// Prints one of ip's own messages (no "Error: " in front, as ip prints them) and fails.
int fail(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "{}\n", message);
  return kExitNetnsFailed;
}

/// A failure of the library's filesystem work: its message is ip's.
int fail(const Error& e) { return fail(e.extack().empty() ? e.reason() : e.extack()); }

/// A line that runs one of the library's filesystem operations: 0, or its failure in ip's words.
template <class Operation>
std::function<int()> running(Operation operation) {
  return [operation] {
    try {
      operation();
    } catch (const Error& e) {
      return fail(e);
    }
    return kExitOk;
  };
}

/// iproute2's get_integer(): strtol with base 0 (0x.. hex, 0.. octal), the whole word, an int.
std::optional<int> ipInteger(const std::string& word) {
  if (word.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(word.c_str(), &end, 0);
  if (*end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return std::nullopt;
  return static_cast<int>(v);
}

bool isPid(const std::string& word) {
  for (char c : word)
    if (c < '0' || c > '9') return false;
  return true;
}


std::vector<std::string> rest(Args& args) {
  std::vector<std::string> words;
  while (!args.done()) words.push_back(args.next());
  return words;
}

// ---- list, list-id ----------------------------------------------------------------------------

int list(Context& ctx) {
  struct Named {
    std::string name;
    std::optional<int32_t> id;
  };
  std::vector<Named> names;
  for (std::string& name : listNamedNetns()) {
    Named n{std::move(name), std::nullopt};
    try {
      n.id = ctx.netlink().netns().id(Netns::named(n.name));
    } catch (const Error&) {
      // A name that is no namespace (or that we may not open) is listed without an id, as ip does.
    }
    names.push_back(std::move(n));
  }
  printRecords(names, ctx.options().json, ctx.options().pretty, [](FieldOut& f, const Named& n) {
    f.any("name", "{}", n.name);
    if (n.id) f.any("id", " (id: {})", *n.id);
  });
  return kExitOk;
}

/// The names of the ids (ip's netns map): asked once; a name is printed once, then forgotten,
/// and an id not found is looked for again among the names (a namespace named since).
class NsidNames {
 public:
  explicit NsidNames(Context& ctx) : ctx_(ctx), ids_(namedNetnsIds(ctx.options().netns ? std::optional(Netns::named(*ctx.options().netns)) : std::nullopt)) {}

  std::optional<std::string> take(const NsidInfo& n) {
    int32_t key = n.currentNsid ? *n.currentNsid : n.nsid;  // ip looks the current id up when there is one
    if (key >= 0) {
      if (auto it = ids_.find(key); it != ids_.end()) {
        std::string name = std::move(it->second);
        ids_.erase(it);
        return name;
      }
    }
    if (n.deleted || n.nsid < 0) return std::nullopt;
    for (const std::string& name : listNamedNetns()) {
      try {
        if (ctx_.netlink().netns().id(Netns::named(name)) == n.nsid) {
          ids_[n.nsid] = name;
          return name;
        }
      } catch (const Error&) {
      }
    }
    return std::nullopt;
  }

 private:
  Context& ctx_;
  std::map<int32_t, std::string> ids_;
};

void writeNsid(FieldOut& f, const NsidInfo& n, const std::optional<std::string>& name) {
  if (n.deleted) f.any("deleted", true, "{}", std::string("Deleted "));
  if (n.nsid < 0) f.text("nsid unassigned ");
  else f.any("nsid", "nsid {} ", n.nsid);
  if (n.currentNsid) {
    if (*n.currentNsid < 0) f.text("current-nsid unassigned ");
    else f.any("current-nsid", "current-nsid {} ", *n.currentNsid);
  }
  if (name) f.any("name", "(iproute2 netns name: {})", *name);
}

/// `target-nsid N` / `nsid N`: a non-negative int, each once, as ip's netns_list_id reads them.
int32_t idValue(const std::string& keyword, const std::string& word, bool seen) {
  if (seen) throw UsageError(fmt::format("duplicate \"{}\": \"{}\" is the second value.", keyword, keyword));
  std::optional<int> v = ipInteger(word);
  if (!v) throw UsageError(fmt::format("argument \"{}\" is wrong: \"{}\" value is invalid", word, keyword));
  if (*v < 0) throw UsageError(fmt::format("argument \"{}\" is wrong: \"{}\" value should be >= 0", word, keyword));
  return *v;
}

std::function<int()> parseListId(Context& ctx, Args& args) {
  std::optional<int32_t> target, nsid;
  while (!args.done()) {
    std::string word = args.next();
    if (word == "target-nsid") target = idValue(word, args.value(word), target.has_value());
    else if (word == "nsid") nsid = idValue(word, args.value(word), nsid.has_value());
    else throw UsageError(fmt::format("unknown word \"{}\" in netns list-id\n{}", word, kUsage));
  }
  return [&ctx, target, nsid] {
    NsidNames names(ctx);
    std::vector<NsidInfo> ids;
    try {
      if (nsid) ids.push_back(ctx.netlink().netns().find(*nsid, target));
      else ids = ctx.netlink().netns().list(NsidFilter{target});
    } catch (const Error& e) {
      // ip: a refused get is rtnl_talk's failure (2), a refused dump "Dump terminated" (1).
      int status = reportFailure(e);
      return nsid ? status : kExitNetnsFailed;
    }
    printRecords(ids, ctx.options().json, ctx.options().pretty,
                 [&](FieldOut& f, const NsidInfo& n) { writeNsid(f, n, names.take(n)); });
    return kExitOk;
  };
}

// ---- set, add, attach, delete -------------------------------------------------------------------

std::function<int()> parseSet(Context& ctx, Args& args) {
  std::vector<std::string> words = rest(args);
  if (words.empty()) return [] { return fail("No netns name specified"); };
  if (words.size() < 2) return [] { return fail("No nsid specified"); };
  std::string name = words[0];
  std::optional<int32_t> nsid;  // none: auto, the kernel picks
  if (words[1] != "auto") {
    std::optional<int> v = ipInteger(words[1]);
    if (!v) throw UsageError(fmt::format("argument \"{}\" is wrong: Invalid \"netnsid\" value", words[1]));
    if (*v < 0) throw UsageError(fmt::format("argument \"{}\" is wrong: \"netnsid\" value should be >= 0", words[1]));
    nsid = *v;
  }
  return [&ctx, name, nsid] {
    int fd = ::open((std::string(kNetnsRunDir) + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("Cannot open network namespace \"{}\": {}", name, std::strerror(errno)));
    ::close(fd);  // it can be opened: ip's own message is not needed
    try {
      ctx.netlink().netns().setId(Netns::named(name), nsid);
    } catch (const Error& e) {
      return reportFailure(e);
    }
    return kExitOk;
  };
}

std::function<int()> parseAdd(Args& args, bool attach) {
  std::vector<std::string> words = rest(args);
  if (!attach) {
    if (words.empty()) return [] { return fail("No netns name specified"); };
    return running([name = words[0]] { addNamedNetns(name); });
  }
  if (words.size() < 2) return [] { return fail("No netns name and PID specified"); };
  std::optional<int> pid = ipInteger(words[1]);
  if (!pid || *pid == 0) return [word = words[1]] { return fail("Invalid PID: " + word); };
  return running([name = words[0], pid = *pid] { attachNamedNetns(name, pid); });
}

std::function<int()> parseDelete(Context& ctx, Args& args) {
  std::vector<std::string> words = rest(args);
  if (ctx.options().all) {
    return [] {
      // ip stops at the first name it cannot remove and still succeeds (netns_foreach's 0).
      for (const std::string& name : listNamedNetns()) {
        try {
          deleteNamedNetns(name);
        } catch (const Error& e) {
          fail(e);
          break;
        }
      }
      return kExitOk;
    };
  }
  if (words.empty()) return [] { return fail("No netns name specified"); };
  return running([name = words[0]] { deleteNamedNetns(name); });
}

// ---- identify, pids ---------------------------------------------------------------------------

std::function<int()> parseIdentify(Args& args) {
  std::vector<std::string> words = rest(args);
  if (words.size() > 1) return [] { return fail("extra arguments specified"); };
  pid_t pid = 0;
  if (!words.empty()) {
    if (!isPid(words[0])) return [word = words[0]] { return fail("Specified string '" + word + "' is not a pid"); };
    // ip reads /proc/WORD/ns/net as typed; digits only, so a number (too long: no such process).
    pid = words[0].size() > 9 ? INT_MAX : static_cast<pid_t>(std::strtol(words[0].c_str(), nullptr, 10));
  }
  return running([pid] { printLine(identifyNetns(pid).value_or("")); });
}

std::function<int()> parsePids(Args& args) {
  std::vector<std::string> words = rest(args);
  if (words.empty()) return [] { return fail("No netns name specified"); };
  if (words.size() > 1) return [] { return fail("extra arguments specified"); };
  return running([name = words[0]] {
    std::string out;
    for (pid_t pid : netnsPids(name)) out += std::to_string(pid) + "\n";
    std::fputs(out.c_str(), stdout);
  });
}

// ---- exec -------------------------------------------------------------------------------------

/// /etc/netns/NAME/FILE bound over /etc/FILE, for programs that read /etc (resolv.conf) but know
/// nothing of namespaces. A file that cannot be bound is reported and skipped, as ip does.
void bindEtc(const std::string& name) {
  if (name.size() >= NAME_MAX) return;
  std::string dir = "/etc/netns/" + name;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    std::string from = dir + "/" + e->d_name, to = std::string("/etc/") + e->d_name;
    if (::mount(from.c_str(), to.c_str(), "none", MS_BIND, nullptr) != 0)
      fmt::print(stderr, "Bind {} -> {} failed: {}\n", from, to, std::strerror(errno));
  }
  ::closedir(d);
}

/// ip's netns_switch: this process enters the namespace, in a mount namespace of its own (no
/// mount propagates back) where /sys shows the namespace's devices and /etc/netns/NAME is bound
/// over /etc. Returns false after printing why it could not.
bool enterForExec(const std::string& name) {
  std::string path = std::string(kNetnsRunDir) + "/" + name;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("Cannot open network namespace \"{}\": {}", name, std::strerror(errno))), false;
  if (::setns(fd, CLONE_NEWNET) != 0) {
    int err = errno;
    ::close(fd);
    return fail(fmt::format("setting the network namespace \"{}\" failed: {}", name, std::strerror(err))), false;
  }
  ::close(fd);
  if (::unshare(CLONE_NEWNS) != 0) return fail(fmt::format("unshare failed: {}", std::strerror(errno))), false;
  if (::mount("", "/", "none", MS_SLAVE | MS_REC, nullptr) != 0)
    return fail(fmt::format("\"mount --make-rslave /\" failed: {}", std::strerror(errno))), false;
  unsigned long flags = 0;
  if (::umount2("/sys", MNT_DETACH) != 0) {
    // Not unmounted (none there, or busy): mount over it, read-only if the one below is.
    struct statvfs st {};
    if (::statvfs("/sys", &st) == 0 && (st.f_flag & ST_RDONLY)) flags = MS_RDONLY;
  }
  if (::mount(name.c_str(), "/sys", "sysfs", flags, nullptr) != 0)
    return fail(fmt::format("mount of /sys failed: {}", std::strerror(errno))), false;
  bindEtc(name);
  return true;
}

/// Runs `argv` in namespace `name`: in this process (exec: the status is the program's), or in
/// a child (in a batch, for -all) whose exit status is returned.
int execIn(const std::string& name, const std::vector<std::string>& argv, bool forkFirst) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (forkFirst) {
    pid_t child = ::fork();
    if (child < 0) return fail(fmt::format("fork: {}", std::strerror(errno)));
    if (child > 0) {
      int status = 0;
      while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR) return fail(fmt::format("waitpid: {}", std::strerror(errno)));
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;  // killed by a signal: ip's exit(1)
    }
  }
  if (!enterForExec(name)) {
    if (forkFirst) ::_exit(kExitNetnsFailed);
    return kExitNetnsFailed;
  }
  std::vector<char*> cargv;
  for (const std::string& word : argv) cargv.push_back(const_cast<char*>(word.c_str()));
  cargv.push_back(nullptr);
  ::execvp(cargv[0], cargv.data());
  fmt::print(stderr, "exec of \"{}\" failed: {}\n", argv[0], std::strerror(errno));
  std::fflush(stderr);
  ::_exit(1);
}

std::function<int()> parseExec(Context& ctx, Args& args, bool inBatch) {
  std::vector<std::string> words = rest(args);
  if (ctx.options().all) {
    if (words.empty()) return [] { return fail("No command specified"); };
    return [words] {
      for (const std::string& name : listNamedNetns()) {
        std::fputs(("\nnetns: " + name + "\n").c_str(), stdout);
        execIn(name, words, true);  // ip goes on whatever each one returns
      }
      return kExitOk;
    };
  }
  if (words.empty()) return [] { return fail("No netns name specified"); };
  if (words.size() < 2) return [] { return fail("No command specified"); };
  std::string name = words[0];
  words.erase(words.begin());
  return [name, words, inBatch] { return execIn(name, words, inBatch); };
}

// ---- monitor ----------------------------------------------------------------------------------

int monitor() {
  int fd = ::inotify_init1(IN_CLOEXEC);
  if (fd < 0) return fail(fmt::format("inotify_init failed: {}", std::strerror(errno)));
  if (::mkdir(kNetnsRunDir, 0755) != 0 && errno != EEXIST) {
    int err = errno;
    ::close(fd);
    return fail(fmt::format("mkdir {} failed: {}", kNetnsRunDir, std::strerror(err)));
  }
  if (::inotify_add_watch(fd, kNetnsRunDir, IN_CREATE | IN_DELETE) < 0) {
    int err = errno;
    ::close(fd);
    return fail(fmt::format("inotify_add_watch failed: {}", std::strerror(err)));
  }
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail(fmt::format("read failed: {}", std::strerror(err)));
    }
    std::string out;
    for (char* p = buffer; p < buffer + n;) {
      auto* event = reinterpret_cast<inotify_event*>(p);
      if (event->mask & IN_CREATE) out += fmt::format("add {}\n", event->name);
      if (event->mask & IN_DELETE) out += fmt::format("delete {}\n", event->name);
      p += sizeof(inotify_event) + event->len;
    }
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);  // one event, one line out now: a script reads it as it happens
  }
}

// ---- the verbs --------------------------------------------------------------------------------

/// One line parsed into what it does; usage errors are thrown here, before anything runs.
std::function<int()> parse(Context& ctx, Args& args, bool inBatch) {
  std::vector<std::string> words = rest(args);
  if (words.empty()) return [&ctx] { return list(ctx); };
  // ip checks the word after the verb as a name before it looks at the verb.
  if (!ctx.options().all && words.size() > 1 && !validNetnsName(words[1]))
    throw UsageError(fmt::format("Invalid netns name \"{}\"", words[1]));
  const std::string verb = words[0];
  Args tail(std::vector<std::string>(words.begin() + 1, words.end()));
  // ip/ipnetns.c's order: `s` is show (list), `l` list, `d` delete, `a` add, `e` exec.
  if (matches(verb, "list") || matches(verb, "show") || matches(verb, "lst")) return [&ctx] { return list(ctx); };
  if (matches(verb, "list-id")) return parseListId(ctx, tail);
  if (matches(verb, "help")) throw UsageError(kUsage);
  if (matches(verb, "add")) return parseAdd(tail, false);
  if (matches(verb, "set")) return parseSet(ctx, tail);
  if (matches(verb, "delete")) return parseDelete(ctx, tail);
  if (matches(verb, "identify")) return parseIdentify(tail);
  if (matches(verb, "pids")) return parsePids(tail);
  if (matches(verb, "exec")) return parseExec(ctx, tail, inBatch);
  if (matches(verb, "monitor")) return [] { return monitor(); };
  if (matches(verb, "attach")) return parseAdd(tail, true);
  throw UsageError(fmt::format("Command \"{}\" is unknown, try \"fastlink netns help\".", verb));
}

int runNetns(Context& ctx, Args& args) {
  if (matches(args.peek(), "help")) return printUsage(kUsage);  // ip: `h`, `he`, ... (no verb before help starts with h)
  return parse(ctx, args, false)();
}

PreparedRequest prepareNetns(Context& ctx, Args& args) {
  PreparedRequest p;
  p.run = parse(ctx, args, true);
  return p;
}

const Registrar kNetns{
    ObjectCommand{.name = "netns", .aliases = {}, .usage = kUsage, .run = runNetns, .prepare = prepareNetns}};

}  // namespace
}  // namespace fastlink::cli
