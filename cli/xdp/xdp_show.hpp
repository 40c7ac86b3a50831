// The XDP parts of `link show`, as iproute2 prints them (ip/iplink_xdp.c, lib/bpf_legacy.c):
//   text, first line:  "... mtu 1500 xdpgeneric qdisc ..."  (xdp | xdpgeneric | xdpoffload | xdpmulti)
//   text, own line:    "    prog/xdp id 42 name xdp_count tag 0afa56fcd9325709 jited "
//                      (-d adds "load_time N created_by_uid N btf_id N "; in multi mode one
//                      line per mode: prog/xdpgeneric, prog/xdpdrv, prog/xdpoffload)
//   JSON:              "xdp":{"mode":2,"prog":{"id":42,"name":..,"tag":..,"jited":1},
//                             "attached":[{"mode":2,"prog":{...}}]}
// Pure functions of the decoded status and a program lookup (the bpf syscall lives behind
// it), so the unit tests check every mode, multi included, without a kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "fastlink/xdp.hpp"

namespace fastlink::cli {

/// The program with this id as the kernel describes it; nullopt when it cannot be read (gone,
/// or no CAP_SYS_ADMIN): then only the id is printed, like ip.
using XdpProgramLookup = std::function<std::optional<BpfProgramInfo>(uint32_t id)>;

/// XdpProgram::info, with failures as nullopt.
std::optional<BpfProgramInfo> lookUpXdpProgram(uint32_t id);

/// The word after "mtu N" on the first line ("xdpgeneric", ...); empty when nothing is attached.
std::string_view xdpModeWord(const XdpStatus& status);

/// The "    prog/xdp..." lines, each ending in " \n" (ip's trailing blank kept, for diffs);
/// empty when nothing is attached. `details` is -d.
std::string xdpProgramLines(const XdpStatus& status, bool details, const XdpProgramLookup& lookup);

/// The value of the "xdp" key of `ip -j link show`; null when nothing is attached.
nlohmann::ordered_json xdpJson(const XdpStatus& status, bool details, const XdpProgramLookup& lookup);

}  // namespace fastlink::cli
