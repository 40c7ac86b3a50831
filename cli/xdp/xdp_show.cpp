#include "xdp/xdp_show.hpp"

#include <array>
#include <map>

#include "fastlink/error.hpp"
#include "kit/fields.hpp"

namespace fastlink::cli {
namespace {

using json = nlohmann::ordered_json;

// The kernel's XDP_ATTACHED_* values, which `ip -j` prints as "mode" (a stable uapi number).
constexpr uint32_t kAttachedDrv = 1, kAttachedSkb = 2, kAttachedHw = 3, kAttachedMulti = 4;

struct ModeProgram {
  uint32_t attachedMode;
  const char* textSuffix;  // prog/xdp<suffix> in multi mode
  uint32_t XdpStatus::*id;
};

// iproute2's order: generic, driver, offload.
constexpr std::array<ModeProgram, 3> kModes{{{kAttachedSkb, "generic", &XdpStatus::genericProgId},
                                              {kAttachedDrv, "drv", &XdpStatus::nativeProgId},
                                              {kAttachedHw, "offload", &XdpStatus::offloadProgId}}};

uint32_t attachedMode(const XdpStatus& s) {
  if (s.multi()) return kAttachedMulti;
  for (const auto& m : kModes)
    if (s.*m.id) return m.attachedMode;
  return 0;
}

/// The id of the one program when a single mode is in use (the kernel's IFLA_XDP_PROG_ID).
uint32_t singleProgId(const XdpStatus& s) {
  if (s.progId) return s.progId;
  for (const auto& m : kModes)
    if (s.*m.id) return s.*m.id;
  return 0;
}

/// Looks each id up once per link (ip asks the kernel twice for the same program).
class ProgramCache {
 public:
  explicit ProgramCache(const XdpProgramLookup& lookup) : lookup_(lookup) {}
  const std::optional<BpfProgramInfo>& get(uint32_t id) {
    auto it = seen_.find(id);
    if (it == seen_.end()) it = seen_.emplace(id, lookup_ ? lookup_(id) : std::nullopt).first;
    return it->second;
  }

 private:
  const XdpProgramLookup& lookup_;
  std::map<uint32_t, std::optional<BpfProgramInfo>> seen_;
};

/// A program as ip prints it, text ("id 42 name x tag T jited ", each word with its blank) or
/// JSON keys (jited always, 0 or 1).
void programFields(FieldOut& f, uint32_t id, const std::optional<BpfProgramInfo>& info, bool details) {
  f.any("id", "id {} ", id);
  if (!info) return;
  f.any("name", "name {} ", info->name).any("tag", "tag {} ", info->tag).json("jited", info->jited ? 1 : 0);
  if (info->jited) f.text("jited ");
  if (!details) return;
  // The kernel reports no load time for programs loaded before it recorded one; ip then
  // leaves out the uid as well.
  if (info->loadTime) f.any("load_time", "load_time {} ", info->loadTime).any("created_by_uid", "created_by_uid {} ", info->createdByUid);
  if (info->btfId) f.any("btf_id", "btf_id {} ", info->btfId);
}

json programJson(uint32_t id, const std::optional<BpfProgramInfo>& info, bool details) {
  return writeFields<json>([&](FieldOut& f) { programFields(f, id, info, details); });
}

}  // namespace

std::optional<BpfProgramInfo> lookUpXdpProgram(uint32_t id) {
  try {
    return XdpProgram::info(id);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string_view xdpModeWord(const XdpStatus& status) {
  switch (attachedMode(status)) {
    case kAttachedDrv: return "xdp";
    case kAttachedSkb: return "xdpgeneric";
    case kAttachedHw: return "xdpoffload";
    case kAttachedMulti: return "xdpmulti";
    default: return {};
  }
}

std::string xdpProgramLines(const XdpStatus& status, bool details, const XdpProgramLookup& lookup) {
  std::string out;
  ProgramCache cache(lookup);
  auto line = [&](std::string_view suffix, uint32_t id) {
    out += "    prog/xdp";
    out += suffix;
    out += ' ';
    FieldOut f(out);
    programFields(f, id, cache.get(id), details);
    out += '\n';
  };
  if (!status.attached()) return out;
  if (!status.multi()) {
    line("", singleProgId(status));
    return out;
  }
  for (const auto& m : kModes)
    if (status.*m.id) line(m.textSuffix, status.*m.id);
  return out;
}

json xdpJson(const XdpStatus& status, bool details, const XdpProgramLookup& lookup) {
  if (!status.attached()) return nullptr;
  ProgramCache cache(lookup);
  json x = json::object();
  x["mode"] = attachedMode(status);
  if (!status.multi()) {
    uint32_t id = singleProgId(status);
    x["prog"] = programJson(id, cache.get(id), details);
  }
  json attached = json::array();
  for (const auto& m : kModes)
    if (status.*m.id) attached.push_back({{"mode", m.attachedMode}, {"prog", programJson(status.*m.id, cache.get(status.*m.id), details)}});
  x["attached"] = std::move(attached);
  return x;
}

}  // namespace fastlink::cli
