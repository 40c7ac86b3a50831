// `fastlink nmstatectl ...`, and the same binary run as `nmstatectl` (main.cpp turns argv[0]
// `nmstatectl` into this command): the command lines kubernetes-nmstate's handler sends
// (pkg/nmstatectl/nmstatectl.go, pkg/probe/probes.go, pkg/nmpolicy/generate.go), answered by
// `fastlink apply`, `commit`, `rollback` and the state document, with nmstatectl's exit
// statuses (nmstate's rust/src/cli/error.rs: 1 any failure, 2 a usage error, as clap exits,
// 65 a --timeout that is not a number). docs/cli/nmstatectl.md lists what is honoured and what
// is refused.
//
// apply/commit/rollback run the registered `apply`, `commit` and `rollback` commands as they
// are (state/apply_command.cpp), so the journal, the --confirm watchdog and the messages are theirs;
// this file maps nmstate's options and statuses onto them and prints nmstate's `show`.
#include <nlohmann/json.hpp>
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/route.hpp"
#include "fastlink/state.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/output.hpp"
#include "kit/version.hpp"
#include "state/apply_journal.hpp"

namespace fastlink::cli {
namespace {

using Json = nlohmann::ordered_json;

// nmstatectl's exit statuses (rust/src/cli/error.rs; clap exits 2 on a usage error).
constexpr int kNmstateFailed = 1;
constexpr int kNmstateUsage = 2;
constexpr int kNmstateDataError = 65;  // EX_DATAERR
constexpr uint32_t kNmstateDefaultTimeout = 60;  // apply.rs's DEFAULT_TIMEOUT

constexpr const char* kUsage = R"(Usage: fastlink nmstatectl [ -v | -vv | -vvv | -q ] COMMAND
COMMAND := { show [ --json ] [ -k ] [ -s ] [ IFNAME ]... |
             { apply | set | a } [ --no-commit ] [ --timeout SECONDS ] [ -k ] [ --memory-only ] [ FILE ] |
             commit | rollback |
             policy [ --json ] [ --current FILE ] [ --captured FILE ] [ --output-captured FILE ] FILE |
             version }
The nmstatectl commands kubernetes-nmstate's handler sends, answered by fastlink apply, commit,
rollback and show state, with nmstatectl's exit statuses: 0 success, 1 failure, 2 usage error,
65 a --timeout that is not a number. The binary run as nmstatectl (a symlink) is this command.
                                                                (see docs/cli/nmstatectl.md))";

class NmstateUsage : public UsageError {
 public:
  using UsageError::UsageError;
};

/// nmstate's global flags (`-v`, `-vv`, `-vvv`, `-q`), which clap takes anywhere: fastlink logs
/// nothing more with them.
bool isLogFlag(const std::string& word) {
  if (word == "-q" || word == "--quiet" || word == "--verbose") return true;
  return word.size() > 1 && word[0] == '-' && word.find_first_not_of('v', 1) == std::string::npos;
}

/// The words after the command, without the log flags.
std::vector<std::string> wordsOf(Args& args) {
  std::vector<std::string> words;
  while (!args.done()) {
    std::string w = args.next();
    if (!isLogFlag(w)) words.push_back(std::move(w));
  }
  return words;
}

[[noreturn]] void refuse(const std::string& what) { throw NmstateUsage(what); }

/// Runs a registered fastlink command with `words` after its name.
int runCommand(Context& ctx, const char* name, std::vector<std::string> words) {
  Args args(std::move(words));
  return findCommand(name)->run(ctx, args);
}

// ---- show --------------------------------------------------------------------------------------

/// A YAML scalar: plain when it cannot be read as anything but this string, else JSON's quoting
/// (YAML reads a JSON string as the same string). MACs and addresses hold ':' and are quoted:
/// YAML 1.1 readers take 00:11:22 for a number.
std::string yamlScalar(const Json& v) {
  if (!v.is_string()) return v.dump();
  const std::string& s = v.get_ref<const std::string&>();
  static const char* const kReserved[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* r : kReserved) plain = plain && lower != r;
  return plain ? s : v.dump();
}

/// Block-style YAML of a JSON value (what nmstatectl prints): maps as `key: value`, lists as `- `.
void appendYaml(std::string& out, const Json& v, const std::string& indent) {
  auto simple = [](const Json& x) { return !x.is_structured() || x.empty(); };
  auto inlineOf = [](const Json& x) { return x.is_array() ? std::string("[]") : x.is_object() ? std::string("{}") : yamlScalar(x); };
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      out += indent + key + ":";
      if (simple(value)) out += " " + inlineOf(value) + "\n";
      else {
        out += "\n";
        appendYaml(out, value, indent + "  ");
      }
    }
  } else if (v.is_array()) {
    for (const auto& value : v) {
      if (simple(value)) {
        out += indent + "- " + inlineOf(value) + "\n";
        continue;
      }
      // The first line of the item goes after "- ", the rest at the item's indentation.
      std::string item;
      appendYaml(item, value, indent + "  ");
      out += indent + "- " + item.substr(indent.size() + 2);
    }
  }
}

