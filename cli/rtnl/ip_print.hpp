// The show commands' printers that `fastlink monitor` prints its events with, as ip monitor
// prints each object with the printer of `ip OBJECT show` (print_route, print_addrinfo,
// print_neigh (also for bridge FDB entries), print_rule, print_nexthop). Text or JSON by the same calls: `Fields` is
// StreamText or StreamJson (kit/field_stream.hpp), instantiated for both in the object's file.
#pragma once

#include "fastlink/addr.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/nexthop.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "kit/command.hpp"
#include "kit/device_names.hpp"
#include "kit/fields.hpp"
#include "kit/field_stream.hpp"

namespace fastlink::cli {

/// A route as `route show table all` prints it (every table but main named); `hideDev`: without
/// its device (`monitor dev DEV`, as ip's filter leaves it out). -d as `route show -d`.
template <class Fields>
void printRoute(Fields& f, const RouteInfo& r, DeviceNames& names, const GlobalOptions& options, bool hideDev);

/// An address as `address show -o` prints it: "INDEX: DEV    inet ..." and the lifetimes line
/// (two lines: ip's monitor keeps the line break).
void putAddrLine(OutBuffer& out, const AddrInfo& a, DeviceNames& names);
/// The keys of an address in `address show -j`'s addr_info, into the object `j` has open.
void putAddrJson(JsonOut& j, const AddrInfo& a);

/// A neighbour as `neigh show` prints it; `withDev` false: without its device (`dev DEV`).
template <class Fields>
void printNeighbour(Fields& f, const NeighInfo& n, const DeviceNames& names, bool withDev);
/// A bridge FDB entry as `neigh show -B` prints it (ip's print_neigh of an AF_BRIDGE neighbour).
template <class Fields>
void printFdbNeighbour(Fields& f, const FdbInfo& e, const DeviceNames& names, bool withDev);

/// A rule as `rule show` prints it (one line, no line break), its -j keys.
void writeRule(FieldOut& f, const RuleInfo& r, bool details);
/// A nexthop as `nexthop show` prints it (one line, no line break), its -j keys.
void writeNexthop(FieldOut& f, const NexthopInfo& n, const DeviceNames& names);

}  // namespace fastlink::cli
