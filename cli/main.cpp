// fastlink: iproute2-style command line over the fastlink library.
//   fastlink [OPTIONS] OBJECT { COMMAND | help }
//   fastlink [OPTIONS] -batch FILE
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fastlink/warnings.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "kit/complete.hpp"
#include "kit/ip_compat.hpp"
#include "kit/ip_names.hpp"
#include "kit/output.hpp"
#include "kit/usage_status.hpp"
#include "kit/version.hpp"

namespace fastlink::cli {
namespace {

/// A kernel warning that came with a success, as ip and tc print it: `Warning: TEXT.` on stderr
/// (iproute2's nl_dump_ext_ack adds the full stop when the kernel's text has none).
void printKernelWarning(std::string_view message) {
  std::fflush(stdout);
  fmt::print(stderr, "Warning: {}{}\n", message, message.ends_with('.') ? "" : ".");
}

std::string usage() {
  std::string objects;
  for (const auto& c : allCommands()) objects.append(objects.empty() ? "" : " | ").append(c.name);
  return fmt::format(
      "Usage: fastlink [ OPTIONS ] OBJECT {{ COMMAND | help }}\n"
      "       fastlink [ OPTIONS ] -batch FILE\n"
      "where  OBJECT := {{ {} }}\n"
      "       OPTIONS := {{ -j[son] | -p[retty] | -s[tats] | -d[etails] | -n[etns] NETNS |\n"
      "                    -4 | -6 | -0 | -f[amily] {{ inet | inet6 | link }} | -br[ief] | -o[neline] |\n"
      "                    -h[uman] | -iec | -l[oops] N | -t[imestamp] | -ts[hort] | -c[olor] |\n"
      "                    -r[esolve] | -N[umeric] | -b[atch] FILE | -force | -window N | -a[ll] | -he[lp] | -V[ersion] }}\n"
      "       (options are matched by prefix as ip matches them; tc's may follow \"tc\")\n"
      "Exit status (as ip): 0 success, 1 a bad value or device, 2 the kernel refused, 255 usage error.",
      objects);
}

/// What main should do after the global options.
struct Parsed {
  GlobalOptions options;
  IpNameOptions names;  ///< -N, -r: process-wide, as in ip (kit/ip_names.hpp)
  std::vector<std::string> rest;
  bool help = false;    ///< ip's -help: the usage on stderr, status 255 (ip's usage() exits so)
  bool tcHelp = false;  ///< `tc -help`: tc's, status 0
  bool version = false;
};

/// -f[amily] WORD: fastlink's families, or ip's mpls and bridge (kit/ip_names.hpp, OtherFamily).
void parseFamily(std::string_view word, GlobalOptions& options, IpNameOptions& names) {
  names.family = OtherFamily::None;
  if (word == "inet") options.family = FamilyOption::Inet;
  else if (word == "inet6") options.family = FamilyOption::Inet6;
  else if (word == "link") options.family = FamilyOption::Link;
  else if (word == "mpls") names.family = OtherFamily::Mpls, options.family = FamilyOption::Any;
  else if (word == "bridge") names.family = OtherFamily::Bridge, options.family = FamilyOption::Any;
  else throw UsageError(fmt::format("-family: \"{}\" is not a family (inet, inet6, mpls, bridge, link)", word));
}

/// -M / -B (ip's -family mpls / bridge) reach only the listings that handle them (FamilyOption):
/// `link show` (which ignores them, as ip's does), `address show|flush` and `route show|flush`
/// (nothing of fastlink's is of those families; ip finds nothing either on a kernel without MPLS
/// routes, and fastlink refuses when the kernel has some), `rule show` (the kernel refuses the
/// family), `neigh show|flush` (-B: the FDB as ip's print_neigh prints it; -M: none), `nexthop`,
/// `maddress` and `netconf` listings (none), `-B monitor` (the FDB's notifications). Anything else, a change above all (`-M route add`
/// would make an IPv4 route), is refused.
void checkFamilyObject(const std::vector<std::string>& words) {
  if (!isOtherFamily()) return;
  const std::string& object = words[0];
  const std::string verb = words.size() > 1 ? words[1] : "show";
  bool listing = verb == "show" || verb == "list" || verb == "lst" || verb == "ls";
  if ((object == "link" || object == "rule") && listing) return;
  // -B monitor: the bridge FDB entries of the neighbour group, as `ip -B monitor` (events/monitor_command.cpp).
  if (object == "monitor" && ipNameOptions.family == OtherFamily::Bridge) return;
  if ((object == "address" || object == "route" || object == "neigh") && (listing || verb == "flush")) return;
  // nexthop, maddress, netconf: ip finds none of either family (an empty list, as fastlink's).
  if ((object == "nexthop" || object == "maddress" || object == "netconf") && listing) return;
  bool mpls = ipNameOptions.family == OtherFamily::Mpls;
  throw UsageError(fmt::format("the {} family (-{}, -family {}) is not supported by fastlink with \"{} {}\"",
                               otherFamilyName(), mpls ? 'M' : 'B', mpls ? "mpls" : "bridge", object, verb));
}

/// iproute2's matches() for options: `opt` is a prefix of `name` that says more than "-".
bool optionMatches(std::string_view opt, std::string_view name) { return opt.size() > 1 && name.starts_with(opt); }

/// ip's `-c[olor][=always|auto|never]` (lib/color.c's matches_color). fastlink prints no colour:
/// the option is accepted so that scripts written for ip run.
bool isColorOption(std::string_view opt) {
  std::string_view value;
  if (auto eq = opt.find('='); eq != std::string_view::npos) value = opt.substr(eq + 1), opt = opt.substr(0, eq);
  return optionMatches(opt, "-color") && (value.empty() || value == "always" || value == "auto" || value == "never");
}

/// Parses options from words[i] on (ip's order: the first option a prefix matches wins, so `-b`
/// is -batch and `-br` -brief, as in ip.c); returns the index of the first other word.
std::size_t parseOptions(const std::vector<std::string>& words, std::size_t i, Parsed& p, bool tc = false) {
  auto value = [&](std::string_view option) -> std::string {
    if (i + 1 >= words.size()) throw UsageError(fmt::format("option \"{}\" needs a value", option));
    return words[++i];
  };
  for (; i < words.size() && words[i].size() > 1 && words[i][0] == '-'; ++i) {
    std::string_view opt = words[i];
    if (opt.starts_with("--")) opt.remove_prefix(1);  // iproute2 accepts --json as -json
    auto is = [&](std::string_view name) { return optionMatches(opt, name); };
    if (tc && is("-help")) {  // tc.c has no -human: its `-h` is -help
      p.tcHelp = true;
      continue;
    }
    if (tc && (is("-loops") || is("-human") || is("-resolve")))
      throw UsageError(fmt::format("option \"{}\" is unknown to tc, try \"fastlink tc help\"", words[i]));
    // ip.c's order: `-l` is -loops, `-h` -human (fastlink's help is -help, -he, `help`), `-r`
    // -resolve, `-t` -timestamp, `-ts` -tshort, `-i` -iec.
    if (is("-loops")) p.options.maxFlushLoops = std::atoi(value(opt).c_str());  // ip's atoi: "x" is 0
    else if (is("-family")) parseFamily(value(opt), p.options, p.names);
    else if (opt == "-4") p.options.family = FamilyOption::Inet, p.names.family = OtherFamily::None;
    else if (opt == "-6") p.options.family = FamilyOption::Inet6, p.names.family = OtherFamily::None;
    else if (opt == "-0") p.options.family = FamilyOption::Link, p.names.family = OtherFamily::None;
    else if (opt == "-M") p.options.family = FamilyOption::Any, p.names.family = OtherFamily::Mpls;
    else if (opt == "-B") p.options.family = FamilyOption::Any, p.names.family = OtherFamily::Bridge;
    else if (is("-human") || is("-human-readable")) p.options.human = true;
    else if (is("-iec")) p.options.iec = true;
    else if (is("-stats") || is("-statistics")) ++p.options.stats;
    else if (is("-details")) p.options.details = true;
    else if (is("-resolve")) p.names.resolve = true;
    else if (is("-oneline")) p.options.oneline = true;
    else if (is("-timestamp")) p.options.timestamp = true;
    else if (is("-tshort")) p.options.timestamp = p.options.timestampShort = true;
    else if (is("-Version")) p.version = true;
    else if (is("-force")) p.options.force = true;
    else if (is("-batch")) p.options.batchFile = value(opt);
    else if (is("-brief")) p.options.brief = true;
    else if (is("-json")) p.options.json = true;
    else if (is("-pretty")) p.options.pretty = true;
    else if (is("-rcvbuf")) p.options.rcvbuf = static_cast<int>(parseU32(value(opt), "-rcvbuf", 4096, 1u << 30));
    else if (isColorOption(opt)) continue;
    else if (is("-help")) p.help = true;
    else if (is("-netns")) p.options.netns = value(opt);
    else if (is("-Numeric")) p.names.numeric = true;
    else if (is("-all")) p.options.all = true;
    else if (opt == "-echo")
      throw UsageError(fmt::format("option \"{}\" of ip is not supported by fastlink", words[i]));
    else if (is("-window")) p.options.window = parseU32(value(opt), "-window", 1, 1u << 20);
    else throw UsageError(fmt::format("option \"{}\" is unknown, try \"fastlink -help\"", words[i]));
  }
  return i;
}

/// The binary run as `nmstatectl` (a symlink, FASTLINK_INSTALL_NMSTATECTL) is `fastlink
/// nmstatectl`: its words are nmstatectl's, none of them fastlink's options.
bool runAsNmstatectl(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  return std::strcmp(slash ? slash + 1 : argv0, "nmstatectl") == 0;
}

Parsed parseGlobalOptions(int argc, char** argv) {
  Parsed p;
  std::vector<std::string> words(argv + 1, argv + argc);
  if (argc > 0 && runAsNmstatectl(argv[0])) {
    p.rest = {"nmstatectl"};
    p.rest.insert(p.rest.end(), words.begin(), words.end());
    return p;
  }
  std::size_t i = parseOptions(words, 0, p);
  // tc takes its options after its name (`tc -s qdisc show`): `fastlink tc -s qdisc show` too.
  if (i < words.size() && words[i] == "tc") {
    std::size_t after = parseOptions(words, i + 1, p, true);
    words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.begin() + static_cast<std::ptrdiff_t>(after));
  }
  p.rest.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  return p;
}

int dispatch(Context& ctx, std::vector<std::string> words) {
  if (words[0] != kHelpCompleteWord) {
    words[0] = resolveIpObject(words[0]);  // `ip a s`, `ip ro sh`: as ip's matches() reads them
    resolveIpVerb(words);
    if (const ObjectCommand* command = findCommand(words[0])) {
      std::vector<std::string> named = words;
      named[0] = command->name;
      checkFamilyObject(named);
    }
  }
  Args args(std::move(words));
  std::string object = args.next();
  if (object == kHelpCompleteWord) return runHelpComplete(args, usage());  // for completions/fastlink.bash
  if (object == "help") return printUsage(usage());  // ip's do_help: its usage(), on stderr, status 255
  const ObjectCommand* command = findCommand(object);
  if (!command && isIpObject(object))  // ip's xfrm, netns, ntable, ...: a usage error, as ip's for a word it lacks
    throw UsageError(fmt::format("object \"{}\" of ip is not supported by fastlink", object));
  if (!command) throw BadValueError(fmt::format("object \"{}\" is unknown, try \"fastlink help\"", object));
  return command->run(ctx, args);
}

int run(int argc, char** argv) {
  Parsed p = parseGlobalOptions(argc, argv);
  if (p.version) {
    printLine(kVersionText);
    return kExitOk;
  }
  if (p.tcHelp) {  // `tc -help` prints tc's usage and exits 0
    printLine(usage());
    return kExitOk;
  }
  if (p.help) return printUsage(usage());  // `ip -help`: usage() on stderr, exit(-1)
  ipNameOptions = p.names;
  fastlink::setWarningHandler(printKernelWarning);  // htb's "quantum ... is big", as ip and tc print it
  // `tc -batch FILE` (tc's options after its name): the file's lines are tc commands.
  if (p.options.batchFile && p.rest.size() == 1 && p.rest[0] == "tc") p.options.batchObject = "tc", p.rest.clear();
  Context ctx(p.options);
  if (p.options.batchFile) {
    if (!p.rest.empty()) throw UsageError("-batch takes no command on the command line");
    return runBatchFile(ctx, *p.options.batchFile);
  }
  if (p.rest.empty()) return printUsage(usage());
  return dispatch(ctx, std::move(p.rest));
}

}  // namespace
}  // namespace fastlink::cli

int main(int argc, char** argv) {
  using namespace fastlink::cli;
  try {
    return run(argc, argv);
  } catch (const BadValueError& e) {
    printError(e.what());
    return kExitBadValue;
  } catch (const UsageError& e) {
    printError(e.what());
    return kExitUsage;
  } catch (const fastlink::Error& e) {
    // Failures outside a request (opening the -n namespace, a dump): the kernel's or the OS's word.
    return reportFailure(e);
  } catch (const std::exception& e) {
    printError(e.what());
    return kExitFailed;
  }
}