/// A document as nmstatectl prints it: YAML, or JSON with --json.
void printDocument(const Json& document, bool json) {
  std::string text;
  if (json) text = document.dump(2) + "\n";
  else appendYaml(text, document, "");
  std::fwrite(text.data(), 1, text.size(), stdout);
}

/// The DNS resolver the host uses, from resolv.conf (nmstate asks NetworkManager; fastlink has
/// no daemon to ask): `nameserver` and `search` lines. With -n NS, /etc/netns/NS/resolv.conf
/// when it exists, as `ip netns exec NS` bind-mounts it over /etc/resolv.conf.
Json dnsRunning(const Context& ctx) {
  std::string path = "/etc/resolv.conf";
  if (ctx.options().netns) {
    std::string own = "/etc/netns/" + *ctx.options().netns + "/resolv.conf";
    if (std::ifstream(own).good()) path = own;
  }
  Json servers = Json::array(), search = Json::array();
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key, word;
    words >> key;
    if (key == "nameserver" && words >> word) servers.push_back(word);
    else if (key == "search")
      while (words >> word) search.push_back(word);
  }
  return Json{{"search", search}, {"server", servers}};
}

/// nmstate's `routes.running` (nispor/route.rs): the routes of the protocols it reports (boot,
/// static, ra, dhcp, mrouted, keepalived, babel), of scope global or link, a multipath route as
/// one entry per path; `next-hop-address` 0.0.0.0 or :: when there is no gateway.
Json runningRoutes(Netlink& nl) {
  DeviceNames names;
  names.load(nl.links());
  auto nameOf = [&](const std::optional<Ifref>& dev) -> std::string {
    if (!dev) return "";
    if (dev->isName()) return dev->name();
    const std::string* name = names.find(dev->index());
    return name ? *name : dev->toString();
  };
  static const uint8_t kProtocols[] = {3, 4, 9, 16, 17, 18, 42};  // boot static ra dhcp mrouted keepalived babel
  Json running = Json::array();
  for (const RouteInfo& r : nl.routes().list()) {
    uint8_t protocol = static_cast<uint8_t>(r.protocol.value_or(RouteProtocol::Unspec));
    if (std::find(std::begin(kProtocols), std::end(kProtocols), protocol) == std::end(kProtocols)) continue;
    Scope scope = r.scope.value_or(Scope::Universe);
    if (scope != Scope::Universe && scope != Scope::Link) continue;
    bool v6 = r.dst ? !r.dst->address().isV4() : r.gateway && !r.gateway->isV4();
    std::string destination = r.dst ? r.dst->toStringWithLength() : v6 ? "::/0" : "0.0.0.0/0";
    auto entry = [&](const std::optional<IpAddress>& gateway, const std::optional<Ifref>& dev) {
      Json e{{"destination", destination},
             {"next-hop-interface", nameOf(dev)},
             {"next-hop-address", gateway ? gateway->toString() : v6 ? "::" : "0.0.0.0"}};
      if (r.metric) e["metric"] = *r.metric;
      e["table-id"] = r.table.value_or(kTableMain);
      running.push_back(std::move(e));
    };
    if (!r.paths.empty())
      for (const RoutePath& p : r.paths) entry(p.gateway, p.dev);
    else if (r.dev) entry(r.gateway, r.dev);
  }
  return running;
}

/// nmstatectl's `show`: fastlink's state document (`fastlink show state`) with the keys
/// nmstate's output adds for readers: `routes.running` and `dns-resolver.running`. Applying it
/// back (`nmstatectl show | nmstatectl set`) changes nothing: the parser accepts both keys and
/// configures nothing from them.
int runShow(Context& ctx, const std::vector<std::string>& words) {
  bool json = false;
  std::vector<std::string> names;  // `show IFNAME...`: those interfaces (globs, as nmstate's)
  for (const auto& w : words) {
    if (w == "--json") json = true;
    else if (w == "-k" || w == "--kernel" || w == "-s" || w == "--show-secrets") continue;  // fastlink is kernel-only and has no secrets here
    else if (w == "-r" || w == "--running-config") refuse("show " + w + " is not supported by fastlink");
    else if (!w.empty() && w[0] == '-') refuse("show: unexpected argument '" + w + "'");
    else names.push_back(w);
  }
  Netlink& nl = ctx.netlink();
  Json document = Json::parse(captureState(nl).toJson());
  Json out;
  out["dns-resolver"] = Json{{"running", dnsRunning(ctx)}};
  out["route-rules"] = document.value("route-rules", Json{{"config", Json::array()}});
  Json routes = document.value("routes", Json{{"config", Json::array()}});
  routes["running"] = runningRoutes(nl);
  out["routes"] = routes;
  Json interfaces = document.value("interfaces", Json::array());
  if (!names.empty()) {
    Json chosen = Json::array();
    for (const auto& iface : interfaces) {
      std::string name = iface.value("name", "");
      if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return ::fnmatch(n.c_str(), name.c_str(), 0) == 0; }))
        chosen.push_back(iface);
    }
    interfaces = std::move(chosen);
  }
  out["interfaces"] = interfaces;
  printDocument(out, json);
  return kExitOk;
}

