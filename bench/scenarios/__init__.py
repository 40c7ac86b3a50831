"""The benchmark scenarios run by bench/run, in order. To add one, see README.md here."""
from . import creation, latency, listing, mtu

SCENARIOS = [mtu, latency, listing, creation]
