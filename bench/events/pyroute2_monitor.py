#!/usr/bin/python3
"""pyroute2's event loop on route notifications: IPRoute().bind() then get() until SIGTERM;
prints how many route messages it decoded (stderr), like `ip monitor route` would print them."""
import errno
import signal
import sys

from pyroute2 import IPRoute
from pyroute2.netlink.rtnl import RTMGRP_IPV4_ROUTE, RTMGRP_IPV6_ROUTE

count = 0
overflows = 0


def stop(*_):
    sys.stderr.write(f"{count} {overflows}\n")
    sys.stderr.flush()
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
ipr = IPRoute()
ipr.bind(groups=RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE, rcvbuf=4 * 1024 * 1024)
while True:
    try:
        for msg in ipr.get():
            if msg["event"] in ("RTM_NEWROUTE", "RTM_DELROUTE"):
                count += 1
    except OSError as e:  # ENOBUFS: the kernel dropped events; count it and read on
        if e.errno != errno.ENOBUFS:
            raise
        overflows += 1
