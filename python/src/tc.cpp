// tc qdiscs and classes (`tc qdisc`, `tc class`): QdiscInfo, ClassInfo, the options of the kinds
// fastlink encodes (fifo, htb, tbf, fq_codel, fq, netem, prio) and nl.tc.
#include <nanobind/stl/array.h>

#include <variant>

#include "binding.hpp"
#include "fastlink/tc.hpp"

namespace fastlink::python {

namespace {

using PyTc = PyApi<fastlink::TcApi, &fastlink::Netlink::tc>;

/// A qdisc's or class's options as their Python object (None: none, or raw bytes of a kind
/// fastlink does not decode).
nb::object optionsToPython(const fastlink::TcOptions& options) {
  return std::visit(
      [](const auto& o) -> nb::object {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, std::monostate>) return nb::none();
        else if constexpr (std::is_same_v<T, fastlink::RawTcOptions>) return nb::bytes(reinterpret_cast<const char*>(o.bytes.data()), o.bytes.size());
        else return nb::cast(o);
      },
      options);
}

template <std::size_t I = 1>
fastlink::TcOptions optionsFromPython(nb::handle value) {
  if (value.is_none()) return std::monostate{};
  if constexpr (I < std::variant_size_v<fastlink::TcOptions>) {
    using T = std::variant_alternative_t<I, fastlink::TcOptions>;
    if constexpr (!std::is_same_v<T, fastlink::RawTcOptions>) {
      T* typed = nullptr;
      if (nb::try_cast<T*>(value, typed) && typed) return *typed;
    }
    return optionsFromPython<I + 1>(value);
  } else {
    throw nb::type_error("options: FifoOptions, HtbOptions, HtbClassOptions, TbfOptions, FqCodelOptions, FqOptions, "
                         "NetemOptions, PrioOptions or None");
  }
}

void bindOptionTypes(nb::module_& m) {
  using namespace fastlink;
  Fields<FifoOptions> fifo(m, "FifoOptions", "pfifo/bfifo: `limit N` (packets for pfifo, bytes for bfifo).");
  fifo.rw("limit", &FifoOptions::limit).done();
  Fields<PrioOptions> prio(m, "PrioOptions", "prio/pfifo_fast: bands and priomap.");
  prio.rw("bands", &PrioOptions::bands).rw("priomap", &PrioOptions::priomap).rw("multiqueue", &PrioOptions::multiqueue).done();
  Fields<HtbOptions> htb(m, "HtbOptions", "htb qdisc: `default CLASSID r2q N direct_qlen P`.");
  htb.rw("default_class", &HtbOptions::defaultClass, "minor of the default class (`default 10` is 0x10)")
      .rw("r2q", &HtbOptions::r2q)
      .rw("direct_qlen", &HtbOptions::directQlen)
      .ro("direct_packets", &HtbOptions::directPackets)
      .done();
  Fields<HtbClassOptions> htbClass(m, "HtbClassOptions", "htb class: `rate R ceil R burst B cburst B prio P quantum Q` (bytes/s, bytes).");
  htbClass.rw("rate", &HtbClassOptions::rate)
      .rw("ceil", &HtbClassOptions::ceil)
      .rw("burst", &HtbClassOptions::burst)
      .rw("cburst", &HtbClassOptions::cburst)
      .rw("prio", &HtbClassOptions::prio)
      .rw("quantum", &HtbClassOptions::quantum)
      .rw("mtu", &HtbClassOptions::mtu)
      .ro("level", &HtbClassOptions::level)
      .done();
  Fields<FqCodelOptions> fqCodel(m, "FqCodelOptions", "fq_codel (times in microseconds).");
  fqCodel.rw("limit", &FqCodelOptions::limit)
      .rw("flows", &FqCodelOptions::flows)
      .rw("target", &FqCodelOptions::target)
      .rw("interval", &FqCodelOptions::interval)
      .rw("quantum", &FqCodelOptions::quantum)
      .rw("ecn", &FqCodelOptions::ecn)
      .rw("ce_threshold", &FqCodelOptions::ceThreshold)
      .rw("memory_limit", &FqCodelOptions::memoryLimit)
      .rw("drop_batch", &FqCodelOptions::dropBatch)
      .done();
  Fields<FqOptions> fq(m, "FqOptions", "fq (times in microseconds, rates in bytes/s).");
  fq.rw("limit", &FqOptions::limit)
      .rw("flow_limit", &FqOptions::flowLimit)
      .rw("quantum", &FqOptions::quantum)
      .rw("initial_quantum", &FqOptions::initialQuantum)
      .rw("max_rate", &FqOptions::maxRate)
      .rw("buckets_log", &FqOptions::bucketsLog)
      .rw("pacing", &FqOptions::pacing)
      .rw("refill_delay", &FqOptions::refillDelay)
      .rw("orphan_mask", &FqOptions::orphanMask)
      .rw("ce_threshold", &FqOptions::ceThreshold)
      .rw("horizon", &FqOptions::horizon)
      .done();
  Fields<NetemOptions> netem(m, "NetemOptions", "netem: times in microseconds, probabilities as fractions of 1.");
  netem.rw("limit", &NetemOptions::limit)
      .rw("delay", &NetemOptions::delay)
      .rw("jitter", &NetemOptions::jitter)
      .rw("delay_correlation", &NetemOptions::delayCorrelation)
      .rw("loss", &NetemOptions::loss)
      .rw("loss_correlation", &NetemOptions::lossCorrelation)
      .rw("duplicate", &NetemOptions::duplicate)
      .rw("reorder", &NetemOptions::reorder)
      .rw("gap", &NetemOptions::gap)
      .rw("corrupt", &NetemOptions::corrupt)
      .rw("rate", &NetemOptions::rate)
      .done();
  Fields<TbfOptions> tbf(m, "TbfOptions", "tbf: `rate R burst B (latency T | limit B)` (bytes/s, bytes, us).");
  tbf.rw("rate", &TbfOptions::rate)
      .rw("burst", &TbfOptions::burst)
      .rw("limit", &TbfOptions::limit)
      .rw("latency", &TbfOptions::latency)
      .rw("peakrate", &TbfOptions::peakrate)
      .rw("mtu", &TbfOptions::mtu)
      .done();

  nb::class_<TcStats>(m, "TcStats", "Counters of a qdisc or class (`tc -s`).")
      .def_ro("bytes", &TcStats::bytes)
      .def_ro("packets", &TcStats::packets)
      .def_ro("drops", &TcStats::drops)
      .def_ro("overlimits", &TcStats::overlimits)
      .def_ro("requeues", &TcStats::requeues)
      .def_ro("backlog", &TcStats::backlog)
      .def_ro("qlen", &TcStats::qlen);
}

/// The handle-like fields (text "1:", "1:10", "root", "ingress").
template <class T>
Fields<T>& handleField(Fields<T>& fields, const char* name, std::optional<fastlink::TcHandle> T::*member, const char* doc) {
  return fields.template text<fastlink::TcHandle>(name, member, doc);
}

template <class T>
Fields<T>& optionsField(Fields<T>& fields) {
  return fields.template prop<nb::object>(
      "options", [](const T& t) { return optionsToPython(t.options); },
      [](T& t, nb::object v) { t.options = optionsFromPython(v); },
      "the kind's options (HtbOptions, TbfOptions, ...), None for none");
}

}  // namespace

