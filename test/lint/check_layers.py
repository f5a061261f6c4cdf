#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check_layers.py - the runtime library's layers point one way.

libgrainchunk-rt's sources are listed bottom-up in runtime-shim/CMakeLists.txt
(GRAINCHUNK_RT_SOURCES; runtime-shim/loops.h describes the layers). This
compiles each source and checks that it uses only what the sources listed
before it define (its object's undefined symbols), and includes only their
headers (X.h belongs to X.c). Prints each violation and exits 1 if any.

    check_layers.py --cc CLANG --nm NM [-I DIR]... [--reverse] SRCDIR OUTDIR

--reverse checks the list in reverse order (the test's proof that a
violation is caught).
"""
import argparse
import os
import re
import subprocess
import sys


def sources(srcdir):
    text = open(os.path.join(srcdir, "CMakeLists.txt")).read()
    m = (re.search(r"set\(GRAINCHUNK_RT_SOURCES\s+([^)]*)\)", text) or
         re.search(r"add_library\(grainchunk-rt SHARED\s+([^)$]*)\)", text))
    if not m:
        sys.exit("check_layers: no source list in CMakeLists.txt")
    return m.group(1).split()


def symbols(nm, obj):
    out = subprocess.run([nm, obj], check=True, text=True,
                         capture_output=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVWtdbr" and f[1].isupper():
            defined.add(f[2])
    return defined, undefined


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--nm", required=True)
    ap.add_argument("-I", dest="incs", action="append", default=[])
    ap.add_argument("--reverse", action="store_true")
    ap.add_argument("srcdir")
    ap.add_argument("outdir")
    a = ap.parse_args()
    order = sources(a.srcdir)
    if a.reverse:
        order.reverse()
    rank = {os.path.splitext(s)[0]: i for i, s in enumerate(order)}
    definer = {}
    refs = {}
    for s in order:
        obj = os.path.join(a.outdir, s + ".o")
        subprocess.run([a.cc, "-c", "-O2", "-fPIC", *(f"-I{d}" for d in a.incs),
                        os.path.join(a.srcdir, s), "-o", obj], check=True)
        defined, undefined = symbols(a.nm, obj)
        for d in defined:
            definer[d] = os.path.splitext(s)[0]
        refs[os.path.splitext(s)[0]] = undefined
    bad = []
    n = 0
    for unit, undefined in refs.items():
        for sym in sorted(undefined):
            if sym in definer and definer[sym] != unit:
                n += 1
                if rank[definer[sym]] > rank[unit]:
                    bad.append(f"{unit}.c uses {sym} of {definer[sym]}.c, "
                               "a layer above it")
    for unit in rank:
        for ext in (".c", ".h"):
            path = os.path.join(a.srcdir, unit + ext)
            if not os.path.exists(path):
                continue
            for inc in re.findall(r'#include\s+"([^"]+)\.h"', open(path).read()):
                if inc in rank and rank[inc] > rank[unit]:
                    bad.append(f"{unit}{ext} includes {inc}.h, a layer "
                               "above it")
    for b in bad:
        print("check_layers:", b)
    if bad:
        return 1
    print(f"check_layers: {len(order)} sources, {n} uses across them, "
          "all of lower layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
