#!/usr/bin/env python3
"""Writes the hostile archives and headers of issue 24 (tests/test_cli_hostile_archives.cpp
reads them; fuzz/run.sh adds them to the npy and npz corpora). Run from this folder:
    /usr/bin/python3 generate.py
Plain bytes, no NumPy: each file is exactly the shape it is named after."""
import struct
import zlib


def npy(header_dict_text, data):
    """A version 1.0 .npy file with this header text (padded as NumPy pads it) and data."""
    header = header_dict_text.encode("latin1")
    header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def float64s(*values):
    return struct.pack("<%dd" % len(values), *values)


GOOD = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", float64s(1, 2, 3, 4))


def local_header(name, method, crc, compressed, uncompressed):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, compressed, uncompressed,
                       len(name), 0) + name


def central_entry(name, method, crc, compressed, uncompressed, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, compressed,
                       uncompressed, len(name), 0, 0, 0, 0, 0, offset) + name


def end_record(count, size, offset):
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, size, offset, 0)


def archive(members):
    """members: (name, payload, method, claimed uncompressed size or None)."""
    body, directory = b"", b""
    for name, payload, method, claimed in members:
        name = name.encode("utf-8")
        stored = payload if method == 0 else zlib.compress(payload)[2:-4]
        size = claimed if claimed is not None else len(payload)
        crc = zlib.crc32(payload)
        directory += central_entry(name, method, crc, len(stored), size, len(body))
        body += local_header(name, method, crc, len(stored), size) + stored
    return body + directory + end_record(len(members), len(directory), len(body))


def overlapping(names, payload):
    """One deflated member listed under every name: every entry points at the same data."""
    stored = zlib.compress(payload)[2:-4]
    crc = zlib.crc32(payload)
    first = names[0].encode()
    body = local_header(first, 8, crc, len(stored), len(payload)) + stored
    directory = b"".join(central_entry(n.encode(), 8, crc, len(stored), len(payload), 0) for n in names)
    return body + directory + end_record(len(names), len(directory), len(body))


files = {
    # Members named with a folder, or in other capitals: refused, never read as w_o or ignored.
    "member-in-folder.npz": archive([("model/w_o.npy", GOOD, 0, None)]),
    "member-in-parent.npz": archive([("../w_o.npy", GOOD, 0, None)]),
    "member-capitals.npz": archive([("Out_Proj.Weight.npy", GOOD, 0, None)]),
    # 24 entries over one deflated member of 2 MiB: 48 MiB once inflated, from a few kB.
    "overlapping-entries.npz": overlapping(["m%d.npy" % i for i in range(24)],
                                           npy("{'descr': '<f8', 'fortran_order': False, 'shape': (262144,), }",
                                               bytes(2 << 20))),
    # Three members claiming 1 GiB each: 3 GiB in all, refused before anything is inflated.
    "total-too-large.npz": archive([("a.npy", GOOD, 8, 1 << 30), ("b.npy", GOOD, 8, 1 << 30),
                                    ("c.npy", GOOD, 8, 1 << 30)]),
    # Headers with a key twice: NumPy's literal_eval keeps the last, a search for the first would not.
    "repeated-shape.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'shape': (4,), }",
                              float64s(1, 2, 3, 4)),
    "repeated-fortran-order.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), "
                                      "'fortran_order': True, }", float64s(1, 2, 3, 4)),
    "repeated-descr.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (12,), 'descr': '<f4', }",
                              struct.pack("<12f", *range(12))),
    "unknown-key.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'order': 'C', }",
                           float64s(1, 2, 3, 4)),
    "shape-not-a-tuple.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4), }", float64s(1, 2, 3, 4)),
}
for name, data in files.items():
    with open(name, "wb") as out:
        out.write(data)