// ---- apply / set, commit, rollback -------------------------------------------------------------

uint32_t timeoutOf(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) {
    printError("--timeout: invalid digit found in string \"" + text + "\"");
    throw std::out_of_range("timeout");
  }
  return static_cast<uint32_t>(std::stoul(text));
}

/// Beside the journal: the mark of an `apply --no-commit` that had nothing to change, for the
/// `commit` or `rollback` the handler sends next (fastlink writes no journal for such an apply).
std::string unchangedMarker(const Checkpoint& checkpoint) { return checkpoint.directory() + "/nmstatectl-unchanged"; }

/// nmstatectl apply: a transaction. Without --no-commit: apply, and keep it (fastlink commit)
/// when it was applied and verified, else roll it back (nmstate rolls back a change that fails
/// its verification). With --no-commit: `fastlink apply --confirm TIMEOUT`, rolled back unless
/// `nmstatectl commit` comes in time; a failed apply is rolled back at once.
int runApply(Context& ctx, const std::vector<std::string>& words) {
  bool noCommit = false;
  uint32_t timeout = kNmstateDefaultTimeout;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--no-commit") noCommit = true;
    else if (w == "--timeout" || w.starts_with("--timeout=")) {
      std::string value = w == "--timeout" ? (i + 1 < words.size() ? words[++i] : "") : w.substr(10);
      if (value.empty()) refuse("apply: a value is required for '--timeout <TIMEOUT>' but none was supplied");
      try {
        timeout = timeoutOf(value);
      } catch (const std::out_of_range&) {
        return kNmstateDataError;
      }
    } else if (w == "-k" || w == "--kernel" || w == "--memory-only" || w == "-s" || w == "--show-secrets") continue;
    else if (w == "--no-verify") refuse("apply --no-verify is not supported by fastlink (it always verifies)");
    else if (w != "-" && !w.empty() && w[0] == '-') refuse("apply: unexpected argument '" + w + "'");
    else files.push_back(w);
  }
  if (files.size() > 1) refuse("apply: one state file at a time (fastlink applies one document per transaction)");
  std::string file = files.empty() ? "-" : files[0];
  if (noCommit && (timeout < 1 || timeout > 86400)) {
    printError("--timeout: " + std::to_string(timeout) + " is not in 1-86400");
    return kNmstateDataError;
  }
  std::vector<std::string> applyWords;
  if (noCommit) applyWords = {"--confirm", std::to_string(timeout)};
  applyWords.push_back(file);
  Checkpoint checkpoint = checkpointOf(ctx);
  std::remove(unchangedMarker(checkpoint).c_str());
  auto journalId = [&] {
    auto record = checkpoint.record();
    return record ? record->id : std::string();
  };
  std::string before = journalId();
  int status = runCommand(ctx, "apply", applyWords);
  bool journalled = journalId() != before;  // this apply changed something
  if (status == kExitOk && !journalled) {
    if (noCommit) {
      Checkpoint::Lock lock = checkpoint.lock(false);
      std::ofstream(unchangedMarker(checkpoint)) << "an nmstatectl apply --no-commit that changed nothing\n";
    }
    return kExitOk;
  }
  if (status == kExitOk) return noCommit || runCommand(ctx, "commit", {}) == kExitOk ? kExitOk : kNmstateFailed;
  // A request failed or the verification found a difference: this apply's journal (a new one)
  // holds what to undo. Bad input, a pending or locked journal: nothing was sent, and a journal
  // there is another apply's.
  if (journalled) {
    printError("rolling back");
    runCommand(ctx, "rollback", {});
  }
  return kNmstateFailed;
}

int runCheckpointCommand(Context& ctx, const char* name, const std::vector<std::string>& words) {
  if (!words.empty()) refuse(std::string(name) + " CHECKPOINT is not supported by fastlink (one journal per namespace)");
  // After an apply --no-commit that changed nothing, nmstate has a checkpoint to commit or roll
  // back, fastlink no journal: both succeed and change nothing.
  Checkpoint checkpoint = checkpointOf(ctx);
  if (!checkpoint.record() && std::remove(unchangedMarker(checkpoint).c_str()) == 0) return kExitOk;
  // nmstate prints the checkpoint it acted on; fastlink's has no path to print.
  return runCommand(ctx, name, {}) == kExitOk ? kExitOk : kNmstateFailed;
}