void bindTc(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  bindOptionTypes(m);

  using fastlink::QdiscInfo;
  Fields<QdiscInfo> qdisc(m, "QdiscInfo", "A qdisc (`tc qdisc`).");
  qdisc.rw("dev", &QdiscInfo::dev, "reported as an ifindex");
  handleField(qdisc, "handle", &QdiscInfo::handle, "'1:'; unset on add: the kernel picks one");
  handleField(qdisc, "parent", &QdiscInfo::parent, "'root', 'ingress' or a class '1:10'");
  qdisc.rw("kind", &QdiscInfo::kind, "'htb', 'tbf', 'pfifo', ...");
  optionsField(qdisc);
  qdisc.ro("refcnt", &QdiscInfo::refcnt).ro("stats", &QdiscInfo::stats, "with stats=True").done();

  using fastlink::ClassInfo;
  Fields<ClassInfo> cls(m, "ClassInfo", "A tc class (`tc class`).");
  cls.rw("dev", &ClassInfo::dev);
  handleField(cls, "classid", &ClassInfo::classid, "'1:10' (required on add)");
  handleField(cls, "parent", &ClassInfo::parent, "the qdisc '1:' or a class '1:1'");
  cls.rw("kind", &ClassInfo::kind);
  optionsField(cls);
  handleField(cls, "leaf", &ClassInfo::leaf, "the qdisc attached to the class (reported)");
  cls.ro("stats", &ClassInfo::stats).done();

  nb::class_<fastlink::TcRequests>(m, "TcRequests", "tc requests for a Batch (dev as ifindex).")
      .def_static("add_qdisc", &fastlink::TcRequests::addQdisc, "qdisc"_a)
      .def_static("replace_qdisc", &fastlink::TcRequests::replaceQdisc, "qdisc"_a)
      .def_static("change_qdisc", &fastlink::TcRequests::changeQdisc, "qdisc"_a)
      .def_static("delete_qdisc", &fastlink::TcRequests::delQdisc, "qdisc"_a)
      .def_static("add_class", &fastlink::TcRequests::addClass, "cls"_a)
      .def_static("replace_class", &fastlink::TcRequests::replaceClass, "cls"_a)
      .def_static("change_class", &fastlink::TcRequests::changeClass, "cls"_a)
      .def_static("delete_class", &fastlink::TcRequests::delClass, "cls"_a);

  auto handleOf = [](const std::optional<std::string>& text) {
    return text ? std::optional(fastlink::TcHandle::parse(*text)) : std::nullopt;
  };
  nb::class_<PyTc>(m, "Tc", "qdiscs and classes (`tc`): Netlink.tc.")
      .def("add_qdisc", [](PyTc& s, const QdiscInfo& q) { unlocked([&] { s.api().addQdisc(q); }); }, "qdisc"_a,
           "tc qdisc add dev D [parent P|root] [handle H] KIND OPTIONS")
      .def("replace_qdisc", [](PyTc& s, const QdiscInfo& q) { unlocked([&] { s.api().replaceQdisc(q); }); }, "qdisc"_a)
      .def("change_qdisc", [](PyTc& s, const QdiscInfo& q) { unlocked([&] { s.api().changeQdisc(q); }); }, "qdisc"_a)
      .def("delete_qdisc", [](PyTc& s, const QdiscInfo& q) { unlocked([&] { s.api().delQdisc(q); }); }, "qdisc"_a)
      .def(
          "qdiscs",
          [handleOf](PyTc& s, std::optional<Ifref> dev, std::optional<std::string> parent, std::optional<std::string> handle,
                     bool invisible) {
            fastlink::QdiscFilter filter;
            filter.dev = std::move(dev);
            filter.parent = handleOf(parent);
            filter.handle = handleOf(handle);
            filter.invisible = invisible;
            return unlocked([&] { return s.api().qdiscs(filter); });
          },
          "dev"_a = nb::none(), "parent"_a = nb::none(), "handle"_a = nb::none(), "invisible"_a = false,
          "tc -s qdisc show [dev D] [parent P|root] [handle H] [invisible]")
      .def("add_class", [](PyTc& s, const ClassInfo& c) { unlocked([&] { s.api().addClass(c); }); }, "cls"_a,
           "tc class add dev D parent P classid C KIND OPTIONS")
      .def("replace_class", [](PyTc& s, const ClassInfo& c) { unlocked([&] { s.api().replaceClass(c); }); }, "cls"_a)
      .def("change_class", [](PyTc& s, const ClassInfo& c) { unlocked([&] { s.api().changeClass(c); }); }, "cls"_a)
      .def("delete_class", [](PyTc& s, const ClassInfo& c) { unlocked([&] { s.api().delClass(c); }); }, "cls"_a)
      .def(
          "classes",
          [handleOf](PyTc& s, const Ifref& dev, std::optional<std::string> parent, std::optional<std::string> classid) {
            fastlink::ClassFilter filter;
            filter.dev = dev;
            filter.parent = handleOf(parent);
            filter.classid = handleOf(classid);
            return unlocked([&] { return s.api().classes(filter); });
          },
          "dev"_a, "parent"_a = nb::none(), "classid"_a = nb::none(), "tc -s class show dev D [parent P] [classid C]");
  addApi<PyTc>(netlink, "tc");
}

}  // namespace fastlink::python
