#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_decode_ethtool (tests/fuzz/corpus/decode_ethtool/): reply
bodies (genlmsghdr + attributes) laid out like the kernel's ethtool replies."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "decode_ethtool")


def attr(t, payload):
    b = struct.pack("<HH", 4 + len(payload), t) + payload
    return b + b"\0" * ((4 - len(b) % 4) % 4)


def u32(t, v):
    return attr(t, struct.pack("<I", v))


def u8(t, v):
    return attr(t, struct.pack("<B", v))


def u64(t, v):
    return attr(t, struct.pack("<Q", v))


def s(t, text):
    return attr(t, text.encode() + b"\0")


def nest(t, *inner):
    return attr(t, b"".join(inner))


def genl(cmd, *attrs):
    return struct.pack("<BBH", cmd, 1, 0) + b"".join(attrs)


header = nest(1, u32(1, 2), s(2, "v0"))
compact = lambda size, *words: nest(0, attr(1, b""), u32(2, size), attr(4, b"".join(struct.pack("<I", w) for w in words)))
seeds = {
    "channels": genl(18, header, u32(2, 4), u32(3, 4), u32(6, 4), u32(7, 4)),
    "rings": genl(16, header, u32(2, 4096), u32(5, 4096), u32(6, 512), u32(9, 512), u8(11, 1), u8(13, 0)),
    "coalesce": genl(20, header, u32(2, 8), u32(3, 32), u8(11, 1), u8(12, 0)),
    "features": genl(12, header, *[attr(t, compact(40, 0xff, 0x1)[4:]) for t in (2, 3, 4, 5)]),
    "features_verbose": genl(12, header, nest(4, u32(2, 3), nest(3, nest(1, u32(1, 0), s(2, "sg"), attr(3, b""))))),
    "strset": genl(1, nest(1), nest(2, nest(1, u32(1, 4), u32(2, 2), nest(3, nest(1, u32(1, 0), s(2, "tx-scatter-gather")), nest(1, u32(1, 1), s(2, "tx-checksum-ipv4")))))),
    "stats": genl(33, nest(2, s(2, "v0")), nest(4, u32(2, 1), u32(3, 19), nest(4, u64(2, 1000)), nest(4, u64(5, 7)))),
}
os.makedirs(OUT, exist_ok=True)
for name, body in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(body)
