// XdpProgram: one program of a BPF ELF object, loaded with libbpf. libbpf would print its
// warnings and the verifier log on stderr; the library never prints, so its messages are
// captured while loading and the last of them become the error's explanation.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/xdp.hpp"

namespace fastlink {

struct XdpProgram::State {
  bpf_object* object = nullptr;  // null for a program opened by id
  int fd = -1;
  uint32_t id = 0;
  std::string name;
  std::string section;
  ~State() {
    if (object) bpf_object__close(object);  // closes the program's fd too
    else if (fd >= 0) ::close(fd);
  }
};

namespace {

// libbpf's print hook is process-wide: loads are serialized while it points at our buffer.
std::mutex gLogMutex;
std::string* gLog = nullptr;

int captureLibbpf(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || !gLog) return 0;
  char buf[1024];
  int n = std::vsnprintf(buf, sizeof buf, format, args);
  if (n > 0) gLog->append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
  return n;
}

class CapturedLog {
 public:
  CapturedLog() : lock_(gLogMutex) {
    gLog = &text_;
    previous_ = libbpf_set_print(captureLibbpf);
  }
  ~CapturedLog() {
    libbpf_set_print(previous_);
    gLog = nullptr;
  }
  /// The last lines libbpf said (the verifier's verdict is at the end), trimmed.
  std::string tail() const {
    std::string t = text_;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    constexpr std::size_t kMax = 600;
    return t.size() > kMax ? "..." + t.substr(t.size() - kMax) : t;
  }

 private:
  std::lock_guard<std::mutex> lock_;
  std::string text_;
  libbpf_print_fn_t previous_ = nullptr;
};

Error bpfError(int err, const std::string& operation, const std::string& why) {
  return Error(std::error_code(err < 0 ? -err : err, std::generic_category()), operation, why);
}

uint32_t programId(int fd, const std::string& operation) {
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (int err = bpf_obj_get_info_by_fd(fd, &info, &len); err) throw bpfError(errno, operation, "cannot read the program's id");
  return info.id;
}

std::string programList(const std::vector<bpf_program*>& programs) {
  std::string s;
  for (auto* p : programs) s += (s.empty() ? "" : ", ") + std::string(bpf_program__name(p)) + " (section " + bpf_program__section_name(p) + ")";
  return s;
}

}  // namespace

XdpProgram::XdpProgram(std::unique_ptr<State> state) : state_(std::move(state)) {}
XdpProgram::XdpProgram(XdpProgram&&) noexcept = default;
XdpProgram& XdpProgram::operator=(XdpProgram&&) noexcept = default;
XdpProgram::~XdpProgram() = default;

XdpProgram XdpProgram::load(const std::string& path, const std::optional<std::string>& section,
                            const std::optional<std::string>& program) {
  return loadAs(path, section, program, false);
}

XdpProgram XdpProgram::loadClassifier(const std::string& path, const std::optional<std::string>& section,
                                      const std::optional<std::string>& program) {
  return loadAs(path, section, program, true);
}

