# Stub of the package: everything comes from the extension (_fastlink.pyi, written by nanobind's
# stubgen at build time) except fastlink.Error and fastlink.EventOverflow, exception types the
# extension creates at import.
from ._fastlink import *

__version__: str

class Error(OSError):
    """A failed netlink operation or bad input (an OSError: errno, strerror)."""

    extack: str
    """The kernel's extended-ack message, '' when it gave none."""
    extack_offset: int | None
    operation: str
    """What failed, in iproute2 words ('link set dev v0 mtu 70000')."""
    batch_index: int | None
    """Position of the failed request in its batch, None outside a batch."""
    reason: str
    """The extack message if any, else the errno text."""

class EventOverflow(Error):
    """The kernel dropped notifications (ENOBUFS): the reader was too slow. The EventStream stays
    usable: list the objects again to resynchronise, then keep reading."""
