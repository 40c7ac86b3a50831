// Generic netlink family lookup: GenlApi (list, get with a per-Netlink cache, find, refresh).
#include <linux/genetlink.h>

#include <map>
#include <string>

#include "core/engine.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/netlink.hpp"
#include "genl/ctrl_codec.hpp"

namespace fastlink {

GenlApi& Netlink::families() { return lazy(families_, genericEngine()); }

const GenlGroup* GenlFamilyInfo::group(std::string_view groupName) const {
  for (const auto& g : groups)
    if (g.name == groupName) return &g;
  return nullptr;
}

const GenlOperation* GenlFamilyInfo::op(uint32_t cmd) const {
  for (const auto& o : ops)
    if (o.id == cmd) return &o;
  return nullptr;
}

Request GenlRequests::getFamily(std::string_view name) { return genl::encodeGetFamily(name); }
Request GenlRequests::listFamilies() { return genl::encodeListFamilies(); }

// Node-based, so references handed out by get() stay valid while other families are added;
// std::less<> looks a string_view up without building a string.
struct GenlApi::Cache {
  std::map<std::string, GenlFamilyInfo, std::less<>> byName;

  const GenlFamilyInfo& store(GenlFamilyInfo family) {
    auto it = byName.find(family.name);
    if (it == byName.end()) return byName.emplace(family.name, std::move(family)).first->second;
    it->second = std::move(family);  // in place: earlier references see the new id
    return it->second;
  }
};

namespace {

std::string notFound(std::string_view name) {
  return "generic netlink family \"" + std::string(name) + "\" not found: is the module loaded?";
}

/// One CTRL_CMD_GETFAMILY round trip; std::nullopt when the kernel has no such family.
std::optional<GenlFamilyInfo> ask(core::Engine& engine, std::string_view name) {
  Request r = genl::encodeGetFamily(name);
  std::optional<GenlFamilyInfo> found;
  try {
    engine.query(r.bytes(), r.operation(), [&](const nlmsghdr* m) { found = genl::decodeFamily(m); });
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_file_or_directory) return std::nullopt;
    throw;
  }
  if (!found || found->name != name)
    throw Error(make_error_code(Errc::malformed_reply), r.operation(), "the controller answered with another message");
  return found;
}

}  // namespace

GenlApi::GenlApi(core::Engine& engine) : engine_(engine), cache_(std::make_unique<Cache>()) {}
GenlApi::~GenlApi() = default;

std::vector<GenlFamilyInfo> GenlApi::list() {
  Request r = genl::encodeListFamilies();
  std::vector<GenlFamilyInfo> out;
  engine_.dump(
      r.bytes(), r.operation(),
      [&](const nlmsghdr* m) {
        if (auto f = genl::decodeFamily(m)) out.push_back(std::move(*f));
      },
      [&] { out.clear(); });
  // Only after the whole dump: an interrupted one must not leave half-refreshed entries behind.
  for (const auto& f : out) cache_->store(f);
  return out;
}

const GenlFamilyInfo& GenlApi::get(std::string_view name) {
  if (const GenlFamilyInfo* f = find(name)) return *f;
  throw Error(std::make_error_code(std::errc::no_such_file_or_directory), "genl ctrl get name " + std::string(name),
              notFound(name));
}

const GenlFamilyInfo* GenlApi::find(std::string_view name) {
  if (auto it = cache_->byName.find(name); it != cache_->byName.end()) return &it->second;
  std::optional<GenlFamilyInfo> f = ask(engine_, name);
  if (!f) return nullptr;  // not cached: the module may be loaded later
  return &cache_->store(std::move(*f));
}

const GenlFamilyInfo& GenlApi::refresh(std::string_view name) {
  std::optional<GenlFamilyInfo> f = ask(engine_, name);
  if (!f) {
    // References to the dropped entry dangle; a family that vanished has nothing to refer to.
    if (auto it = cache_->byName.find(name); it != cache_->byName.end()) cache_->byName.erase(it);
    throw Error(std::make_error_code(std::errc::no_such_file_or_directory), "genl ctrl get name " + std::string(name),
                notFound(name));
  }
  return cache_->store(std::move(*f));
}

const SocketCounters& GenlApi::counters() const { return engine_.counters(); }

}  // namespace fastlink

// ---- GenlFamilyApi: what every family's API is built on ----------------------------------

namespace fastlink {

GenlFamilyApi::GenlFamilyApi(GenlApi& families, core::Engine& engine, std::string name, std::string sinceLinux)
    : families_(families), engine_(engine), name_(std::move(name)), sinceLinux_(std::move(sinceLinux)) {}

const GenlFamilyInfo& GenlFamilyApi::family(const std::string& operation) {
  if (const GenlFamilyInfo* f = families_.find(name_)) return *f;
  const std::string& op = operation.empty() ? "genl ctrl get name " + name_ : operation;
  if (sinceLinux_.empty()) throw Error(std::make_error_code(std::errc::no_such_file_or_directory), op, notFound(name_));
  throw Error(std::make_error_code(std::errc::operation_not_supported), op,
              "this kernel has no " + name_ + " generic netlink family (Linux " + sinceLinux_ + "+)");
}

const GenlFamilyInfo& GenlFamilyApi::familyWith(uint8_t cmd, const std::string& operation, std::string_view command,
                                                std::string_view sinceLinux) {
  const GenlFamilyInfo& f = family(operation);
  if (!f.op(cmd))
    throw Error(std::make_error_code(std::errc::operation_not_supported), operation,
                "this kernel's " + name_ + " family has no " + std::string(command) + " (Linux " + std::string(sinceLinux) +
                    "+)");
  return f;
}

void GenlFamilyApi::execute(const Request& request) { engine_.execute(request); }

void GenlFamilyApi::query(const Request& request, const std::function<void(const nlmsghdr*)>& onReply) {
  engine_.query(request.bytes(), request.operation(), onReply);
}

void GenlFamilyApi::dump(const Request& request, const std::function<void(const nlmsghdr*)>& onMessage,
                         const std::function<void()>& onRestart) {
  engine_.dump(request.bytes(), request.operation(), onMessage, onRestart);
}

}  // namespace fastlink
