#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of fuzz/fuzz_snmp_varbind: SNMPv2c Response
PDUs (BER, as they follow the community in a message) of the shapes a
switch answers the collector with, each behind the byte that picks the
row-index shape. Run from the source tree:
    python3 fuzz/seeds_snmp_varbind.py fuzz/corpus/snmp_varbind
"""
import os
import sys


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + head + body


def uint(tag, v):
    b = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    return tlv(tag, b)


def sint(v):
    n = 1
    while not -(1 << (8 * n - 1)) <= v < (1 << (8 * n - 1)):
        n += 1
    return tlv(0x02, v.to_bytes(n, "big", signed=True))


def oid(*arcs):
    out = bytes([arcs[0] * 40 + arcs[1]])
    for a in arcs[2:]:
        enc = [a & 0x7F]
        a >>= 7
        while a:
            enc.append(0x80 | (a & 0x7F))
            a >>= 7
        out += bytes(reversed(enc))
    return tlv(0x06, out)


def response(varbinds, reqid=0x1234, err=0, erridx=0):
    vbl = b"".join(tlv(0x30, oid(*name) + val) for name, val in varbinds)
    return tlv(0xA2, sint(reqid) + sint(err) + sint(erridx) + tlv(0x30, vbl))


HC_IN = (1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6)
SEEDS = {
    "hc-octets": (0, [(HC_IN + (1,), uint(0x46, 123456789012)),
                      (HC_IN + (3,), uint(0x46, (1 << 64) - 1)),
                      (HC_IN + (5,), uint(0x41, 4294967295))]),
    "prio-counters": (1, [(HC_IN + (7, 3), uint(0x46, 99)),
                          (HC_IN + (7, 4), uint(0x42, 17)),
                          (HC_IN + (7, 9), uint(0x43, 100))]),
    "prio-base1": (2, [(HC_IN + (2, 8), uint(0x41, 5)),
                       (HC_IN + (2, 0), sint(-4))]),
    "fixed-index": (3, [(HC_IN + (1, 12, 0), sint(3)),
                        (HC_IN + (2, 12, 1), tlv(0x04, b"Ethernet12"))]),
    "exceptions": (0, [(HC_IN + (1,), tlv(0x80, b"")),
                       (HC_IN + (2,), tlv(0x81, b"")),
                       (HC_IN + (3,), tlv(0x82, b"")),
                       (HC_IN + (4,), tlv(0x05, b""))]),
    "mixed-types": (0, [(HC_IN + (1,), tlv(0x40, bytes([127, 0, 0, 1]))),
                        (HC_IN + (2,), oid(1, 3, 6, 1, 4, 1, 30065)),
                        (HC_IN + (3,), tlv(0x44, bytes([0x9F, 0x7B, 1, 7]))),
                        (HC_IN + (4,), tlv(0x04, b""))]),
    "error-status": (0, [], ),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (sel, vbs) in SEEDS.items():
        pdu = response(vbs, err=2 if name == "error-status" else 0,
                       erridx=1 if name == "error-status" else 0)
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([sel]) + pdu)


if __name__ == "__main__":
    main()
