#include "kit/command.hpp"
#include "kit/usage_status.hpp"
#include "kit/failure.hpp"
#include "kit/output.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "fastlink/error.hpp"

namespace fastlink::cli {
namespace {

// The registrars' list. Constant-initialised (constinit), so it is empty before any file's
// static initialiser runs, whatever their order.
constinit const Registrar* first = nullptr;
constinit const Registrar** tail = &first;

/// A Resolver over the library's lookup (Netlink::execute's IndexOf): a missing device is
/// named as ip names it.
class LookupResolver final : public Resolver {
 public:
  explicit LookupResolver(const IndexOf& indexOf) : indexOf_(indexOf) {}
  uint32_t index(const std::string& name) override {
    try {
      return indexOf_(name);
    } catch (const Error& e) {
      if (e.code() != std::errc::no_such_device) throw;
      throw Error(e.code(), e.operation(), fmt::format("Cannot find device \"{}\"", name));
    }
  }

 private:
  const IndexOf& indexOf_;
};

/// Every name resolves to ifindex 1: lets the encoder check everything else before sending.
class PlaceholderResolver final : public Resolver {
 public:
  uint32_t index(const std::string&) override { return 1; }
};

}  // namespace

Netlink& Context::netlink() {
  if (!netlink_) {
    NetlinkOptions options;
    try {
      if (options_.netns) options.netns = Netns::named(*options_.netns);
      netlink_ = std::make_unique<Netlink>(options);
    } catch (const Error& e) {
      // ip and tc exit 255 when the -n namespace cannot be opened (netns_switch fails: exit(-1)).
      if (options_.netns) throw UsageError(fmt::format("{} ({})", e.reason(), e.operation()));
      throw;
    }
  }
  return *netlink_;
}

Registrar::Registrar(ObjectCommand command) : command_(command) {
  *tail = this;
  tail = &next_;
}

const ObjectCommand* findCommand(std::string_view word) {
  // A batch names the same object on line after line: the last hit is tried first.
  static const ObjectCommand* last = nullptr;
  if (last && last->name == word) return last;
  for (const auto& c : allCommands()) {
    if (c.name == word) return last = &c;
    for (const auto& a : c.aliases)
      if (a == word) return &c;
  }
  return nullptr;
}

CommandList allCommands() { return CommandList(first); }

void printError(std::string_view message) {
  std::fflush(stdout);
  fmt::print(stderr, "Error: {}\n", message);
}

namespace {

std::string reasonFor(const Error& error, std::string_view device) {
  if (!error.extack().empty()) return error.extack();
  if (error.code() == std::errc::no_such_device && !device.empty())
    return fmt::format("Cannot find device \"{}\"", device);
  return error.code().message();
}

}  // namespace

std::string failureReason(const Error& error, const PreparedRequest* prepared) {
  return reasonFor(error, prepared && prepared->device ? std::string_view(*prepared->device) : std::string_view());
}

int reportFailure(const Error& error, std::string_view device) {
  printError(fmt::format("{} ({})", reasonFor(error, device), error.operation()));
  // As ip: a device it cannot find is a bad value (1), any other refusal of the kernel 2.
  return exitStatusOf(error);
}

int exitStatusOf(const Error& error) {
  return error.code() == std::errc::no_such_device ? kExitBadValue : kExitFailed;
}

void validateEncoding(const PreparedRequest& prepared) {
  PlaceholderResolver placeholder;
  try {
    (void)prepared.encode(placeholder);
  } catch (const Error& e) {
    throw UsageError(e.reason());
  }
}

int runPrepared(Context& ctx, const PreparedRequest& prepared, const Args& args) {
  // Bad input is a usage error (255), before the socket is opened; the library's own check
  // then reports the same nothing, and resolves and sends as every object API does.
  validateEncoding(prepared);
  Netlink& netlink = ctx.netlink();
  try {
    netlink.execute([&](const IndexOf& indexOf) {
      LookupResolver resolver(indexOf);
      Request request = prepared.encode(resolver);
      if (prepared.namedAsTyped) request.setOperation(args.text());
      return request;
    });
  } catch (const Error& e) {
    return reportFailure(e, prepared.device.value_or(""));
  }
  return kExitOk;
}

int printUsage(const std::string& usage) {
  std::fflush(stdout);
  std::fputs((usage + "\n").c_str(), stderr);
  return kExitUsage;
}

int runShowOnly(Context& ctx, Args& args, const std::string& usage, std::string_view verbs,
                int (*show)(Context& ctx, Args& args)) {
  if (args.accept("help")) return printUsage(usage);
  if (!args.done() && !args.acceptAny({"show", "list", "lst"})) args.unknown(verbs);
  return show(ctx, args);
}

int runObject(Context& ctx, Args& args, const std::string& usage, std::initializer_list<ObjectVerb> verbs,
              PreparedRequest (*prepare)(Context& ctx, Args& args)) {
  if (args.done()) return verbs.begin()->run(ctx, args);
  if (args.accept("help")) return printUsage(usage);
  for (const ObjectVerb& verb : verbs)
    for (std::string_view word : verb.words)
      if (args.accept(word)) return verb.run(ctx, args);
  return runPrepared(ctx, prepare(ctx, args), args);
}

}  // namespace fastlink::cli
