// The `tcp_metrics` object (also `tcpmetrics`): the kernel's TCP metrics cache
// (fastlink/tcp_metrics.hpp), with ip's grammar, abbreviations, text and -j output, exit statuses:
//   fastlink tcp_metrics { show | flush } [ [ address ] PREFIX ] [ source ADDRESS ]
//   fastlink tcp_metrics delete [ address ] ADDRESS [ source ADDRESS ]
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastlink/netlink.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/tcp_metrics.hpp"
#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/failure.hpp"
#include "kit/fields.hpp"
#include "kit/ip_compat.hpp"
#include "kit/json_float.hpp"
#include "kit/output.hpp"
#include "rtnl/ip_object.hpp"

namespace fastlink::cli {
namespace {

constexpr const char* kUsage = R"(Usage: fastlink tcp_metrics/tcpmetrics { COMMAND | help }
       fastlink tcp_metrics { show | flush } SELECTOR
       fastlink tcp_metrics delete [ address ] ADDRESS
SELECTOR := [ [ address ] PREFIX ] [ source ADDRESS ]
       (-4/-6: one family; -j prints JSON; -s/-s -s: flush rounds and entries; see docs/cli/tcp_metrics.md))";

enum class Verb { Show, Delete, Flush };

/// What the command selects: a prefix (or exact address) of the destination, an exact source.
struct Selector {
  std::optional<Prefix> destination;
  std::optional<IpAddress> source;
  std::optional<IpAddress::Family> family;  ///< -4/-6

