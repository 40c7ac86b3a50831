// Byte builders the tc golden tests share (qdisc and class options, filters, actions): the
// kernel's tc structs written out by hand, so that a wrong field in src/ is a byte difference.
#pragma once

#include <initializer_list>

#include "unit/golden.hpp"

namespace fastlink::test {

/// The parts, one after another.
inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

/// tc_ratespec: cell_log, linklayer ethernet (1), overhead 0, cell_align, mpu 0, rate.
inline Bytes ratespec(uint32_t rate, uint8_t cellLog = 0, uint16_t cellAlign = 0) {
  Bytes b = {cellLog, 1, 0, 0, static_cast<uint8_t>(cellAlign), static_cast<uint8_t>(cellAlign >> 8), 0, 0};
  appendLe32(b, rate);
  return b;
}

/// tc_gen (index, capab, action, refcnt, bindcnt) followed by an action kind's words.
inline Bytes gen(uint32_t index, int32_t action, std::initializer_list<uint32_t> more = {}, uint32_t refcnt = 0,
                 uint32_t bindcnt = 0) {
  Bytes b = le32s({index, 0, static_cast<uint32_t>(action), refcnt, bindcnt});
  for (uint32_t w : more) appendLe32(b, w);
  return b;
}

/// One action of a list: nest ORDER { TCA_ACT_KIND (1), TCA_ACT_OPTIONS (2) { ... } }.
inline Attrs action(uint16_t order, const char* kind, const Attrs& options) {
  return Attrs().nest(order, Attrs().str(1, kind).nest(2, options));
}

}  // namespace fastlink::test
