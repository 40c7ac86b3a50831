// QdiscInfo / ClassInfo <-> RTM_{NEW,DEL,GET}{QDISC,TCLASS} messages (tcmsg + TCA_*), and the
// per-kind option and statistics codecs they share (tc_options.cpp).
#pragma once

#include <linux/netlink.h>

#include <functional>
#include <string>

#include "fastlink/tc.hpp"
#include "rtnl/codec_helpers.hpp"

namespace fastlink::rtnl {

/// Rounds to the nearest integer, halves away from zero (std::llround for the values tc has);
/// 0 for values that are not positive. Written out so that the CLI does not load libm for its
/// only two calls: a shared library costs every process start ~50 µs (docs/BENCHMARKS.md,
/// "CLI start-up"). `v - whole` is exact below 2^52, above which every double is whole.
inline uint64_t roundToUnsigned(double v) {
  if (!(v > 0)) return 0;
  if (v >= 4503599627370496.0) return v >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(v);
  auto whole = static_cast<uint64_t>(v);
  return whole + (v - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

/// Kernel scheduler ticks (64 ns on every kernel since 2.6.x, read from /proc/net/psched when
/// present) <-> microseconds, as tc converts burst times.
double ticksPerMicrosecond();
/// Ticks to send `bytes` at `rate` bytes/s (tc's tc_calc_xmittime).
uint32_t xmitTicks(uint64_t rate, uint32_t bytes);
/// Bytes sent at `rate` during `ticks` (tc's tc_calc_xmitsize).
uint32_t xmitSize(uint64_t rate, uint32_t ticks);
/// The kernel's HZ for default bursts (tc's get_hz: /proc/net/psched's 4th field).
uint64_t schedulerHz();

/// The operation an error names ("qdisc replace dev 7 root pfifo"), formatted only when an error
/// is thrown: a batch of 10,000 good requests formats none.
using Operation = std::function<std::string()>;

/// Validates `options` against `kind` (isClass: options of a class of that kind) and appends
/// TCA_OPTIONS. Throws Error(EINVAL) naming `operation`.
void encodeTcOptions(core::MessageWriter& w, const std::string& kind, const TcOptions& options, bool isClass,
                     const Operation& operation);
/// TCA_OPTIONS of a `kind` qdisc or class; unknown kinds (and undecodable payloads) kept raw.
TcOptions decodeTcOptions(const std::string& kind, const nlattr* options, bool isClass);
/// TCA_STATS2 (with TCA_STATS_APP decoded by `kind`).
TcStats decodeTcStats(const std::string& kind, const nlattr* stats2, bool isClass);

/// Builders and decoders of the two objects.
Request encodeQdisc(const QdiscInfo& q, Verb verb);
Request encodeClass(const ClassInfo& c, Verb verb);
/// Decodes one RTM_NEWQDISC / RTM_NEWTCLASS message (dev as an ifindex).
void decodeQdisc(const nlmsghdr* message, QdiscInfo& out);
void decodeClass(const nlmsghdr* message, ClassInfo& out);

}  // namespace fastlink::rtnl
