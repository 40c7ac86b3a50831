// Named network namespaces: the files under /run/netns that `ip netns` keeps (a namespace bind-
// mounted on a file, so that it lives without a process and can be found by name).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace fastlink {

/// ip's NETNS_RUN_DIR.
inline constexpr const char* kNetnsRunDir = "/run/netns";

/// A name ip accepts: not empty, not "." or "..", no '/', at most NAME_MAX bytes.
bool validNetnsName(std::string_view name);

/// The names under /run/netns, in directory order (ip's); none when the directory is missing.
/// Equivalent to: ip netns list (the names)
std::vector<std::string> listNamedNetns();

/// Creates a network namespace and binds it to /run/netns/NAME, making /run/netns a shared
/// mount point first (a bind mount of itself, once), as ip does, so that deleting the name in
/// one mount namespace unmounts it in the others. The namespace is made on a thread of its own:
/// the caller's threads never change namespace. Throws Error (errno, ip's message) when the name
/// exists or cannot be made; nothing is left behind on failure.
/// Equivalent to: ip netns add NAME
void addNamedNetns(const std::string& name);

/// Binds the network namespace of process `pid` to /run/netns/NAME (see addNamedNetns).
/// Equivalent to: ip netns attach NAME PID
void attachNamedNetns(const std::string& name, pid_t pid);

/// Unmounts (lazily) and removes /run/netns/NAME; the namespace is freed when nothing else holds
/// it. Throws Error when the file cannot be removed.
/// Equivalent to: ip netns delete NAME
void deleteNamedNetns(const std::string& name);

/// The name under /run/netns of process `pid`'s network namespace (0: the caller's), nullopt
/// when it has none; with several names, the last in directory order (ip's). Throws Error when
/// the process's namespace cannot be opened.
/// Equivalent to: ip netns identify [PID]
std::optional<std::string> identifyNetns(pid_t pid = 0);

/// The processes in the namespace named NAME, in /proc's order. Throws Error when NAME cannot be
/// opened. Equivalent to: ip netns pids NAME
std::vector<pid_t> netnsPids(const std::string& name);

}  // namespace fastlink