  /// The destination when it is one address (a full-length prefix), as ip's `atype`.
  std::optional<IpAddress> exactDestination() const {
    if (destination && destination->isHost()) return destination->address();
    return std::nullopt;
  }
  /// ip's process_msg filter: the family (-4/-6, else the prefix's), the destination prefix, the
  /// source when the entry has one.
  bool selects(const TcpMetricsEntry& e) const {
    auto family = destination ? std::optional(destination->family()) : this->family;
    if (family && e.destination.family() != *family) return false;
    if (destination && !destination->contains(e.destination)) return false;
    if (e.source) {
      auto sourceFamily = source ? std::optional(source->family()) : this->family;
      if (sourceFamily && e.source->family() != *sourceFamily) return false;
      if (source && *e.source != *source) return false;
    }
    return true;
  }
};

/// One entry in ip's order and words (ip's print_tcp_metrics and process_msg).
void writeEntry(FieldOut& f, const TcpMetricsEntry& e, bool deleted) {
  if (deleted) f.any("deleted", true, "{}", std::string("Deleted "));
  f.any("dst", "{}", e.destination.toString());
  if (e.ageMs) {
    double age = static_cast<double>(*e.ageMs) / 1000.;
    f.any("age", ipJsonFloat(age), " age {:.3f}sec", age);
  }
  if (e.twTsStamp) f.any("tw_ts_stamp", " tw_ts {} ago", fmt::format("{}/{}", e.twTsval.value_or(0), *e.twTsStamp));
  auto metric = [&](const char* name, const std::optional<uint32_t>& v) {
    if (v) f.any(name, *v, " {}", fmt::format("{} {}", name, *v));
  };
  metric("ssthresh", e.ssthresh);
  metric("cwnd", e.cwnd);
  metric("reordering", e.reordering);
  if (uint64_t rtt = e.rttMicros()) f.any("rtt", ipJsonFloat(static_cast<double>(rtt) / 1e6), " rtt {}us", rtt);
  if (uint64_t var = e.rttVarMicros()) f.any("rttvar", ipJsonFloat(static_cast<double>(var) / 1e6), " rttvar {}us", var);
  if (e.fastOpenMss) f.any("fopen_miss", " fo_mss {}", unsigned{*e.fastOpenMss});  // ip's key, sic
  if (e.fastOpenSynDrops) {
    f.any("fopen_syn_drops", " fo_syn_drops {}", unsigned{*e.fastOpenSynDrops});
    double ts = static_cast<double>(e.fastOpenSynDropTs.value_or(0)) / 1000000.;  // ip's unit, as ip divides
    f.any("fopen_syn_drop_ts", ipJsonFloat(ts), "/{:.3f}usec ago", ts);
  }
  if (!e.fastOpenCookie.empty()) {
    std::string hex;
    for (std::size_t i = 0; i < e.fastOpenCookie.size() && i < 16; ++i) hex += fmt::format("{:02x}", e.fastOpenCookie[i]);
    f.any("fo_cookie", " fo_cookie {}", hex);
  }
  if (e.source) f.any("source", " source {}", e.source->toString());
}

/// One entry as its text line, outside any JSON writer (`deleted`: -s -s flush's "Deleted ").
void printTextLine(const TcpMetricsEntry& e, bool deleted) {
  std::string line;
  FieldOut f(line);
  writeEntry(f, e, deleted);
  std::fputs((line + "\n").c_str(), stdout);
}

int run(Context& ctx, Args& args, Verb verb) {
  if (ctx.options().family == FamilyOption::Link)  // ip: "Unsupported protocol family: 17" (1)
    throw BadValueError("tcp_metrics: -0 is not a family tcp_metrics has (-4, -6)");
  Selector sel;
  sel.family = familyOption(ctx);
  while (!args.done()) {
    if (args.peek() == "src" || args.peek() == "source") {
      std::string who = args.next();
      const std::string& word = args.value(who);
      if (matches(word, "help")) throw UsageError(kUsage);
      if (sel.source) throw UsageError(fmt::format("either \"{}\" is duplicate, or \"{}\" is a garbage.", who, word));
      Prefix p = parseIpPrefix(ctx, word);
      if (!p.isHost()) throw BadValueError(fmt::format("a specific IP address is expected rather than \"{}\"", word));
      sel.source = p.address();
    } else {
      std::string who = "address";
      bool keyword = args.peek() == "addr" || args.peek() == "address";
      if (keyword) who = args.next();
      const std::string& word = keyword ? args.value(who) : args.next();
      if (matches(word, "help")) throw UsageError(kUsage);
      if (sel.destination) throw UsageError(fmt::format("either \"{}\" is duplicate, or \"{}\" is a garbage.", who, word));
      sel.destination = parseIpPrefix(ctx, word);
      if (verb == Verb::Delete && !sel.destination->isHost())
        throw BadValueError(fmt::format("a specific IP address is expected rather than \"{}\"", word));
    }
  }
  if (verb == Verb::Delete && !sel.destination) throw UsageError("tcp_metrics delete: argument \"address\" is required");
  std::optional<IpAddress> exact = sel.exactDestination();
  if (verb == Verb::Flush && exact) verb = Verb::Delete;  // ip: a flush of one address is its delete
  Netlink& nl = ctx.netlink();
  TcpMetricsApi& metrics = nl.tcpMetrics();
  try {
    if (verb == Verb::Delete) {
      metrics.remove(*exact, sel.source);
      return kExitOk;
    }
    if (verb == Verb::Flush && (!sel.destination || sel.destination->isDefault()) && !sel.source && !sel.family) {
      metrics.flushAll();  // ip: one DEL without an address, the kernel empties the cache
      return kExitOk;
    }
    if (verb == Verb::Show && exact) {
      // ip answers a get outside its JSON writer: text, also with -j.
      printTextLine(metrics.get(*exact, sel.source), false);
      return kExitOk;
    }
  } catch (const Error& e) {
    return reportFailure(e);
  }
  // The entries the selectors keep; false when the dump failed (reported).
  std::vector<TcpMetricsEntry> entries;
  auto readSelected = [&] {
    try {
      for (TcpMetricsEntry& e : metrics.list())
        if (sel.selects(e)) entries.push_back(std::move(e));
      return true;
    } catch (const Error& e) {
      reportFailure(e);
      return false;
    }
  };
  if (!readSelected()) return kExitBadValue;  // ip: "Dump terminated" / "Flush terminated", exit status 1
  if (verb == Verb::Show) {
    printRecords(entries, ctx.options().json, ctx.options().pretty,
                 [&](FieldOut& f, const TcpMetricsEntry& e) { writeEntry(f, e, false); });
    return kExitOk;
  }
  // A selective flush: rounds of a dump and a delete of each entry it selects, until a dump
  // selects none (ip's loop; -s prints the rounds, -s -s the entries).
  int stats = ctx.options().stats;
  for (int round = 0;; ++round) {
    if (entries.empty()) {
      if (round == 0) std::fputs("Nothing to flush.\n", stderr);  // ip's words, not an error: status 0
      else if (stats) std::printf("*** Flush is complete after %d round%s ***\n", round, round > 1 ? "s" : "");
      std::fflush(stdout);
      return kExitOk;
    }
    try {
      for (const TcpMetricsEntry& e : entries) {
        if (stats >= 2) printTextLine(e, true);
        metrics.remove(e.destination, e.source);
      }
    } catch (const Error& e) {
      reportFailure(e);
      return kExitBadValue;  // ip exits 1 when a flush request fails
    }
    if (stats) std::printf("\n*** Round %d, deleting %zu entries ***\n", round + 1, entries.size());
    entries.clear();
    if (!readSelected()) return kExitBadValue;
  }
}

int runTcpMetrics(Context& ctx, Args& args) {
  // ip's table order decides an abbreviation: list, lst, show, delete, remove, flush; then help
  // (ip prints its usage and exits 255).
  return runIpVerbs(ctx, args, kUsage, "tcp_metrics verbs: show, delete, flush, help",
                    {{{"list", "lst", "show"}, [](Context& c, Args& a) { return run(c, a, Verb::Show); }},
                     {{"delete", "remove"}, [](Context& c, Args& a) { return run(c, a, Verb::Delete); }},
                     {{"flush"}, [](Context& c, Args& a) { return run(c, a, Verb::Flush); }}});
}

const Registrar kTcpMetrics{ObjectCommand{
    .name = "tcp_metrics", .aliases = {"tcpmetrics"}, .usage = kUsage, .run = runTcpMetrics, .prepare = {}}};

}  // namespace
}  // namespace fastlink::cli
