// TcFilterInfo <-> RTM_{NEW,DEL,GET}TFILTER (tcmsg + TCA_*), per-classifier options
// (tc_filter.cpp), and tc actions <-> TCA_ACT_* nests, inside a filter's options or in the
// standalone action table (RTM_*ACTION, tc_action.cpp).
#pragma once

#include <linux/netlink.h>

#include <string>
#include <vector>

#include "fastlink/tc_filter.hpp"
#include "rtnl/codec_helpers.hpp"
#include "rtnl/tc_codec.hpp"

namespace fastlink::rtnl {

/// Appends a list of actions as the nest `type` (TCA_U32_ACT, TCA_FLOWER_ACT, ... or
/// TCA_ACT_TAB): one nest per action numbered from 1, each with its kind and options.
/// `forDelete`: only kind and index (tc actions del). Throws Error(EINVAL) naming `operation`.
void encodeActions(core::MessageWriter& w, uint16_t type, const std::vector<TcAction>& actions,
                   const Operation& operation, bool forDelete = false);
/// The actions of such a nest, in order.
std::vector<TcAction> decodeActions(const nlattr* nest);

/// Builders and decoders of filters, and of chains (`chain`: RTM_{NEW,DEL}CHAIN, the same
/// tcmsg with TCA_CHAIN and an optional template: TCA_KIND and TCA_OPTIONS, no pref or handle).
Request encodeFilter(const TcFilterInfo& f, Verb verb, bool chain = false);
void encodeFilterDump(core::MessageWriter& w, const TcFilterFilter& filter, uint32_t ifindex);
/// Decodes one RTM_NEWTFILTER (or DEL) message, or a chain's RTM_NEWCHAIN / DELCHAIN (dev as an
/// ifindex).
void decodeFilter(const nlmsghdr* message, TcFilterInfo& out);
/// Decodes one RTM_NEWACTION / RTM_GETACTION message: the actions of its TCA_ACT_TAB.
std::vector<TcAction> decodeActionMessage(const nlmsghdr* message);

}  // namespace fastlink::rtnl
