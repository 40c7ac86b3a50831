// XDP: load a BPF object file (libbpf) and attach, replace or detach its program on a device
// (rtnetlink's IFLA_XDP on RTM_SETLINK), and read which program is attached (RTM_GETLINK).
//
//   fastlink::Netlink nl;
//   auto prog = fastlink::XdpProgram::load("xdp_count.o", "xdp");   // section "xdp"
//   fastlink::XdpApi& xdp = nl.xdp();
//   xdp.attach("veth0", prog, {.mode = fastlink::XdpMode::Generic});  // ip link set dev veth0 xdpgeneric obj ...
//   fastlink::XdpStatus s = xdp.status("veth0");                      // s.progId == prog.id()
//   xdp.replace("veth0", other, prog);        // only if `prog` is still the attached one
//   xdp.detach("veth0");                       // every attached mode
//
// attach() refuses when a program is already attached in that mode (EBUSY): replacing is a
// separate verb that names the program expected to be there, so two tools racing to replace
// the same program cannot silently undo each other (the kernel's XDP_FLAGS_REPLACE guard).
// A loaded program stays attached after its XdpProgram (and this process) is gone: the device
// holds a reference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
#include "fastlink/xdp_status.hpp"

namespace fastlink {

/// What the kernel tells about a loaded BPF program (BPF_OBJ_GET_INFO_BY_FD): the fields
/// `ip link show` prints on its `prog/xdp` line.
struct BpfProgramInfo {
  uint32_t id = 0;
  std::string name;      ///< the program's function name (at most 15 characters: the kernel truncates)
  std::string tag;       ///< the kernel's hash of the instructions, 16 hex digits
  bool jited = false;    ///< compiled to native code
  uint64_t loadTime = 0; ///< nanoseconds since boot (0 when the kernel does not say)
  uint32_t createdByUid = 0;
  uint32_t btfId = 0;    ///< 0 when the program carries no BTF
  friend bool operator==(const BpfProgramInfo&, const BpfProgramInfo&) = default;
};

/// One XDP program (or tc classifier: loadClassifier) loaded from a BPF ELF object file, with the
/// object's maps. Owns the program's file descriptor; move-only.
class XdpProgram {
 public:
  /// Opens `path` with libbpf, picks the program in `section` (any section when unset) and
  /// named `program` (when set), loads only that one, and returns it. Throws Error with the
  /// path and libbpf's errno when the file is missing, not BPF, ambiguous ("section xdp holds
  /// xdp_a, xdp_b: name one"), or refused by the verifier.
  /// Equivalent to: the loading half of `ip link set dev X xdp obj FILE sec NAME`
  static XdpProgram load(const std::string& path, const std::optional<std::string>& section = std::nullopt,
                         const std::optional<std::string>& program = std::nullopt);
  /// The same for a tc classifier (BPF_PROG_TYPE_SCHED_CLS), for BpfFilterOptions::fd: a program
  /// in a section libbpf does not know (tc's `sec NAME`) is loaded as a classifier, as tc does;
  /// one of another type (an XDP program) is refused before the kernel sees it.
  /// Equivalent to: the loading half of `tc filter add dev X ingress bpf obj FILE sec NAME`
  static XdpProgram loadClassifier(const std::string& path, const std::optional<std::string>& section = std::nullopt,
                                   const std::optional<std::string>& program = std::nullopt);
  /// A new file descriptor for the loaded program with this id (to name the attached program
  /// in replace/detach). Throws Error(ENOENT) when no such program exists.
  static XdpProgram fromId(uint32_t id);
  /// What the kernel tells about the loaded program with this id (any program type). Throws
  /// Error(ENOENT) when none has it, Error(EPERM) without CAP_SYS_ADMIN.
  /// Equivalent to: bpftool prog show id ID (the fields `ip link show` prints after prog/xdp)
  static BpfProgramInfo info(uint32_t id);

  XdpProgram(XdpProgram&&) noexcept;
  XdpProgram& operator=(XdpProgram&&) noexcept;
  ~XdpProgram();

  int fd() const;
  uint32_t id() const;                 ///< the kernel's program id (what `bpftool prog` lists)
  const std::string& name() const;     ///< the program's function name
  const std::string& section() const;  ///< its ELF section
  /// The fd of the object's map `name` (for bpf_map_lookup_elem); Error(ENOENT) if absent.
  int mapFd(const std::string& name) const;

 private:
  struct State;
  explicit XdpProgram(std::unique_ptr<State> state);
  static XdpProgram loadAs(const std::string& path, const std::optional<std::string>& section,
                           const std::optional<std::string>& program, bool classifier);
  std::unique_ptr<State> state_;
};

/// How attach/replace/detach pick the hook.
struct XdpAttachOptions {
  XdpMode mode = XdpMode::Auto;
};

/// Request builders (no I/O): usable in a batch (Netlink::run).
struct XdpRequests {
  /// Equivalent to: ip link set dev X xdp[generic|drv|offload] obj FILE (refuses if one is attached)
  static Request attach(const Ifref& device, int progFd, XdpMode mode);
  /// Equivalent to: ip -force link set dev X xdp... obj FILE, guarded: the kernel replaces only
  /// if `expectedFd`'s program is the one attached.
  static Request replace(const Ifref& device, int progFd, int expectedFd, XdpMode mode);
  /// Equivalent to: ip link set dev X xdp[generic|drv|offload] off
  static Request detach(const Ifref& device, XdpMode mode);
  /// RTM_GETLINK for one device (decode with XdpApi::status).
  static Request get(const Ifref& device);
};

class XdpApi {
 public:
  /// What Netlink::xdp() builds it on: the rtnetlink socket.

  /// Equivalent to: ip -d -j link show dev X (the "xdp" object)
  XdpStatus status(const Ifref& device);
  /// Attaches `program`; Error(EBUSY) with the kernel's extack if one is already attached
  /// in that mode (use replace).
  /// Equivalent to: ip link set dev X xdp[generic|drv|offload] obj FILE sec NAME
  void attach(const Ifref& device, const XdpProgram& program, const XdpAttachOptions& options = {});
  /// Replaces `expected` by `program`; the kernel refuses (EEXIST) if `expected` is no longer
  /// the attached program, and nothing changes.
  /// Equivalent to: ip -force link set dev X xdp... obj FILE (with a compare-and-swap guard)
  void replace(const Ifref& device, const XdpProgram& program, const XdpProgram& expected,
               const XdpAttachOptions& options = {});
  /// Detaches the program of `options.mode`; with XdpMode::Auto, every attached program
  /// (whatever mode it was attached in). Detaching when none is attached is not an error.
  /// Equivalent to: ip link set dev X xdp off
  void detach(const Ifref& device, const XdpAttachOptions& options = {});

 private:
  friend class Netlink;  // built by its accessor on Netlink, the one way in
  explicit XdpApi(core::Engine& engine) : engine_(engine) {}
  core::Engine& engine_;
};

/// "generic", "native", "offload", "auto" (as `ip -d link` names the modes).
std::string toString(XdpMode mode);

}  // namespace fastlink
