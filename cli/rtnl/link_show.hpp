// `fastlink link show`: text like `ip link show`, JSON like `ip -j link show`.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kit/args.hpp"
#include "kit/command.hpp"
#include "kit/output.hpp"
#include "kit/writer.hpp"
#include "fastlink/link.hpp"

namespace fastlink::cli {

/// Runs `link show [[dev] NAME] [type KIND] [master DEV] [group G] [up]`; returns the exit status.
int showLinks(Context& ctx, Args& args);

/// The device a record hook is called for (read from a view or from a LinkInfo).
struct LinkRecord {
  uint32_t index = 0;
  std::string_view name;
  bool up = false;
};

/// What `address show` adds to the link records: it streams the same records (header lines,
/// JSON fields as ip prints them under `ip addr`), with its addresses after each. Every listing
/// (-d, -o, -br, -j, -p, `dev X`) is printed from views over the replies, no LinkInfo decoded.
struct LinkRecordHooks {
  /// Devices to leave out (a family or scope filter that leaves a device no address).
  std::function<bool(const LinkRecord&)> keep;
  /// Devices kept but dropped by ip's print_linkinfo after their JSON object is opened (`up`):
  /// `-j` prints `{}` for them, text nothing.
  std::function<bool(const LinkRecord&)> dropped;
  /// After the link's lines; with `header == false` instead of them (`ip -o addr`).
  std::function<void(OutBuffer&, const LinkRecord&)> text;
  /// `-br`: what follows the name and state columns.
  std::function<void(OutBuffer&, const LinkRecord&)> briefText;
  /// Fields added to the link's JSON object (addr_info), streamed.
  std::function<void(JsonOut&, const LinkRecord&)> json;
  bool header = true;
  /// Whether the device's own fields are printed at all: ip's print_linkinfo prints nothing of
  /// the device under a label filter (text, -br, JSON: only the addresses), nor does ip call it
  /// for `-o -j` (JSON objects of addr_info alone).
  bool linkFields = true;
  /// The `link/ether MAC brd ...` line (`ip -4 addr` leaves it out).
  bool linkLine = true;
  /// `ip -6 addr` (no dev): ip lists the devices with the IPv6 link dump, which carries no
  /// qdisc, group, master, link type or addresses, so neither line shows them.
  bool inet6View = false;
};

/// The `-s` counter block of `ip -s link` (`twice`: `-s -s`'s error rows), and its `stats64`
/// JSON object; `stats show` prints them too (cli/rtnl/stats_command.cpp).
void printStats(OutBuffer& out, const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice,
                const GlobalOptions& o);
nlohmann::ordered_json statsJson(const LinkStats& s, std::optional<uint32_t> carrierChanges, bool twice);
/// A counter as ip's print_num writes it with -human (-iec: powers of 1024); digits of a number.
std::string humanCount(uint64_t count, bool iec);
std::size_t digitCount(uint64_t v);

class DeviceNames;
class NetnsNames;
/// A link event as `ip monitor link` prints it, by the printer of `link show` (tunnels' `@NONE`
/// and endpoints, `peer`, permaddr, `@ifN`, M-DOWN): ip's print_linkinfo for the monitor, which
/// leaves out `ip link`'s own words (link mode, qlen, alias) and, without an `ip link` view of
/// the device, -d's. Devices it names that `names` lacks are looked up first.
void printLinkEvent(OutBuffer& out, const LinkInfo& link, DeviceNames& names, NetnsNames& netns, const GlobalOptions& o);
/// The event's link as `link show -j` prints its fields, into an object the caller opened.
void linkEventJson(JsonOut& json, const LinkInfo& link, DeviceNames& names, const GlobalOptions& o);

/// Streams the records of every device (or of `dev`) as `ip addr show` does, through `hooks`.
int showLinkRecords(Context& ctx, const std::optional<std::string>& dev, const LinkRecordHooks& hooks);

}  // namespace fastlink::cli
