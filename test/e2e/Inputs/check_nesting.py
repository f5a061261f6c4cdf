#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the chunks grainchunk delivered for nesting.c.

usage: check_nesting.py PROGRAM_OUTPUT TOOL_LOG

The program prints "EXPECT <start> <iterations>" for every chunk of its
instrumented static loops. In chunk_tool's log those are the C lines whose
`last` field is known (grainchunk_get_chunk_info answered; the runtime's own
reports of dynamic chunks say "-"). Every expected chunk must come exactly
once, each with the parallel_data/task_data of the innermost implicit task
of its thread ("same"), which is the region of the loop it belongs to.
"""
import sys
from collections import Counter


def main():
    want = Counter()
    for line in open(sys.argv[1]):
        f = line.split()
        if f and f[0] == "EXPECT":
            want[(int(f[1]), int(f[2]))] += 1
    got = Counter()
    errors = []
    for line in open(sys.argv[2]):
        f = line.split()
        if not f or f[0] != "C" or f[5] == "-":
            continue
        got[(int(f[3]), int(f[4]))] += 1
        if f[6] != "same":
            errors.append(f"chunk start={f[3]} iterations={f[4]} came with "
                          "another region's parallel_data/task_data")
    for c in sorted(set(want) | set(got)):
        if want[c] != got[c]:
            errors.append(f"chunk start={c[0]} iterations={c[1]}: "
                          f"{want[c]} expected, {got[c]} delivered")
    if errors:
        print("check_nesting: FAILED")
        for e in errors[:20]:
            print("  " + e)
        sys.exit(1)
    print(f"check_nesting: OK, {sum(want.values())} chunks")


main()
