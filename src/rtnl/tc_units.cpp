// tc's units: rates, sizes, times and percentages parsed and printed the way `tc` (iproute2
// 6.1) does, so that `fastlink tc` reads the same words and prints the same text.
#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fastlink/error.hpp"
#include "fastlink/tc_options.hpp"
#include "rtnl/tc_codec.hpp"

namespace fastlink::tcunits {
namespace {

struct Scale {
  const char* suffix;
  double factor;
};

// Bits per second per unit, as tc reads them (case-insensitive).
constexpr Scale kRates[] = {{"bit", 1.},         {"kibit", 1024.},       {"kbit", 1e3},          {"mibit", 1048576.},
                            {"mbit", 1e6},       {"gibit", 1073741824.}, {"gbit", 1e9},          {"tibit", 1099511627776.},
                            {"tbit", 1e12},      {"bps", 8.},            {"kibps", 8. * 1024},   {"kbps", 8e3},
                            {"mibps", 8. * 1048576}, {"mbps", 8e6},      {"gibps", 8. * 1073741824}, {"gbps", 8e9},
                            {"tibps", 8. * 1099511627776.}, {"tbps", 8e12}};

constexpr Scale kSizes[] = {{"", 1.},          {"b", 1.},           {"k", 1024.},          {"kb", 1024.},
                            {"kbit", 1024. / 8}, {"m", 1048576.},   {"mb", 1048576.},      {"mbit", 1048576. / 8},
                            {"g", 1073741824.}, {"gb", 1073741824.}, {"gbit", 1073741824. / 8}};

constexpr Scale kTimes[] = {{"", 1.},        {"us", 1.},   {"usec", 1.},   {"usecs", 1.},   {"ms", 1e3},  {"msec", 1e3},
                            {"msecs", 1e3},  {"s", 1e6},   {"sec", 1e6},   {"secs", 1e6}};

Error bad(std::string_view what, std::string_view text, const std::string& why) {
  return Error::invalidArgument(std::string(what), "\"" + std::string(text) + "\" " + why);
}

std::string printf(const char* format, auto... values) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, values...);
  return buf;
}

/// The number at the start of `text` and the unit after it.
std::pair<double, std::string> split(std::string_view text, std::string_view what) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || !std::isfinite(v)) throw bad(what, text, "is not a number");
  if (v < 0) throw bad(what, text, "is negative");
  return {v, std::string(end)};
}

template <std::size_t N>
double scaled(std::string_view text, std::string_view what, const Scale (&table)[N], const char* units) {
  auto [v, unit] = split(text, what);
  for (const auto& s : table)
    if (strcasecmp(unit.c_str(), s.suffix) == 0) return v * s.factor;
  throw bad(what, text, std::string("has an unknown unit (") + units + ")");
}

}  // namespace

uint64_t parseRate(std::string_view text, std::string_view what) {
  auto [v, unit] = split(text, what);
  if (unit.empty())
    throw bad(what, text, "has no unit (bit, kbit, mbit, gbit, tbit, bps, kbps, mbps, gbps; kibit, mibit, ...)");
  double bits = scaled(text, what, kRates, "bit, kbit, mbit, gbit, tbit, bps, kbps, mbps, gbps, kibit, ...");
  double bytes = bits / 8;
  if (bytes >= 18446744073709551615.0) throw bad(what, text, "is too large");
  if (bytes < 1) throw bad(what, text, "is below 1 byte per second");
  return static_cast<uint64_t>(bytes);
}

uint32_t parseSize(std::string_view text, std::string_view what) {
  double v = scaled(text, what, kSizes, "b, k, kb, kbit, m, mb, mbit, g, gb, gbit");
  if (v > 4294967295.0) throw bad(what, text, "is too large (at most 4gb - 1)");
  return static_cast<uint32_t>(v);
}

uint64_t parseTime(std::string_view text, std::string_view what) {
  double v = scaled(text, what, kTimes, "s, ms, us (or sec, msec, usec)");
  if (v >= 1.8e19) throw bad(what, text, "is too large");
  return rtnl::roundToUnsigned(v);
}

double parsePercent(std::string_view text, std::string_view what) {
  auto [v, unit] = split(text, what);
  if (!unit.empty() && unit != "%") throw bad(what, text, "is not a percentage (N% or N)");
  if (v > 100) throw bad(what, text, "is above 100%");
  return v / 100;
}

std::string rateText(uint64_t bytesPerSecond, bool iec) {
  // tc's print_color_rate: divide while the rate is a whole multiple of the unit or at least
  // 1000 units (1000 * 1024 with -iec too); "i" after the prefix with -iec.
  static const char* const kUnits[] = {"", "K", "M", "G", "T"};
  const uint64_t kilo = iec ? 1024 : 1000;
  uint64_t rate = bytesPerSecond * 8;
  std::size_t i = 0;
  for (; i < 4; ++i) {
    if (rate < kilo) break;
    if (rate % kilo != 0 && rate < 1000 * kilo) break;
    rate /= kilo;
  }
  return printf("%llu%s%sbit", static_cast<unsigned long long>(rate), kUnits[i], iec && i > 0 ? "i" : "");
}

std::string sizeText(uint32_t bytes) {
  double kilo = 1024, mega = kilo * kilo, v = bytes;
  if (bytes >= mega && std::fabs(mega * std::rint(v / mega) - v) < 1024) return printf("%gMb", std::rint(v / mega));
  if (bytes >= kilo && std::fabs(kilo * std::rint(v / kilo) - v) < 16) return printf("%gKb", std::rint(v / kilo));
  return std::to_string(bytes) + "b";
}

std::string timeText(uint64_t us) {
  double v = static_cast<double>(us);
  // tc 6.1's print_time: three significant digits ("40ms", "1.5s", "2.5ms").
  if (us >= 1000000) return printf("%.3gs", v / 1e6);
  if (us >= 1000) return printf("%.3gms", v / 1e3);
  return std::to_string(us) + "us";
}

std::string time64Text(uint64_t ns) {
  double v = static_cast<double>(ns);
  auto g3 = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return std::string(buf);
  };
  if (ns >= 1000000000) return g3(v / 1e9) + "s";
  if (ns >= 1000000) return g3(v / 1e6) + "ms";
  if (ns >= 1000) return g3(v / 1e3) + "us";
  return std::to_string(ns) + "ns";
}

}  // namespace fastlink::tcunits