XdpProgram XdpProgram::loadAs(const std::string& path, const std::optional<std::string>& section,
                              const std::optional<std::string>& program, bool classifier) {
  std::string op = "load " + path + (section ? " sec " + *section : "") + (program ? " program " + *program : "");
  CapturedLog log;
  auto state = std::make_unique<State>();
  state->object = bpf_object__open_file(path.c_str(), nullptr);
  if (!state->object) {
    int err = errno;
    state->object = nullptr;
    throw bpfError(err, op, log.tail().empty() ? "cannot open the BPF object file" : log.tail());
  }
  std::vector<bpf_program*> all, chosen;
  bpf_program* p = nullptr;
  bpf_object__for_each_program(p, state->object) {
    all.push_back(p);
    if (section && *section != bpf_program__section_name(p)) continue;
    if (program && *program != bpf_program__name(p)) continue;
    chosen.push_back(p);
  }
  if (chosen.empty())
    throw bpfError(ENOENT, op, all.empty() ? "the object holds no program" : "no such program; the object holds: " + programList(all));
  if (chosen.size() > 1) throw bpfError(EINVAL, op, "ambiguous: " + programList(chosen) + "; name one with sec/program");
  bpf_program* pick = chosen.front();
  // Load only the chosen program (and the maps): the others may be of types this use ignores.
  for (auto* other : all) bpf_program__set_autoload(other, other == pick);
  bpf_prog_type want = classifier ? BPF_PROG_TYPE_SCHED_CLS : BPF_PROG_TYPE_XDP;
  // tc loads a program of a section libbpf cannot type (its `sec NAME`) as a classifier.
  if (classifier && bpf_program__type(pick) == BPF_PROG_TYPE_UNSPEC) bpf_program__set_type(pick, want);
  if (bpf_program__type(pick) != want) {
    throw bpfError(EINVAL, op, std::string("program ") + bpf_program__name(pick) + " in section " +
                                   bpf_program__section_name(pick) + (classifier ? " is not a tc classifier" : " is not an XDP program"));
  }
  if (int err = bpf_object__load(state->object); err)
    throw bpfError(err, op, log.tail().empty() ? "the kernel refused the program" : log.tail());
  state->fd = bpf_program__fd(pick);
  state->name = bpf_program__name(pick);
  state->section = bpf_program__section_name(pick);
  state->id = programId(state->fd, op);
  return XdpProgram(std::move(state));
}

XdpProgram XdpProgram::fromId(uint32_t id) {
  std::string op = "bpftool prog show id " + std::to_string(id);
  auto state = std::make_unique<State>();
  state->fd = bpf_prog_get_fd_by_id(id);
  if (state->fd < 0) throw bpfError(errno, op, "no loaded BPF program has this id");
  state->id = id;
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (bpf_obj_get_info_by_fd(state->fd, &info, &len) == 0) state->name = info.name;
  return XdpProgram(std::move(state));
}

BpfProgramInfo XdpProgram::info(uint32_t id) {
  std::string op = "bpftool prog show id " + std::to_string(id);
  int fd = bpf_prog_get_fd_by_id(id);
  if (fd < 0) throw bpfError(errno, op, errno == ENOENT ? "no loaded BPF program has this id" : "cannot open the program");
  bpf_prog_info raw{};
  uint32_t len = sizeof raw;
  int err = bpf_obj_get_info_by_fd(fd, &raw, &len) ? errno : 0;
  ::close(fd);
  if (err) throw bpfError(err, op, "cannot read the program's information");
  BpfProgramInfo out;
  out.id = raw.id ? raw.id : id;
  out.name.assign(raw.name, strnlen(raw.name, sizeof raw.name));
  static constexpr char kHex[] = "0123456789abcdef";
  for (uint8_t byte : raw.tag) {
    out.tag += kHex[byte >> 4];
    out.tag += kHex[byte & 0xf];
  }
  out.jited = raw.jited_prog_len != 0;
  out.loadTime = raw.load_time;
  out.createdByUid = raw.created_by_uid;
  out.btfId = raw.btf_id;
  return out;
}

int XdpProgram::fd() const { return state_->fd; }
uint32_t XdpProgram::id() const { return state_->id; }
const std::string& XdpProgram::name() const { return state_->name; }
const std::string& XdpProgram::section() const { return state_->section; }

int XdpProgram::mapFd(const std::string& name) const {
  bpf_map* map = state_->object ? bpf_object__find_map_by_name(state_->object, name.c_str()) : nullptr;
  if (!map) throw bpfError(ENOENT, "map " + name, "the program's object has no map of that name");
  return bpf_map__fd(map);
}

// XdpApi's two verbs that take a loaded program (the rest of XdpApi is in the core library,
// xdp_requests.cpp): here, so that only a program that loads BPF links libbpf.
void XdpApi::attach(const Ifref& device, const XdpProgram& program, const XdpAttachOptions& options) {
  engine_.execute(XdpRequests::attach(device, program.fd(), options.mode));
}

void XdpApi::replace(const Ifref& device, const XdpProgram& program, const XdpProgram& expected, const XdpAttachOptions& options) {
  engine_.execute(XdpRequests::replace(device, program.fd(), expected.fd(), options.mode));
}

}  // namespace fastlink
