#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Copies of one complete recording, each made wrong in one way, for
reader-trust.test: corrupt_recording.py RAW OUT makes OUT/<case>/ (a process
directory) for each case below from RAW's one process directory (maps.txt
left out). FIFOs and the sparse meta.txt are made by the test itself."""
import os
import shutil
import struct
import sys

raw, out = sys.argv[1], sys.argv[2]
pdirs = [os.path.join(raw, d) for d in sorted(os.listdir(raw))
         if os.path.exists(os.path.join(raw, d, "meta.txt"))]
assert len(pdirs) == 1, pdirs
src = pdirs[0]
meta = open(os.path.join(src, "meta.txt"), "rb").read()
assert b"complete 1" in meta and b"threads 2" in meta, meta


def case(name):
    d = os.path.join(out, name)
    shutil.copytree(src, d)
    if os.path.exists(os.path.join(d, "maps.txt")):
        os.remove(os.path.join(d, "maps.txt"))
    return d


def records(path):
    data = bytearray(open(path, "rb").read())
    return data, [i for i in range(0, len(data) - 31, 32)]


case("ok")
# An extra thread file numbered far beyond the threads meta.txt lists.
d = case("extra")
shutil.copy(os.path.join(d, "thread-1.bin"), os.path.join(d, "thread-999999999.bin"))
# A thread file missing, empty, or all zeros.
d = case("missing")
os.remove(os.path.join(d, "thread-1.bin"))
d = case("empty")
open(os.path.join(d, "thread-0.bin"), "wb").close()
d = case("zeroed")
p = os.path.join(d, "thread-0.bin")
open(p, "wb").write(bytes(os.path.getsize(p)))
# Thread 1's last chunk at a time near 2^63.
d = case("time")
p = os.path.join(d, "thread-1.bin")
data, offs = records(p)
chunks = [i for i in offs if data[i + 28] == 8]  # R_CHUNK, narrow
assert len(chunks) >= 2, len(chunks)
struct.pack_into("<Q", data, chunks[-1], (1 << 63) - 1000)
open(p, "wb").write(bytes(data))
# meta.txt values with NUL, 0xFF and an escape sequence: in host and exe
# (analysed), and in record_version (refused).
d = case("bytes")
m = meta.replace(b"\nhost ", b"\nhost h\x00\xff\x1b[31m").replace(
    b"\nexe ", b"\nexe /x\xff\x00/")
open(os.path.join(d, "meta.txt"), "wb").write(m)
d = case("version-bytes")
m = meta.replace(b"record_version 4", b"record_version 4\x00\xff\x1b[31m")
open(os.path.join(d, "meta.txt"), "wb").write(m)
# meta.txt missing (thread files left), or empty.
d = case("no-meta")
os.remove(os.path.join(d, "meta.txt"))
d = case("empty-meta")
open(os.path.join(d, "meta.txt"), "wb").close()
