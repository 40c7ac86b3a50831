// Umbrella header: every public type and object API.
#pragma once

#include "fastlink/addr.hpp"
#include "fastlink/bridge_vlan.hpp"
#include "fastlink/error.hpp"
#include "fastlink/fdb.hpp"
#include "fastlink/ethtool.hpp"
#include "fastlink/genl.hpp"
#include "fastlink/link.hpp"
#include "fastlink/neigh.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/nexthop.hpp"
#include "fastlink/prefix.hpp"
#include "fastlink/request.hpp"
#include "fastlink/route.hpp"
#include "fastlink/rule.hpp"
#include "fastlink/types.hpp"
