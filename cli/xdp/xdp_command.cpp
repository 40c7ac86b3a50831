// `fastlink link set dev X xdp ...` (iproute2's spelling): load an object file with libbpf and
// attach its program, or detach.
//   link set dev X { xdp | xdpgeneric | xdpdrv | xdpoffload } obj FILE [ sec NAME ] [ program NAME ]
//   link set dev X { xdp | xdpgeneric | xdpdrv | xdpoffload } off
// A device that already runs a program gets the new one through the kernel's guarded replace
// (XDP_FLAGS_REPLACE with the attached program as the expected one), so a concurrent change in
// between makes the command fail instead of being silently overwritten. `xdp off` detaches
// whatever is attached, in whichever mode; `xdpgeneric off` only the generic one.
#include "xdp/xdp_command.hpp"

#include <fmt/format.h>

#include <memory>

#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/xdp.hpp"

namespace fastlink::cli {

namespace {

std::optional<XdpMode> modeOf(const std::string& word) {
  if (word == "xdp") return XdpMode::Auto;
  if (word == "xdpgeneric") return XdpMode::Generic;
  if (word == "xdpdrv") return XdpMode::Native;
  if (word == "xdpoffload") return XdpMode::Offload;
  return std::nullopt;
}

uint32_t attachedIn(const XdpStatus& s, XdpMode mode) {
  switch (mode) {
    case XdpMode::Generic: return s.genericProgId;
    case XdpMode::Native: return s.nativeProgId;
    case XdpMode::Offload: return s.offloadProgId;
    case XdpMode::Auto: break;
  }
  return s.progId;
}

/// The device's XDP state; a missing device reads as in every other command.
XdpStatus statusOf(XdpApi& api, const std::string& device) {
  try {
    return api.status(device);
  } catch (const Error& e) {
    if (e.code() != std::errc::no_such_device) throw;
    throw Error(e.code(), e.operation(), fmt::format("Cannot find device \"{}\"", device));
  }
}

}  // namespace

std::optional<PreparedRequest> prepareLinkSetXdp(Context& ctx, Args& args) {
  // Look ahead: only `[dev] NAME xdp...` lines are ours, the rest stays link set's (from where it was).
  const std::size_t start = args.position();
  if (args.done()) return std::nullopt;
  std::string device = args.accept("dev") ? args.value("dev") : args.next();
  if (args.done() || !modeOf(args.peek())) {
    args.rewind(start);
    return std::nullopt;
  }
  device = parseIfname(device, "dev");
  const std::string word = args.next();
  const XdpMode mode = *modeOf(word);
  PreparedRequest r;
  r.device = device;
  XdpApi& api = ctx.netlink().xdp();
  if (args.done()) throw UsageError(fmt::format("\"{}\" needs obj FILE or off (in \"link set dev {} {}\")", word, device, word));
  if (args.accept("off")) {
    if (!args.done()) args.unknown("nothing may follow xdp off");
    XdpMode detach = mode;
    if (mode == XdpMode::Auto) {
      // "Off" means whatever is attached: the kernel alone would pick the driver hook and
      // leave a generic program in place.
      XdpStatus s = statusOf(api, device);
      int modes = (s.genericProgId != 0) + (s.nativeProgId != 0) + (s.offloadProgId != 0);
      if (modes > 1) throw UsageError(fmt::format("{} runs XDP programs in several modes: say which (xdpgeneric|xdpdrv|xdpoffload off)", device));
      if (s.genericProgId) detach = XdpMode::Generic;
      if (s.nativeProgId) detach = XdpMode::Native;
      if (s.offloadProgId) detach = XdpMode::Offload;
    }
    r.encode = [device, detach](Resolver&) { return XdpRequests::detach(Ifref(device), detach); };
    return r;
  }
  if (!args.accept("obj") && !args.accept("object")) args.unknown(fmt::format("{} takes: obj FILE [sec NAME] [program NAME] | off", word));
  if (args.done()) throw UsageError(word + " obj: a file name is required");
  std::string file = args.next();
  std::optional<std::string> section, program;
  while (!args.done()) {
    if (args.accept("sec") || args.accept("section")) section = args.value("sec");
    else if (args.accept("program") || args.accept("prog")) program = args.value("program");
    else args.unknown(word + " obj FILE takes: sec NAME, program NAME (and nothing else on the line)");
  }
  // Loaded now, so a bad object is reported before anything is sent; the request keeps the
  // program's fd alive until it has gone out (and the expected one's, for a replace).
  auto prog = std::make_shared<XdpProgram>(XdpProgram::load(file, section, program));
  uint32_t current = attachedIn(statusOf(api, device), mode);
  std::shared_ptr<XdpProgram> expected;
  if (current) expected = std::make_shared<XdpProgram>(XdpProgram::fromId(current));
  // Errors name the line as typed (the file, not the fd it was loaded into).
  std::string typed = fmt::format("link set dev {} {} obj {}{}", device, word, file,
                                  expected ? fmt::format(" (replacing program {})", current) : "");
  r.encode = [device, mode, prog, expected, typed](Resolver&) {
    Request req = expected ? XdpRequests::replace(Ifref(device), prog->fd(), expected->fd(), mode)
                           : XdpRequests::attach(Ifref(device), prog->fd(), mode);
    return Request(std::vector<uint8_t>(req.bytes().begin(), req.bytes().end()), typed, Request::KeepAlive{prog, expected});
  };
  return r;
}

}  // namespace fastlink::cli
