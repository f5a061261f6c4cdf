#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Packs a grainchunk recording into one input of the graph_fuzz target.

usage: pack_recording.py RAW OUT [--maps]

RAW is a process directory (it holds meta.txt) or a directory of them. OUT
gets the entries "%%NAME\\n" + bytes (see Inputs/graph_fuzz.cpp): meta.txt
and every thread-N.bin and thread-N.tail, each ring (.tail) cut after its
last record that is not zero (the reader stops at the first zero kind), and
with --maps maps.txt (left out by default: naming code pointers runs
addr2line, slow per input). Fails when a file holds the separator "\\n%%".
"""
import argparse
import os
import re
import sys

THREAD = re.compile(r"^thread-[0-9]+\.(bin|tail)$")


def trimmed_ring(data):
    """The ring without its zero-filled rest: up to its last nonzero record."""
    end = len(data) - len(data) % 32
    while end > 32 and data[end - 32:end] == bytes(32):
        end -= 32
    return data[:end]


def entries(pdir, prefix, maps):
    names = sorted(os.listdir(pdir))
    for name in ["meta.txt"] + [n for n in names if THREAD.match(n)] + (
            ["maps.txt"] if maps and "maps.txt" in names else []):
        with open(os.path.join(pdir, name), "rb") as f:
            data = f.read()
        if name.endswith(".tail"):
            data = trimmed_ring(data)
        yield prefix + name, data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--maps", action="store_true")
    a = ap.parse_args()
    if os.path.exists(os.path.join(a.raw, "meta.txt")):
        dirs = [(a.raw, "")]
    else:
        dirs = [(os.path.join(a.raw, d), d + "/") for d in sorted(os.listdir(a.raw))
                if os.path.exists(os.path.join(a.raw, d, "meta.txt"))]
    if not dirs:
        sys.exit("pack_recording.py: no meta.txt in %s or its subdirectories"
                 % a.raw)
    out = bytearray()
    for pdir, prefix in dirs:
        for name, data in entries(pdir, prefix, a.maps):
            if b"\n%%" in data:
                sys.exit("pack_recording.py: %s holds the separator" % name)
            out += b"%" + b"%" + name.encode() + b"\n" + data + b"\n"
    with open(a.out, "wb") as f:
        f.write(bytes(out[:-1]))


if __name__ == "__main__":
    main()
