#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/imcost.py - code size and compile time on ImageMagick's sources.

The ImageMagick-sized row of docs/performance.md's code-size table, run by
hand (it needs a configured ImageMagick tree, so it is not part of
scripts/bench.sh or CI):

    bash scripts/imagemagick.sh fetch        # or: apt-get source imagemagick
    (cd SRC && ./configure CC=/usr/lib/llvm-22/bin/clang --disable-shared \\
        --disable-docs --without-x --without-perl --without-magick-plus-plus \\
        CFLAGS="-O2 -Wno-error=incompatible-pointer-types \\
                -Wno-error=int-conversion")
    python3 bench/imcost.py SRC [ROUNDS]

Compiles every magick/*.c that holds an OpenMP loop (where every difference
between the two builds is) with the tree's own flags, at -O2 and -O3, stock
and with the plugin, the two builds alternating file by file, ROUNDS times
(default 3). Prints, per -O level, the summed .text bytes, the summed
__kmpc_for_static_init_* call sites and the median over rounds of the
summed compile wall time, with ratios, and the stock .text of all magick/*.c
files for scale. IMCOST_PLUGIN=path/libgrainchunk.so measures another build
of the plugin. Standard library only.
"""
import glob
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import CC, PLUGIN, object_figures, text_bytes  # noqa: E402

# Another build of the plugin (e.g. an older one, for a before/after).
PLUGIN = os.environ.get("IMCOST_PLUGIN", PLUGIN)


def make_var(makefile, name):
    with open(makefile) as fh:
        for line in fh:
            if line.startswith(name + " ="):
                return line.split("=", 1)[1].strip()
    return ""


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    mk = os.path.join(src, "Makefile")
    flags = shlex.split(make_var(mk, "DEFS")) + ["-I.", "-I./config"] + \
        shlex.split(make_var(mk, "CPPFLAGS")) + \
        [f for f in shlex.split(make_var(mk, "CFLAGS"))
         if not re.fullmatch(r"-O\w*", f)]
    files = sorted(f for f in glob.glob(os.path.join(src, "magick", "*.c"))
                   if "omp parallel for" in open(f, errors="replace").read())
    out = os.path.join(src, "imcost")
    os.makedirs(out, exist_ok=True)
    print(f"imcost: {len(files)} files with OpenMP loops in {src}/magick")
    for opt in ("-O2", "-O3"):
        times = {"stock": [], "grainchunk": []}
        for r in range(rounds):
            tot = {"stock": 0.0, "grainchunk": 0.0}
            for f in files:
                for b in ("stock", "grainchunk"):
                    obj = os.path.join(out, os.path.basename(f) + f"{opt}.{b}.o")
                    cmd = [CC, opt, *flags, "-c", f, "-o", obj] + \
                        ([f"-fplugin={PLUGIN}"] if b == "grainchunk" else [])
                    t0 = time.perf_counter()
                    subprocess.run(cmd, cwd=src, check=True,
                                   capture_output=True)
                    tot[b] += time.perf_counter() - t0
            for b in tot:
                times[b].append(tot[b])
            print(f"imcost: {opt} round {r + 1}: {tot}", flush=True)
        text = {"stock": 0, "grainchunk": 0}
        sites = {"stock": 0, "grainchunk": 0}
        for f in files:
            for b in text:
                t, s = object_figures(
                    os.path.join(out, os.path.basename(f) + f"{opt}.{b}.o"))
                text[b] += t
                sites[b] += s
        ms = statistics.median(times["stock"])
        mg = statistics.median(times["grainchunk"])
        print(f"| ImageMagick {os.path.basename(src)}: {len(files)} files of "
              f"magick/ with OpenMP loops | {opt} | {text['stock']} | "
              f"{text['grainchunk']} | {text['grainchunk'] / text['stock']:.3f}"
              f" | {sites['stock']} → {sites['grainchunk']} | {ms:.2f} | "
              f"{mg:.2f} | {mg / ms:.2f} |")
    # For scale: the stock .text of all of magick/ at -O2.
    total = 0
    for f in sorted(glob.glob(os.path.join(src, "magick", "*.c"))):
        obj = os.path.join(out, os.path.basename(f) + "-O2.stock.o")
        if not os.path.exists(obj):
            subprocess.run([CC, "-O2", *flags, "-c", f, "-o", obj], cwd=src,
                           check=True, capture_output=True)
        total += text_bytes(obj)
    print(f"imcost: stock -O2 .text of all magick/*.c: {total} bytes")


if __name__ == "__main__":
    main()
