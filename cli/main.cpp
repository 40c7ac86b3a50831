// fastlink: iproute2-style command line over the fastlink library.
//   fastlink [OPTIONS] OBJECT { COMMAND | help }
//   fastlink [OPTIONS] -batch FILE
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "command.hpp"
#include "complete.hpp"
#include "output.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kVersion = "fastlink 0.1.0";

std::string usage() {
  std::string objects;
  for (const auto& c : allCommands()) objects += (objects.empty() ? "" : " | ") + c.name;
  return fmt::format(
      "Usage: fastlink [ OPTIONS ] OBJECT {{ COMMAND | help }}\n"
      "       fastlink [ OPTIONS ] -batch FILE\n"
      "where  OBJECT := {{ {} }}\n"
      "       OPTIONS := {{ -j[son] | -p[retty] | -s[tats] | -d[etails] | -n[etns] NETNS |\n"
      "                    -4 | -6 | -0 | -f[amily] {{ inet | inet6 | link }} | -br[ief] | -o[neline] |\n"
      "                    -batch FILE | -force | -window N | -h[elp] | -V[ersion] }}\n"
      "Exit status: 0 success, 1 a request failed, 2 usage or parse error.",
      objects);
}

/// What main should do after the global options.
struct Parsed {
  GlobalOptions options;
  std::vector<std::string> rest;
  bool help = false;
  bool version = false;
};

FamilyOption parseFamily(std::string_view word) {
  if (word == "inet") return FamilyOption::Inet;
  if (word == "inet6") return FamilyOption::Inet6;
  if (word == "link") return FamilyOption::Link;
  throw UsageError(fmt::format("-family: \"{}\" is not a family (inet, inet6, link)", word));
}

Parsed parseGlobalOptions(int argc, char** argv) {
  Parsed p;
  int i = 1;
  auto value = [&](std::string_view option) -> std::string {
    if (i + 1 >= argc) throw UsageError(fmt::format("option \"{}\" needs a value", option));
    return argv[++i];
  };
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; ++i) {
    std::string_view opt = argv[i];
    if (opt.starts_with("--")) opt.remove_prefix(1);  // iproute2 accepts --json as -json
    if (opt == "-j" || opt == "-json") p.options.json = true;
    else if (opt == "-4") p.options.family = FamilyOption::Inet;
    else if (opt == "-6") p.options.family = FamilyOption::Inet6;
    else if (opt == "-0") p.options.family = FamilyOption::Link;
    else if (opt == "-f" || opt == "-family") p.options.family = parseFamily(value(opt));
    else if (opt == "-br" || opt == "-brief") p.options.brief = true;
    else if (opt == "-o" || opt == "-oneline") p.options.oneline = true;
    else if (opt == "-p" || opt == "-pretty") p.options.pretty = true;
    else if (opt == "-s" || opt == "-stats" || opt == "-statistics") ++p.options.stats;
    else if (opt == "-d" || opt == "-details") p.options.details = true;
    else if (opt == "-n" || opt == "-netns") p.options.netns = value(opt);
    else if (opt == "-b" || opt == "-batch") p.options.batchFile = value(opt);
    else if (opt == "-force") p.options.force = true;
    else if (opt == "-t" || opt == "-timestamp") p.options.timestamp = true;
    else if (opt == "-rc" || opt == "-rcvbuf") p.options.rcvbuf = static_cast<int>(parseU32(value(opt), "-rcvbuf", 4096, 1u << 30));
    else if (opt == "-window") p.options.window = parseU32(value(opt), "-window", 1, 1u << 20);
    else if (opt == "-h" || opt == "-help") p.help = true;
    else if (opt == "-V" || opt == "-version") p.version = true;
    else throw UsageError(fmt::format("option \"{}\" is unknown, try \"fastlink -help\"", argv[i]));
  }
  for (; i < argc; ++i) p.rest.emplace_back(argv[i]);
  return p;
}

int dispatch(Context& ctx, std::vector<std::string> words) {
  Args args(std::move(words));
  std::string object = args.next();
  if (object == kHelpCompleteWord) return runHelpComplete(args, usage());  // for completions/fastlink.bash
  if (object == "help") {
    printLine(usage());
    return kExitOk;
  }
  const ObjectCommand* command = findCommand(object);
  if (!command) throw UsageError(fmt::format("object \"{}\" is unknown, try \"fastlink help\"", object));
  return command->run(ctx, args);
}

int run(int argc, char** argv) {
  Parsed p = parseGlobalOptions(argc, argv);
  if (p.version) {
    printLine(kVersion);
    return kExitOk;
  }
  if (p.help) {
    printLine(usage());
    return kExitOk;
  }
  Context ctx(p.options);
  if (p.options.batchFile) {
    if (!p.rest.empty()) throw UsageError("-batch takes no command on the command line");
    return runBatchFile(ctx, *p.options.batchFile);
  }
  if (p.rest.empty()) {
    std::fputs((usage() + "\n").c_str(), stderr);
    return kExitUsage;
  }
  return dispatch(ctx, std::move(p.rest));
}

}  // namespace
}  // namespace fastlink::cli

int main(int argc, char** argv) {
  using namespace fastlink::cli;
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    printError(e.what());
    return kExitUsage;
  } catch (const fastlink::Error& e) {
    // Failures outside a request (opening the -n namespace, a dump): the kernel's or the OS's word.
    printError(fmt::format("{} ({})", e.reason(), e.operation()));
    return kExitFailed;
  } catch (const std::exception& e) {
    printError(e.what());
    return kExitFailed;
  }
}
