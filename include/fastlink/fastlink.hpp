// Umbrella header.
#pragma once

#include "fastlink/error.hpp"
#include "fastlink/link.hpp"
#include "fastlink/netlink.hpp"
#include "fastlink/netns.hpp"
#include "fastlink/request.hpp"
#include "fastlink/types.hpp"
