#include "rtnl/kit.hpp"

#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cerrno>

namespace fastlink::rtnl {

void putDevice(core::MessageWriter& w, const Ifref& dev, const std::string& operation) {
  auto& ifi = w.putHeader<ifinfomsg>();
  ifi.ifi_family = AF_UNSPEC;
  if (dev.isName()) {
    validateIfname(dev.name());
    w.putString(IFLA_IFNAME, dev.name());
  } else if (dev.index() == 0) {
    throw invalid(operation, "ifindex 0 names no device");
  } else {
    ifi.ifi_index = static_cast<int>(dev.index());
  }
}

std::optional<uint32_t> findIndex(core::Engine& engine, const std::string& name) {
  validateIfname(name);
  if (engine.fd() >= 0)
    if (auto found = core::interfaceIndex(engine.fd(), name)) return *found ? found : std::nullopt;
  // No fd (the unit tests' fake kernel) or the ioctl refused: ask with RTM_GETLINK.
  std::string operation = "link show dev " + name;
  core::MessageWriter w(RTM_GETLINK, 0);
  putDevice(w, Ifref(name), operation);
  uint32_t index = 0;
  try {
    engine.query(w.bytes(), operation, [&](const nlmsghdr* m) {
      if (const auto* ifi = core::messageHeader<ifinfomsg>(m); ifi && m->nlmsg_type == RTM_NEWLINK)
        index = static_cast<uint32_t>(ifi->ifi_index);
    });
  } catch (const Error& e) {
    if (e.code() == std::errc::no_such_device) return std::nullopt;
    throw;
  }
  if (!index) throw malformed(operation, "no link in the reply");
  return index;
}

uint32_t Names::index(const Ifref& dev) {
  if (dev.isIndex()) return dev.index();
  for (const auto& [name, index] : cache_)
    if (name == dev.name()) return index;
  auto found = findIndex(engine_, dev.name());
  // The error RTM_GETLINK gives for a missing name (ENODEV, no extack), however it was looked up.
  if (!found) throw Error(std::error_code(ENODEV, std::generic_category()), "link show dev " + dev.name());
  cache_.emplace_back(dev.name(), *found);
  return *found;
}

void checkResolveSend(core::Engine& engine, const std::function<Request(const IndexOf& indexOf)>& build) {
  (void)build([](const std::string& name) {
    validateIfname(name);
    return 1u;
  });
  Names names(engine);
  send(engine, build([&](const std::string& name) { return names.index(Ifref(name)); }));
}

std::size_t runAll(core::Engine& engine, std::size_t count, const std::function<Request(std::size_t)>& request,
                   std::initializer_list<std::errc> gone) {
  std::size_t next = 0, applied = 0;
  RequestSource source = [&]() -> std::optional<Request> {
    if (next == count) return std::nullopt;
    return request(next++);
  };
  std::optional<Error> failure;
  engine.runBatch(source, BatchOptions{.onError = OnError::Continue}, [&](std::size_t, const RequestResult& r) {
    if (r.status == RequestStatus::Applied) ++applied;
    else if (r.error && !failure && std::none_of(gone.begin(), gone.end(), [&](std::errc e) { return r.error->code() == e; }))
      failure = r.error;
  });
  if (failure) throw *failure;
  return applied;
}

}  // namespace fastlink::rtnl
