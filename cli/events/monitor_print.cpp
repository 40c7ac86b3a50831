// Event printers (see monitor_print.hpp): each object by the printer of its show command, as
// ip monitor prints it; tests compare the text with `ip monitor`'s line by line (trailing spaces
// aside) and the JSON with `ip -j OBJECT show`'s.
#include "events/monitor_print.hpp"

#include <utility>

#include "rtnl/ip_print.hpp"
#include "rtnl/link_show.hpp"
#include "rtnl/tc_filter_print.hpp"
#include "rtnl/tc_print.hpp"
#include "kit/fields.hpp"
#include "kit/field_stream.hpp"
#include "kit/writer.hpp"
#include "xdp/xdp_show.hpp"

namespace fastlink::cli {
namespace {

/// The show printers name a device the cache knows, else by its index; the monitor names it as
/// ip's monitor does (ll_index_to_name): looked up when the cache has it not, `if<N>` when it is
/// gone (DeviceNames::name keeps either). So the event's devices are learnt first.
void learnDevices(const Event& e, DeviceNames& names) {
  auto learn = [&](uint32_t index) {
    if (index) names.name(index);
  };
  if (const RouteInfo* r = e.route()) {
    learn(r->devIndex());
    for (const auto& p : r->paths)
      if (p.dev && p.dev->isIndex()) learn(p.dev->index());
  }
  if (const NeighInfo* n = e.neighbour()) learn(n->devIndex());
  if (const FdbInfo* f = e.fdb(); f && f->dev && f->dev->isIndex()) learn(f->dev->index());
  if (const NexthopInfo* n = e.nexthop()) learn(n->devIndex());
}

/// The keys of a show command's JSON object (a FieldOut's, tc's), in their order, into the event's.
void spreadJson(JsonOut& j, const nlohmann::ordered_json& fields) {
  for (const auto& [key, value] : fields.items()) j.key(std::string_view(key)).rawValue().put(value.dump());
}

// ---- tc: qdiscs and classes ------------------------------------------------------------------

uint32_t tcDevIndex(const std::optional<Ifref>& dev) { return dev && dev->isIndex() ? dev->index() : 0; }

// `tc monitor` prints the line of `tc qdisc show` / `tc class show` (with "dev NAME"), after
// "deleted " for a deletion.
TcPrintOptions tcOptions(const std::optional<Ifref>& dev, DeviceNames& names) {
  TcPrintOptions o;
  o.devName = names.name(tcDevIndex(dev));
  return o;
}

// A filter as `tc monitor` prints it (tc's print_filter): its `tc filter show` lines with "dev
// NAME" and its parent, after "added " or "replaced " (the request's CREATE/EXCL flags, which the
// kernel copies into the notification) or "deleted "; a chain's the same way ("added chain dev
// NAME parent ffff: chain 5").
FilterPrintOptions filterOptions(const Event& e, DeviceNames& names) {
  FilterPrintOptions o;
  o.chainObject = e.kind == ObjectKind::Chain;
  o.devName = [&names](uint32_t index) { return names.name(index); };
  o.program = lookUpXdpProgram;
  return o;
}

std::string filterText(const Event& e, const TcFilterInfo& f, DeviceNames& names) {
  TcPrinter p(false);
  if (e.action != EventAction::Deleted && e.created) p.text(e.exclusive ? "added " : "replaced ");
  printFilter(p, f, filterOptions(e, names));
  return p.take();
}

std::string filterJson(const Event& e, const TcFilterInfo& f, DeviceNames& names) {
  TcPrinter p(true);
  printFilter(p, f, filterOptions(e, names));
  return p.take();
}

}  // namespace

void putEventText(OutBuffer& out, const Event& e, DeviceNames& names, NetnsNames& netns, const GlobalOptions& o,
                  bool devFiltered) {
  bool tc = e.kind == ObjectKind::Qdisc || e.kind == ObjectKind::Class || e.kind == ObjectKind::Filter ||
            e.kind == ObjectKind::Chain;
  if (e.action == EventAction::Deleted) out.put(tc ? "deleted " : "Deleted ");  // each tool's word
  learnDevices(e, names);
  StreamText fields(out);
  auto line = [&](auto write) { out.put(writeFields<std::string>(write)).put('\n'); };
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, LinkInfo>) printLinkEvent(out, x, names, netns, o);
        else if constexpr (std::is_same_v<T, AddrInfo>) putAddrLine(out, x, names);
        else if constexpr (std::is_same_v<T, RouteInfo>) printRoute(fields, x, names, o, devFiltered);
        else if constexpr (std::is_same_v<T, NeighInfo>) printNeighbour(fields, x, names, !devFiltered);
        else if constexpr (std::is_same_v<T, FdbInfo>) printFdbNeighbour(fields, x, names, !devFiltered);
        else if constexpr (std::is_same_v<T, RuleInfo>) line([&](FieldOut& f) { writeRule(f, x, o.details); });
        else if constexpr (std::is_same_v<T, NexthopInfo>) line([&](FieldOut& f) { writeNexthop(f, x, names); });
        else if constexpr (std::is_same_v<T, QdiscInfo>) out.put(qdiscText(x, tcOptions(x.dev, names)));
        else if constexpr (std::is_same_v<T, ClassInfo>) out.put(classText(x, tcOptions(x.dev, names)));
        else if constexpr (std::is_same_v<T, TcFilterInfo>) out.put(filterText(e, x, names));
      },
      e.object);
}

void writeEventJson(JsonOut& j, const Event& e, DeviceNames& names, const GlobalOptions& options) {
  j.beginObject();
  j.field("event", eventActionName(e.action)).field("object", objectKindName(e.kind));
  if (e.nsid) j.field("nsid", *e.nsid);
  learnDevices(e, names);
  StreamJson fields(j, true);  // into this object, after the event's keys
  auto spread = [&](auto write) { spreadJson(j, writeFields<nlohmann::ordered_json>(write)); };
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, LinkInfo>) linkEventJson(j, x, names, options);
        else if constexpr (std::is_same_v<T, AddrInfo>) {
          // addr_info's keys in one flat object, after the device's
          if (x.address) putAddrJson(j.field("ifindex", x.devIndex()).field("ifname", names.name(x.devIndex())), x);
        } else if constexpr (std::is_same_v<T, RouteInfo>) printRoute(fields, x, names, options, false);
        else if constexpr (std::is_same_v<T, NeighInfo>) printNeighbour(fields, x, names, true);
        else if constexpr (std::is_same_v<T, FdbInfo>) printFdbNeighbour(fields, x, names, true);
        else if constexpr (std::is_same_v<T, RuleInfo>) spread([&](FieldOut& f) { writeRule(f, x, options.details); });
        else if constexpr (std::is_same_v<T, NexthopInfo>) spread([&](FieldOut& f) { writeNexthop(f, x, names); });
        else if constexpr (std::is_same_v<T, QdiscInfo>) spreadJson(j, qdiscJson(x, tcOptions(x.dev, names)));
        else if constexpr (std::is_same_v<T, ClassInfo>) spreadJson(j, classJson(x, tcOptions(x.dev, names)));
        // tc's own JSON for the filter (`tc -j filter show`'s object), whose repeated keys no
        // JSON library keeps: nested as written.
        else if constexpr (std::is_same_v<T, TcFilterInfo>) j.key(e.kind == ObjectKind::Chain ? "chain" : "filter").rawValue().put(filterJson(e, x, names));
      },
      e.object);
  j.endObject();
}

}  // namespace fastlink::cli
