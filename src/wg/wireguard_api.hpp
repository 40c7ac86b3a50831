// The WireGuardApi with a given kernel backend (null: kernel devices are listed but refused
// with EPROTONOSUPPORT). makeWireGuardApi(netlink) will pass the generic netlink one
// (genl::WgKernelBackend over genl::EngineWgTransport) once the family resolver is merged.
#pragma once

#include <memory>

#include "fastlink/wireguard.hpp"
#include "wg/backend.hpp"

namespace fastlink::wg {

std::unique_ptr<WireGuardApi> makeWireGuardApi(Netlink& netlink, const WireGuardOptions& options,
                                               std::unique_ptr<Backend> kernel);

}  // namespace fastlink::wg
