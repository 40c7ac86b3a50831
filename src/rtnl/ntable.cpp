// Neighbour tables: RTM_GETNEIGHTBL dumps and RTM_SETNEIGHTBL (ndtmsg, NDTA_*, NDTA_PARMS {
// NDTPA_* }), over the Netlink's rtnetlink socket.
#include "fastlink/ntable.hpp"

#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <string>

#include "core/attr_rows.hpp"
#include "core/engine.hpp"
#include "core/message.hpp"
#include "fastlink/error.hpp"
#include "fastlink/netlink.hpp"
#include "rtnl/dump_all.hpp"

namespace fastlink {
namespace {

[[noreturn]] void malformed(const char* why) { throw Error(make_error_code(Errc::malformed_reply), "ntable show", why); }

// A table's (or a device's) parameters, in the order ip sends them; the kernel reports refcnt
// and reachable (drawn around base_reachable), which are not set.
constexpr core::FieldTable kParmFields({
    core::field<NDTPA_IFINDEX, &NeighTableParms::ifindex>(),
    core::field<NDTPA_REFCNT, &NeighTableParms::refcnt, core::Wire::Reported>(),
    core::field<NDTPA_REACHABLE_TIME, &NeighTableParms::reachable, core::Wire::Reported>(),
    core::field<NDTPA_BASE_REACHABLE_TIME, &NeighTableParms::baseReachable>(),
    core::field<NDTPA_RETRANS_TIME, &NeighTableParms::retrans>(),
    core::field<NDTPA_GC_STALETIME, &NeighTableParms::gcStale>(),
    core::field<NDTPA_DELAY_PROBE_TIME, &NeighTableParms::delayProbe>(),
    core::field<NDTPA_QUEUE_LEN, &NeighTableParms::queueLen>(),
    core::field<NDTPA_APP_PROBES, &NeighTableParms::appProbes>(),
    core::field<NDTPA_UCAST_PROBES, &NeighTableParms::ucastProbes>(),
    core::field<NDTPA_MCAST_PROBES, &NeighTableParms::mcastProbes>(),
    core::field<NDTPA_ANYCAST_DELAY, &NeighTableParms::anycastDelay>(),
    core::field<NDTPA_PROXY_DELAY, &NeighTableParms::proxyDelay>(),
    core::field<NDTPA_PROXY_QLEN, &NeighTableParms::proxyQlen>(),
    core::field<NDTPA_LOCKTIME, &NeighTableParms::locktime>(),
});

bool changesParms(const NeighTableParms& p) {
  return p.baseReachable || p.retrans || p.gcStale || p.delayProbe || p.queueLen || p.appProbes || p.ucastProbes ||
         p.mcastProbes || p.anycastDelay || p.proxyDelay || p.proxyQlen || p.locktime;
}

NeighTableParms decodeParms(const nlattr* nest) {
  NeighTableParms p;
  core::decodeKnown(kParmFields, core::nestPayload(nest), p, core::FieldContext{"ntable show"});
  return p;
}

}  // namespace

Request NeighTableRequests::change(const NeighTableChange& c) {
  if (c.name.empty()) throw Error(std::make_error_code(std::errc::invalid_argument), "ntable change", "a table name is required");
  if (!c.thresh1 && !c.thresh2 && !c.thresh3 && !c.gcInterval && !changesParms(c.parms))
    throw Error(std::make_error_code(std::errc::invalid_argument), "ntable change name " + c.name,
                "nothing to change (thresholds, gc_int or parameters)");
  core::MessageWriter w(RTM_SETNEIGHTBL, NLM_F_REPLACE);
  w.putHeader<ndtmsg>().ndtm_family = c.family;
  w.putString(NDTA_NAME, c.name);
  if (c.thresh1) w.putU32(NDTA_THRESH1, *c.thresh1);
  if (c.thresh2) w.putU32(NDTA_THRESH2, *c.thresh2);
  if (c.thresh3) w.putU32(NDTA_THRESH3, *c.thresh3);
  if (c.gcInterval) w.putU64(NDTA_GC_INTERVAL, *c.gcInterval);
  if (c.parms.ifindex || changesParms(c.parms)) {
    std::size_t nest = w.beginNest(NDTA_PARMS);
    kParmFields.encode(w, c.parms);
    w.endNest(nest);
  }
  std::string what = "ntable change name " + c.name;
  if (c.parms.ifindex) what += " dev " + std::to_string(*c.parms.ifindex);
  return Request(w.release(), what);
}

Request NeighTableRequests::list(uint8_t family) {
  core::MessageWriter w(RTM_GETNEIGHTBL, NLM_F_DUMP);
  w.putHeader<ndtmsg>().ndtm_family = family;
  return Request(w.release(), "ntable show");
}

NeighTableInfo decodeNeighTable(const nlmsghdr* m) {
  if (m->nlmsg_len < NLMSG_LENGTH(sizeof(ndtmsg))) malformed("shorter than ndtmsg");
  NeighTableInfo t;
  t.family = static_cast<const ndtmsg*>(NLMSG_DATA(m))->ndtm_family;
  core::AttrTable a = core::AttrTable::ofMessage(m, sizeof(ndtmsg), NDTA_MAX);
  const nlattr* name = a.get(NDTA_NAME);
  if (!name) malformed("a table without its name");
  auto bytes = core::readBytes(name);
  t.name.assign(reinterpret_cast<const char*>(bytes.data()), strnlen(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (const nlattr* v = a.get(NDTA_THRESH1)) t.thresh1 = core::readU32(v);
  if (const nlattr* v = a.get(NDTA_THRESH2)) t.thresh2 = core::readU32(v);
  if (const nlattr* v = a.get(NDTA_THRESH3)) t.thresh3 = core::readU32(v);
  if (const nlattr* v = a.get(NDTA_GC_INTERVAL)) t.gcInterval = core::readU64(v);
  if (const nlattr* v = a.get(NDTA_CONFIG)) {
    auto c = rtnl::readWhole<ndt_config>(v, "ntable show", "ndt_config shorter than its struct");
    t.config = NeighTableConfig{.keyLength = c.ndtc_key_len, .entrySize = c.ndtc_entry_size, .entries = c.ndtc_entries,
                                .lastFlushMs = c.ndtc_last_flush, .lastRandMs = c.ndtc_last_rand, .hashRnd = c.ndtc_hash_rnd,
                                .hashMask = c.ndtc_hash_mask, .hashChainGc = c.ndtc_hash_chain_gc, .proxyQlen = c.ndtc_proxy_qlen};
  }
  if (const nlattr* v = a.get(NDTA_PARMS)) t.parms = decodeParms(v);
  if (const nlattr* v = a.get(NDTA_STATS)) {
    auto s = rtnl::readWhole<ndt_stats>(v, "ntable show", "ndt_stats shorter than its struct");
    t.stats = NeighTableStats{.allocs = s.ndts_allocs, .destroys = s.ndts_destroys, .hashGrows = s.ndts_hash_grows,
                              .resFailed = s.ndts_res_failed, .lookups = s.ndts_lookups, .hits = s.ndts_hits,
                              .rcvProbesMcast = s.ndts_rcv_probes_mcast, .rcvProbesUcast = s.ndts_rcv_probes_ucast,
                              .periodicGcRuns = s.ndts_periodic_gc_runs, .forcedGcRuns = s.ndts_forced_gc_runs,
                              .tableFulls = s.ndts_table_fulls};
  }
  return t;
}

std::vector<NeighTableInfo> NeighTableApi::list(uint8_t family) {
  return rtnl::dumpAll(engine_, NeighTableRequests::list(family), RTM_NEWNEIGHTBL, decodeNeighTable);
}

void NeighTableApi::change(const NeighTableChange& change) { engine_.execute(NeighTableRequests::change(change)); }

NeighTableApi& Netlink::neighbourTables() { return lazy(neighbourTables_); }

}  // namespace fastlink
