// Qdiscs and classes: the codec (QdiscInfo/ClassInfo <-> RTM_*QDISC / RTM_*TCLASS, tcmsg +
// TCA_*), tc handles, the request builders, and the kernel-backed TcApi over the kit.
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <charconv>
#include <cstdio>

#include "fastlink/netlink.hpp"
#include "fastlink/tc.hpp"
#include "rtnl/kit.hpp"
#include "rtnl/tc_codec.hpp"

namespace fastlink {

TcHandle TcHandle::parse(std::string_view text) {
  if (text == "root") return TcHandle(kRoot);
  if (text == "ingress" || text == "clsact") return TcHandle(kIngress);
  if (text == "none") return TcHandle(0u);
  auto bad = [&] {
    return Error::invalidArgument("tc handle", "\"" + std::string(text) + "\" is not a handle (MAJ:, MAJ:MIN in hex, root, ingress)");
  };
  auto hex = [&](std::string_view part, uint32_t max) -> uint32_t {
    if (part.empty()) return 0;
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v, 16);
    if (ec != std::errc() || end != part.data() + part.size() || v > max) throw bad();
    return v;
  };
  auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    // tc reads a bare number as a major ("1" = "1:"), as `handle 1` does.
    if (text.empty()) throw bad();
    return TcHandle(static_cast<uint16_t>(hex(text, 0xFFFF)), 0);
  }
  if (colon == 0) throw bad();
  return TcHandle(static_cast<uint16_t>(hex(text.substr(0, colon), 0xFFFF)), static_cast<uint16_t>(hex(text.substr(colon + 1), 0xFFFF)));
}

std::string TcHandle::toString() const {
  if (value == kRoot) return "root";
  if (value == kIngress) return "ingress";
  char buf[16];
  if (minor() == 0) std::snprintf(buf, sizeof buf, "%x:", major());
  else std::snprintf(buf, sizeof buf, "%x:%x", major(), minor());
  return buf;
}

}  // namespace fastlink

