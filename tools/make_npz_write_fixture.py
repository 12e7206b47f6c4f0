#!/usr/bin/env python3
"""Writes tests/data/npz_write/zipfile_stored.npz: the archive attn::encode_npz must reproduce byte for byte.

Independent of the library: Python's zipfile stores four .npy members written by numpy (float32,
float64, int64, bool), as numpy.savez does, but with the time stamp fixed at 1980-01-01 00:00 and
the members' Unix mode 0644 (numpy.savez stamps the current time), so that the bytes are stable.

    /usr/bin/python3 tools/make_npz_write_fixture.py
"""
import io
import pathlib
import zipfile

import numpy as np

MEMBERS = {
    "encoder.layers.0.linear1.bias": np.array([0.5, -1.25, 3.0], dtype=np.float32),
    "generator.weight": np.arange(6, dtype=np.float64).reshape(2, 3) / 8,
    "ids": np.array([[1, 2, 3], [1, -7, 10]], dtype=np.int64),
    "keep": np.array([True, False, True]),
}


def main():
    out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "npz_write" / "zipfile_stored.npz"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        for key, value in MEMBERS.items():
            npy = io.BytesIO()
            np.lib.format.write_array(npy, value, version=(1, 0), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            z.writestr(info, npy.getvalue())
    out.write_bytes(archive.getvalue())
    print(out.name, len(archive.getvalue()), "bytes")


if __name__ == "__main__":
    main()
