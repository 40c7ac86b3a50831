// `fastlink monitor ethtool`: an EthtoolEventStream printed with the show commands' formats
// (ethtool_print.hpp), since ethtool --monitor prints a notification as `ethtool -l/-g/-k/-c/
// --show-fec` prints the object, after an empty line.
#include "ethtool/monitor_ethtool.hpp"

#include <cstdio>

#include "fastlink/ethtool_events.hpp"
#include "fastlink/link.hpp"
#include "fastlink/netlink.hpp"
#include "ethtool/ethtool_print.hpp"
#include "kit/writer.hpp"

namespace fastlink::cli {
namespace {

// The event's object, as ethtool --monitor prints it (`json` false: the show command's text) or
// as fastlink's JSON fields; one switch over the kinds for both.
struct Rendered {
  std::string text;
  nlohmann::ordered_json json;
};
Rendered render(const EthtoolEvent& e, const std::string& dev, bool json) {
  auto as = [&](const auto& info, auto text, auto fields) {
    return json ? Rendered{{}, fields(dev, info)} : Rendered{text(dev, info), {}};
  };
  auto settings = [](std::string_view d, const auto& info) { return settingsJson(d, info); };
  switch (e.kind) {
    case EthtoolEventKind::Channels: return as(*e.channels(), channelsText, settings);
    case EthtoolEventKind::Rings: return as(*e.rings(), ringsText, settings);
    case EthtoolEventKind::Features: return as(*e.features(), featuresText, featuresJson);
    case EthtoolEventKind::Coalesce: return as(*e.coalesce(), coalesceText, settings);
    case EthtoolEventKind::Fec: return as(*e.fec(), fecText, fecJson);
  }
  return {};
}

/// Writes events; the caller flushes after each batch, so a reader of a pipe sees each one as
/// soon as the monitor has it.
class EthtoolPrinter {
 public:
  EthtoolPrinter(bool json, std::optional<uint32_t> dev) : jsonOutput_(json), dev_(dev) {}

  void print(const EthtoolEvent& e) {
    if (dev_ && e.ifindex != *dev_) return;
    // The header always names the device; an index only if a kernel ever left the name out.
    const std::string dev = e.ifname.empty() ? std::to_string(e.ifindex) : e.ifname;
    if (jsonOutput_) printJson(e, dev);
    else out_.put('\n').put(render(e, dev, false).text);
    out_.endRecord();
  }

  void listening() {
    out_.put("listening...\n");
    out_.flush();
  }

  /// False when stdout is gone (the reader closed the pipe).
  bool flush() {
    out_.flush();
    return !out_.failed();
  }

 private:
  // The event's envelope (as `fastlink -j monitor` writes one), then the show command's fields.
  void printJson(const EthtoolEvent& e, const std::string& dev) {
    json_.beginObject();
    json_.field("event", "changed").field("object", "ethtool").field("kind", ethtoolEventKindName(e.kind));
    const nlohmann::ordered_json fields = render(e, dev, true).json;  // held: items() refers into it
    for (const auto& [key, value] : fields.items()) {
      json_.key(key);
      json_.rawValue().put(value.dump());
    }
    json_.endObject();
    json_.endElement();
  }

  bool jsonOutput_;
  std::optional<uint32_t> dev_;
  OutBuffer out_{stdout, OutBuffer::kChunk};
  JsonOut json_{out_, false, JsonOut::Layout::Lines};
};

}  // namespace

int monitorEthtool(Netlink& netlink, const GlobalOptions& global, const std::optional<std::string>& dev) {
  SubscriptionOptions options;
  if (global.rcvbuf) options.receiveBufferBytes = global.rcvbuf;
  EthtoolEventStream stream(netlink, options);
  std::optional<uint32_t> index;
  if (dev) index = netlink.links().indexOf(Ifref(*dev));
  EthtoolPrinter printer(global.json, index);
  // ethtool --monitor's first line, once it listens (text only: JSON lines are events). A reader
  // may wait for it before making changes.
  if (!global.json) printer.listening();
  auto onOverflow = [&] {
    printer.flush();
    std::fputs("Error: the kernel dropped ethtool events (receive buffer overflow, ENOBUFS)\n", stderr);
  };
  for (;;) {
    stream.wait([&](const EthtoolEvent& e) { printer.print(e); }, onOverflow);
    if (!printer.flush()) return kExitOk;
  }
}

}  // namespace fastlink::cli