namespace fastlink::rtnl {
namespace {

std::string where(const std::optional<TcHandle>& parent) {
  if (!parent) return "";
  if (parent->value == TcHandle::kRoot) return " root";
  if (parent->value == TcHandle::kIngress) return " parent ffff:fff1";
  return " parent " + parent->toString();
}

/// "qdisc add dev D parent P handle H KIND" / "class ... classid C KIND", as tc words them.
template <class Info>
std::string describe(const char* object, Verb verb, const Info& o, const char* idWord, const std::optional<TcHandle>& id) {
  std::string s = std::string(object) + " " + (verb == Verb::Set ? "change" : verbWord(verb));
  if (o.dev) s += " dev " + devWord(*o.dev);
  s += where(o.parent);
  if (id) s += std::string(" ") + idWord + " " + id->toString();
  if (!o.kind.empty()) s += " " + o.kind;
  return s;
}
std::string describeQdisc(Verb verb, const QdiscInfo& q) { return describe("qdisc", verb, q, "handle", q.handle); }
std::string describeClass(Verb verb, const ClassInfo& c) { return describe("class", verb, c, "classid", c.classid); }

void checkKind(const Operation& operation, const std::string& kind) {
  if (kind.size() >= 16) throw invalid(operation, "kind \"" + kind + "\" is too long (at most 15 bytes)");
  for (char ch : kind)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-'))
      throw invalid(operation, "kind \"" + kind + "\" is not a qdisc name");
}

tcmsg& putTcmsg(core::MessageWriter& w, const std::optional<Ifref>& dev, const Operation& operation) {
  if (!dev) throw invalid(operation, "a device is required (dev NAME)");
  auto& t = w.putHeader<tcmsg>();
  t.tcm_family = AF_UNSPEC;
  t.tcm_ifindex = static_cast<int>(requireIndex(*dev, "dev", true));
  return t;
}

}  // namespace

Request encodeQdisc(const QdiscInfo& q, Verb verb) {
  Operation operation = [&] { return describeQdisc(verb, q); };
  if (!q.parent) throw invalid(operation, "a parent is required (root, ingress, clsact or parent MAJ:MIN)");
  if (verb != Verb::Del && q.kind.empty()) throw invalid(operation, "a qdisc kind is required (pfifo, htb, fq_codel, ...)");
  if (!q.kind.empty()) checkKind(operation, q.kind);
  bool ingressKind = q.kind == "ingress" || q.kind == "clsact";
  if (ingressKind && q.parent->value != TcHandle::kIngress)
    throw invalid(operation, q.kind + " sits at parent ffff:fff1 (say `" + q.kind + "`, not root or a class)");
  if (!ingressKind && !q.kind.empty() && q.parent->value == TcHandle::kIngress)
    throw invalid(operation, "only ingress and clsact sit at the ingress hook, not " + q.kind);
  if (q.handle && q.handle->minor() != 0) throw invalid(operation, "a qdisc handle has no minor number (" + q.handle->toString() + ")");
  core::MessageWriter w(messageType(verb, RTM_NEWQDISC), createFlags(verb));
  auto& t = putTcmsg(w, q.dev, operation);
  t.tcm_parent = q.parent->value;
  if (q.handle) t.tcm_handle = q.handle->value;
  else if (ingressKind) t.tcm_handle = TcHandle(0xFFFF, 0).value;
  if (!q.kind.empty()) w.putString(TCA_KIND, q.kind);
  if (verb != Verb::Del) encodeTcOptions(w, q.kind, q.options, false, operation);
  return w.toRequest(lazily(verb, q, describeQdisc));
}

Request encodeClass(const ClassInfo& c, Verb verb) {
  Operation operation = [&] { return describeClass(verb, c); };
  if (!c.classid) throw invalid(operation, "a classid is required (classid MAJ:MIN)");
  if (c.classid->minor() == 0 || c.classid->value == TcHandle::kRoot)
    throw invalid(operation, "classid " + c.classid->toString() + " names a qdisc, not a class (MAJ:MIN with MIN > 0)");
  bool creates = verb == Verb::Add || verb == Verb::Replace;
  if (creates && !c.parent) throw invalid(operation, "a parent is required (parent MAJ: or MAJ:MIN, or root)");
  if (c.parent && c.parent->value != TcHandle::kRoot && c.parent->major() != c.classid->major())
    throw invalid(operation, "classid " + c.classid->toString() + " and parent " + c.parent->toString() +
                                 " belong to different qdiscs (their majors differ)");
  if (verb != Verb::Del && c.kind.empty()) throw invalid(operation, "a class kind is required (htb, ...)");
  if (!c.kind.empty()) checkKind(operation, c.kind);
  core::MessageWriter w(messageType(verb, RTM_NEWTCLASS), createFlags(verb));
  auto& t = putTcmsg(w, c.dev, operation);
  if (c.parent) t.tcm_parent = c.parent->value;
  t.tcm_handle = c.classid->value;
  if (!c.kind.empty()) w.putString(TCA_KIND, c.kind);
  if (verb != Verb::Del) encodeTcOptions(w, c.kind, c.options, true, operation);
  return w.toRequest(lazily(verb, c, describeClass));
}

namespace {

/// A qdisc or class dump: the device's (0: every device's).
void encodeTcDump(core::MessageWriter& w, uint32_t ifindex) {
  auto& t = w.putHeader<tcmsg>();
  t.tcm_family = AF_UNSPEC;
  t.tcm_ifindex = static_cast<int>(ifindex);
}

/// What qdiscs and classes share: `out` reset, its device, kind, options and statistics decoded
/// (`extra` takes the attributes only one of them has); returns the tcmsg.
template <class Info, class Extra>
const tcmsg& decodeCommon(const nlmsghdr* m, Info& out, const char* noun, bool isClass, Extra&& extra) {
  out = Info();
  const auto& t = headerOf<tcmsg>(m, noun);
  out.dev = Ifref(static_cast<uint32_t>(t.tcm_ifindex));
  const nlattr* options = nullptr;
  const nlattr* stats2 = nullptr;
  forEachAttr(attrsOf(m, sizeof(tcmsg)), [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case TCA_KIND: out.kind = core::readString(a); break;
      case TCA_OPTIONS: options = a; break;
      case TCA_STATS2: stats2 = a; break;
      case TCA_STATS:   // the old tc_stats and xstats repeat TCA_STATS2
      case TCA_XSTATS:
      case TCA_PAD: break;
      default:
        if (!extra(a)) out.unknown.append(core::attrType(a), core::readBytes(a));
    }
  });
  out.options = decodeTcOptions(out.kind, options, isClass);
  if (stats2) out.stats = decodeTcStats(out.kind, stats2, isClass);
  return t;
}

}  // namespace

