#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_decode_qdisc (tests/fuzz/corpus/decode_qdisc/): tcmsg + TCA_*
bodies of qdiscs and classes of every kind fastlink decodes, with TCA_STATS2.
Rerun after changing a seed: python3 tests/fuzz/make_qdisc_seeds.py."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "decode_qdisc")


def attr(t, payload=b""):
    data = struct.pack("<HH", 4 + len(payload), t) + payload
    return data + b"\0" * (-len(data) % 4)


def u32(t, v): return attr(t, struct.pack("<I", v))
def u64(t, v): return attr(t, struct.pack("<Q", v))
def s(t, text): return attr(t, text.encode() + b"\0")
def words(*w): return struct.pack("<%dI" % len(w), *w)
def tcmsg(ifindex, handle, parent, info=1): return struct.pack("<BBHiIII", 0, 0, 0, ifindex, handle, parent, info)
def ratespec(rate): return struct.pack("<BBHhHI", 0, 1, 0, 0, 0, rate)

KIND, OPTIONS, STATS2 = 1, 2, 7
ROOT = 0xFFFFFFFF


def stats(app=b""):
    basic = struct.pack("<QII", 9000, 6, 0)
    queue = words(2, 3000, 4, 5, 7)
    body = attr(1, basic) + attr(3, queue) + attr(5, struct.pack("<QQ", 100, 1)) + u64(8, 6)
    if app:
        body += attr(4, app)
    return attr(STATS2, body)


SEEDS = {
    "pfifo": tcmsg(2, 0x10000, ROOT, 2) + s(KIND, "pfifo") + attr(OPTIONS, words(10)) + stats(),
    "bfifo": tcmsg(2, 0x80010000, 0x10001) + s(KIND, "bfifo") + attr(OPTIONS, words(10240)) + stats(),
    "pfifo_fast": tcmsg(2, 0, ROOT) + s(KIND, "pfifo_fast") + attr(OPTIONS, words(3) + bytes([1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1])) + stats(),
    "htb": tcmsg(3, 0x10000, ROOT, 3) + s(KIND, "htb") + attr(OPTIONS, attr(2, words(3, 5, 0x10, 0, 1)) + u32(5, 1000)) + stats(),
    "htb_class": tcmsg(3, 0x10020, 0x10010, 0x200000) + s(KIND, "htb")
    + attr(OPTIONS, attr(1, ratespec(125000) + ratespec(250000) + words(200000, 100000, 12500, 0, 3)) + u64(6, 5000000000))
    + stats(words(1, 2, 3, 4000, 0xFFFFFFFF)),
    "fq_codel": tcmsg(4, 0, ROOT) + s(KIND, "fq_codel")
    + attr(OPTIONS, u32(1, 4999) + u32(2, 10240) + u32(3, 99999) + u32(4, 1) + u32(5, 1024) + u32(6, 1514) + u32(8, 64) + u32(9, 33554432))
    + stats(words(0, 1514, 3, 4, 5, 6, 7, 8, 9, 10)),
    "fq": tcmsg(4, 0x80020000, ROOT) + s(KIND, "fq") + attr(OPTIONS, u32(1, 10000) + u32(2, 100) + u32(3, 3028) + u32(5, 0) + u32(8, 10))
    + stats(struct.pack("<7Qq4I3Q", 1, 2, 3, 4, 5, 6, 7, -1, 8, 9, 10, 11, 12, 13, 14)),
    "netem": tcmsg(5, 0x10000, ROOT) + s(KIND, "netem")
    + attr(OPTIONS, words(1562500, 1000, 42949673, 1, 0, 156250) + attr(1, words(1, 2, 3)) + attr(3, words(4, 5))
           + attr(4, words(6, 7)) + attr(6, words(125000, 0, 0, 0)) + u64(10, 100000000) + u64(11, 10000000)) + stats(),
    "netem_short": tcmsg(5, 0x10000, ROOT) + s(KIND, "netem") + attr(OPTIONS, words(1, 2)),
    "tbf": tcmsg(6, 0x10000, ROOT) + s(KIND, "tbf")
    + attr(OPTIONS, attr(1, ratespec(125000) + ratespec(0) + words(82768, 4096000, 0)) + u32(6, 32768) + u64(4, 125000)) + stats(),
    "ingress": tcmsg(7, 0xFFFF0000, 0xFFFFFFF1) + s(KIND, "ingress") + attr(OPTIONS, b"") + stats() + u32(13, 5),
    "unknown": tcmsg(8, 0x10000, ROOT) + s(KIND, "cake") + attr(OPTIONS, words(1, 2, 3)) + attr(99, b"\x01\x02"),
    "short": struct.pack("<BBH", 0, 0, 0),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, body in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
