// fmt's out-of-line part, compiled once for the CLI.
//
// Why not FMT_HEADER_ONLY: it makes every CLI source compile fmt's whole implementation again,
// which doubled the CLI's build time (and more under the sanitizers). Why not libfmt.so: the CLI
// links its libraries statically so a short command does not pay the dynamic loader
// (docs/BENCHMARKS.md, "CLI start-up"), and Debian ships no libfmt.a. So this file defines, once,
// what fmt's headers declare but leave to its library: the non-template functions of
// format-inl.h, and the templates format.h declares `extern` or uses undefined.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