// ---- policy ------------------------------------------------------------------------------------

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(std::error_code(errno, std::generic_category()), "policy: open " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// nmstatectl policy, as the handler calls it for every policy: the policy file (JSON, as the
/// handler writes it: {"capture": {...}, "desiredState": {...}}) without captures gives its
/// desiredState as it is. Captures (nmpolicy expressions) are refused; the captured states
/// written are none ({}).
int runPolicy(const std::vector<std::string>& words) {
  bool json = false;
  std::string policyFile, outputCaptured;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto value = [&] {
      if (i + 1 >= words.size()) refuse("policy: a value is required for '" + w + "'");
      return words[++i];
    };
    if (w == "--json") json = true;
    else if (w == "-c" || w == "--current" || w == "-a" || w == "--captured") value();  // no captures: nothing to read
    else if (w == "-o" || w == "--output-captured") outputCaptured = value();
    else if (!w.empty() && w[0] == '-') refuse("policy: unexpected argument '" + w + "'");
    else if (policyFile.empty()) policyFile = w;
    else refuse("policy: unexpected argument '" + w + "'");
  }
  if (policyFile.empty()) refuse("policy: the POLICY_FILE argument is required");
  Json policy = Json::parse(readFile(policyFile), nullptr, false);
  if (policy.is_discarded() || !policy.is_object()) {
    printError("policy: " + policyFile + " is not a JSON object (fastlink reads the policy as JSON, as the handler writes it)");
    return kNmstateFailed;
  }
  for (const auto& [key, value] : policy.items()) {
    if (key == "capture" && !value.empty()) {
      printError("policy: capture is not supported by fastlink (nmpolicy expressions); give the desired state without captures");
      return kNmstateFailed;
    }
    if (key != "capture" && key != "desiredState" && key != "desired") {
      printError("policy: " + key + ": unknown key");
      return kNmstateFailed;
    }
  }
  Json desired = policy.contains("desiredState") ? policy["desiredState"] : policy.value("desired", Json::object());
  // Checked now, as nmstate reads the desired state here: an unknown key fails the policy.
  State::parse(desired.dump(), policyFile + ": desiredState");
  if (!outputCaptured.empty()) {
    std::ofstream out(outputCaptured, std::ios::trunc);
    out << "{}\n";
    if (!out) throw Error(std::error_code(errno, std::generic_category()), "policy: write " + outputCaptured);
  }
  printDocument(desired, json);
  return kExitOk;
}

// ---- the command -------------------------------------------------------------------------------

int dispatch(Context& ctx, Args& args) {
  std::string command;
  while (!args.done() && command.empty()) {
    std::string w = args.next();
    if (w == "-V" || w == "--version") command = "version";
    else if (w == "-h" || w == "--help" || w == "help") {
      printLine(kUsage);
      return kExitOk;
    } else if (!isLogFlag(w)) command = w;
  }
  if (command.empty()) {
    std::fputs((std::string(kUsage) + "\n").c_str(), stderr);
    return kNmstateUsage;
  }
  std::vector<std::string> words = wordsOf(args);
  if (command == "show" || command == "s") return runShow(ctx, words);
  if (command == "apply" || command == "a" || command == "set") return runApply(ctx, words);
  if (command == "commit") return runCheckpointCommand(ctx, "commit", words);
  if (command == "rollback") return runCheckpointCommand(ctx, "rollback", words);
  if (command == "policy" || command == "p") return runPolicy(words);
  if (command == "version") {
    printLine(std::string("nmstatectl (") + kVersionText + ")");
    return kExitOk;
  }
  if (command == "statistic" || command == "st" || command == "edit" || command == "gc" || command == "service" ||
      command == "format" || command == "f" || command == "fmt" || command == "gr" || command == "autoconf" ||
      command == "persist-nic-names") {
    printError("nmstatectl " + command + " is not supported by fastlink");
    return kNmstateFailed;
  }
  refuse("unrecognized subcommand '" + command + "'");
}

int runNmstatectl(Context& ctx, Args& args) {
  return runWithUsageStatus(kNmstateUsage, [&] {
    try {
      return dispatch(ctx, args);
    } catch (const Error& e) {
      printError(e.what());
      return kNmstateFailed;
    }
  });
}

const Registrar kNmstatectl{ObjectCommand{.name = "nmstatectl", .aliases = {}, .usage = kUsage, .run = runNmstatectl, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