void decodeQdisc(const nlmsghdr* m, QdiscInfo& out) {
  const tcmsg& t = decodeCommon(m, out, "qdisc", false, [&](const nlattr* a) {
    switch (core::attrType(a)) {
      case TCA_HW_OFFLOAD: out.offloaded = core::readU8(a) != 0; return true;
      case TCA_INGRESS_BLOCK: out.ingressBlock = core::readU32(a); return true;
      case TCA_EGRESS_BLOCK: out.egressBlock = core::readU32(a); return true;
    }
    return false;
  });
  out.handle = TcHandle(t.tcm_handle);
  out.parent = TcHandle(t.tcm_parent);
  out.refcnt = t.tcm_info;
}

void decodeClass(const nlmsghdr* m, ClassInfo& out) {
  const tcmsg& t = decodeCommon(m, out, "class", true, [](const nlattr*) { return false; });
  out.classid = TcHandle(t.tcm_handle);
  out.parent = TcHandle(t.tcm_parent);
  if (t.tcm_info) out.leaf = TcHandle(t.tcm_info);
}

}  // namespace fastlink::rtnl

namespace fastlink {
namespace {

uint32_t devIndex(const std::optional<Ifref>& dev) { return dev && dev->isIndex() ? dev->index() : 0; }

struct QdiscTraits : rtnl::Object<QdiscInfo, QdiscFilter, RTM_NEWQDISC> {
  static constexpr const char* kNoun = "qdisc";
  static void encodeDump(core::MessageWriter& w, const Filter& f, const rtnl::Indexes& ix) {
    rtnl::encodeTcDump(w, ix.dev);
    if (f.invisible) w.putFlag(TCA_DUMP_INVISIBLE);
  }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { rtnl::decodeQdisc(m, out); }
  // The kernel filters by device; the parent and handle are matched here, like tc.
  static bool matches(const Info& q, const Filter& f, const rtnl::Indexes& ix) {
    return (!ix.dev || devIndex(q.dev) == ix.dev) && (!f.parent || q.parent == f.parent) && (!f.handle || q.handle == f.handle);
  }
  static std::string show(const Filter& f) { return f.dev ? "qdisc show dev " + rtnl::devWord(*f.dev) : "qdisc show"; }
};

struct ClassTraits : rtnl::Object<ClassInfo, ClassFilter, RTM_NEWTCLASS> {
  static constexpr const char* kNoun = "class";
  static void encodeDump(core::MessageWriter& w, const Filter&, const rtnl::Indexes& ix) { rtnl::encodeTcDump(w, ix.dev); }
  static void decode(const nlmsghdr* m, Info& out, const Filter&) { rtnl::decodeClass(m, out); }
  static bool matches(const Info& c, const Filter& f, const rtnl::Indexes& ix) {
    return (!ix.dev || devIndex(c.dev) == ix.dev) && (!f.parent || c.parent == f.parent) && (!f.classid || c.classid == f.classid);
  }
  static std::string show(const Filter& f) { return f.dev ? "class show dev " + rtnl::devWord(*f.dev) : "class show"; }
};

/// The kernel quietly makes a class whose parent class does not exist a top-level class (htb):
/// refuse that before anything is sent.
void requireParentClass(core::Engine& engine, const ClassInfo& c, const std::string& verb) {
  if (!c.parent || c.parent->value == TcHandle::kRoot || c.parent->minor() == 0 || !c.dev) return;
  ClassFilter f;
  f.dev = c.dev;
  f.classid = *c.parent;
  if (!rtnl::list<ClassTraits>(engine, f).empty()) return;
  throw Error(std::make_error_code(std::errc::no_such_file_or_directory),
              "class " + verb + " dev " + rtnl::devWord(*c.dev) + " parent " + c.parent->toString() + " classid " +
                  (c.classid ? c.classid->toString() : "?"),
              "parent class " + c.parent->toString() + " does not exist");
}

/// A class add or replace: the input checked with a placeholder ifindex (like rtnl::apply),
/// before any lookup; then the parent class required; then resolved and sent.
void createClass(core::Engine& engine, const ClassInfo& c, const std::string& verb, Request (*build)(const ClassInfo&)) {
  ClassInfo probe = c;
  if (probe.dev && probe.dev->isName()) probe.dev = Ifref(1u);
  (void)build(probe);
  requireParentClass(engine, c, verb);
  rtnl::apply<ClassTraits>(engine, c, build);
}

/// The kernel dumps one device's classes.
const ClassFilter& requireDevice(const ClassFilter& filter) {
  if (!filter.dev) throw Error::invalidArgument("class show", "a device is required (the kernel dumps one device's classes)");
  return filter;
}

}  // namespace

TcApi& Netlink::tc() { return lazy(tc_); }

FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, QdiscTraits, addQdisc, Add, encodeQdisc)
FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, QdiscTraits, replaceQdisc, Replace, encodeQdisc)
FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, QdiscTraits, changeQdisc, Set, encodeQdisc)
FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, QdiscTraits, delQdisc, Del, encodeQdisc)
FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, ClassTraits, changeClass, Set, encodeClass)
FASTLINK_RTNL_VERB_OF(TcRequests, TcApi, ClassTraits, delClass, Del, encodeClass)

