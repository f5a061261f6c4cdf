#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check_banners.py - file banners stay whole.

A banner line (`//===- Name - what ---===//`, `/*===- Name - what ---===*`,
and the section rules `//===---===//` inside files) must be one line of at
most 80 columns: clang-format wraps a longer one, leaving a banner in two
pieces. A file's banner (in its first three lines) must name the file.
Walks the C and C++ sources under SRCROOT (not build trees), prints each
broken banner and exits 1 if any.

    check_banners.py [--skip DIR]... SRCROOT
"""
import argparse
import os
import re
import sys

EXTS = (".c", ".h", ".cpp", ".hpp", ".cc")
START = re.compile(r"^(//|/\*)===-")
WHOLE = re.compile(r"(===//|===\*/|===\*)$")
NAMED = re.compile(r"^(?://|/\*)===- (\S+) - ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("root")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    skip = {os.path.join(root, s) for s in a.skip}
    bad, files = [], 0
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "build"))
                         and os.path.join(d, x) not in skip)
        for n in sorted(names):
            if not n.endswith(EXTS):
                continue
            path = os.path.join(d, n)
            rel = os.path.relpath(path, root)
            files += 1
            with open(path, errors="replace") as f:
                lines = f.read().split("\n")
            for i, line in enumerate(lines):
                if not START.match(line):
                    continue
                if not WHOLE.search(line):
                    bad.append(f"{rel}:{i + 1}: banner broken over lines")
                elif len(line) > 80:
                    bad.append(f"{rel}:{i + 1}: banner longer than 80 "
                               "columns (clang-format will break it)")
                m = NAMED.match(line)
                if i < 3 and m and m.group(1) != n:
                    bad.append(f"{rel}:{i + 1}: banner names {m.group(1)}")
    for b in bad:
        print("check_banners:", b)
    if bad:
        return 1
    print(f"check_banners: {files} files, banners whole")
    return 0


if __name__ == "__main__":
    sys.exit(main())
