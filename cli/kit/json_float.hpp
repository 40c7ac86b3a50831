// iproute2's JSON writer prints a double with printf's "%g" (6 significant digits, no ".0" on a
// whole number): `"age":0.328`, `"rtt":2.9e-05`, `"expires":1`. nlohmann prints the shortest
// round-trip form instead (1.0, 1234567.5), so a value is first rounded as %g rounds it and a
// whole number is handed over as an integer.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace fastlink::cli {

/// `v` as ip's print_float writes it in JSON (what nlohmann then prints the same way, up to
/// 1e6; larger values, which %g writes with an exponent, keep their digits).
inline nlohmann::json ipJsonFloat(double v) {
  double g = std::strtod(fmt::format("{:g}", v).c_str(), nullptr);
  if (std::isfinite(g) && g == std::floor(g) && std::fabs(g) < 1e15) return static_cast<int64_t>(g);
  return g;
}

}  // namespace fastlink::cli
