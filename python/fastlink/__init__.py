"""fastlink: Linux network configuration over netlink, the C++ library from Python.

    import fastlink
    with fastlink.Netlink(netns="blue") as nl:
        for link in nl.links.list(kind="bridge"):
            print(link.name, link.mtu)

See docs/python.md in the repository.
"""
from ._fastlink import *  # noqa: F401,F403
from ._fastlink import Error, EventOverflow  # noqa: F401  (the error type, an OSError, and its overflow subclass)

__version__ = "0.1.0"