Request TcRequests::addClass(const ClassInfo& c) { return rtnl::encodeClass(c, rtnl::Verb::Add); }
Request TcRequests::replaceClass(const ClassInfo& c) { return rtnl::encodeClass(c, rtnl::Verb::Replace); }
void TcApi::addClass(const ClassInfo& c) { createClass(engine_, c, "add", TcRequests::addClass); }
void TcApi::replaceClass(const ClassInfo& c) { createClass(engine_, c, "replace", TcRequests::replaceClass); }

std::vector<QdiscInfo> TcApi::qdiscs(const QdiscFilter& filter) { return rtnl::list<QdiscTraits>(engine_, filter); }
// The kernel ignores tcm_ifindex in qdisc dumps (6.1 and 6.18 send every device's qdiscs):
// the request still carries it (a kernel that filters is used as such), and QdiscTraits::matches
// keeps the device's. RTM_GETQDISC by parent (root, ingress) is no way out: the kernel sends its
// answer to every RTNLGRP_TC listener as well (qdisc_get_notify; NLM_F_ECHO only adds us), so
// each show would print a qdisc event in every `tc monitor`, and it answers nothing at all for
// a builtin noop qdisc (a device that is down).
void TcApi::forEachQdisc(const QdiscFilter& filter, const std::function<void(const QdiscInfo&)>& each,
                         const std::function<void()>& restart) {
  rtnl::forEach<QdiscTraits>(engine_, filter, each, restart);
}

std::vector<ClassInfo> TcApi::classes(const ClassFilter& filter) { return rtnl::list<ClassTraits>(engine_, requireDevice(filter)); }
void TcApi::forEachClass(const ClassFilter& filter, const std::function<void(const ClassInfo&)>& each,
                         const std::function<void()>& restart) {
  rtnl::forEach<ClassTraits>(engine_, requireDevice(filter), each, restart);
}

}  // namespace fastlink
