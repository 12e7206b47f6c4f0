#!/usr/bin/python3
"""Regenerates the .npy fixtures in tests/data/npy/ that tests/test_npy.cpp reads.

Run from anywhere (the output folder is found relative to this script):

    /usr/bin/python3 tools/make_npy_fixtures.py

Every file except the two deliberately broken ones is written by NumPy itself (np.save or
np.lib.format.write_array), so the C++ reader is tested against the real format rather than
against our own idea of it, and the byte-for-byte comparison in test_npy.cpp proves that what
attn::write_npy produces is what np.save produces. The values are simple (arange and a few
short literals) because the tests repeat them as literals. The output is deterministic for a
given NumPy version; the headers were generated with NumPy 1.24.
"""

import pathlib

import numpy as np

OUTPUT_DIR = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "npy"


def save(name, array):
    np.save(OUTPUT_DIR / name, array, allow_pickle=False)


def main():
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)

    # Files the reader must accept.
    # float32_2x3 is also the reference for the byte-identical comparison with attn::write_npy.
    save("float32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    # i / 10 is not representable exactly, so a reader that went through float would be caught.
    save("float64_2x2x3.npy", np.arange(12, dtype=np.float64).reshape(2, 2, 3) / 10)
    # 0.1f, 0.2f, 0.3f widen to doubles that differ from 0.1, 0.2, 0.3: the test checks the
    # reader widens exactly rather than re-rounding to the nearest short decimal.
    save("float32_1d.npy", np.array([0.1, 0.2, 0.3], dtype=np.float32))
    save("float64_scalar.npy", np.array(-1.25, dtype=np.float64))
    save("float32_empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
    # Version 2.0 has a 4-byte header length; NumPy only writes it for huge headers unless asked.
    with open(OUTPUT_DIR / "float64_version2_2x2.npy", "wb") as file:
        np.lib.format.write_array(file, np.array([[0.5, -2.0], [4.0, 1e-3]]), version=(2, 0))

    # Files the reader must refuse, each with its own explanation.
    save("float32_fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    save("int64_3.npy", np.arange(3, dtype=np.int64))
    save("float16_3.npy", np.arange(3, dtype=np.float16))
    save("bool_2.npy", np.array([True, False]))
    save("float32_big_endian_3.npy", np.arange(3, dtype=">f4"))

    # Broken files NumPy would never write: made by hand.
    complete = (OUTPUT_DIR / "float32_2x3.npy").read_bytes()
    (OUTPUT_DIR / "float32_2x3_truncated.npy").write_bytes(complete[:-4])
    # A student's CSV renamed to .npy.
    (OUTPUT_DIR / "text_not_npy.npy").write_text("0.0, 1.0, 2.0\n3.0, 4.0, 5.0\n")


if __name__ == "__main__":
    main()
