#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares the source frames of the OpenMP runtime calls of two builds.

usage: check_frames.py [--bfd-addr2line PROG] STOCK GRAINCHUNK

Finds every call of a `__kmpc_*` function in each executable (llvm-objdump
-d) and asks llvm-addr2line for `-f -i` of two addresses in it: the return
address (what OMPT hands a tool as codeptr_ra, and what a sampled stack
holds) and the call instruction's last byte (what perf, gdb or HPCToolkit
look up for a caller frame). The answer is the call's frames, innermost
first: function and file:line, then each function it is inlined into with
the line of the call site. Paths are cut to their file names.

- Each runtime call the stock build makes (of every callee it calls) must
  have the same frames in the grainchunk build: the same multiset of
  (callee, frames) at the call instruction, and at the return address the
  same but for the innermost line. That line is the one of whatever
  instruction follows the call, which may be a reload the register allocator
  placed there (it has no location of its own: at -O1 and above it shows as
  line 0, at -O0 as the line before it), and the allocator places those
  differently once a loop has more code.
- The calls only the grainchunk build makes (__kmpc_for_static_chunk_* and,
  in the loop, its helper grainchunk.ask) must name a nonzero line at the
  call instruction (grainchunk.ask, right before a loop's init call, may
  read no line where an init call of its function reads none), and at both
  addresses sit in the chain of functions of one of the build's
  `__kmpc_*static_init*` calls (the loop they belong to);
  __kmpc_should_callback_per_chunk is called in grainchunk.ask only.
- --bfd-addr2line PROG (binutils' addr2line, which reads DWARF through
  libbfd like Score-P does): each call PROG reads in the stock build as
  llvm-addr2line does, at both addresses, PROG must read in the grainchunk
  build the same way. libbfd does not read DWARF 5 range lists
  (DW_FORM_rnglistx), so it drops the inline frame of an inlined region
  whose code is not one piece; where it already does so in the stock build,
  nothing is compared.

Prints each difference and "check_frames: FAILED", or "check_frames: OK, N
runtime calls match, M added calls" (and ", PROG reads K of L stock calls
alike")
and exits 0.
"""
import argparse
import os
import re
import subprocess
import sys
from collections import Counter

CALL = re.compile(r"^\s*([0-9a-f]+):\s+call[a-z]*\s+[0-9a-fx]+\s+"
                  r"<(__kmpc_[A-Za-z0-9_]+|grainchunk\.ask)(@plt)?>")
INSN = re.compile(r"^\s*([0-9a-f]+):\s")
ADDED = ("__kmpc_for_static_chunk_", "__kmpc_should_callback_per_chunk")


def calls(exe):
    """(callee, call address, return address) of every call of interest."""
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", exe],
                         capture_output=True, text=True, check=True).stdout
    found, pending = [], None
    for line in out.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if pending:
            found.append((pending[0], pending[1], addr))
            pending = None
        c = CALL.match(line)
        if c:
            pending = (c.group(2), addr)
    return found


def frames(prog, exe, addrs):
    """addr2line -f -i of each address: a tuple of (function, file:line)."""
    if not addrs:
        return []
    out = subprocess.run([prog, "-a", "-f", "-i", "-e", exe] +
                         [hex(a) for a in addrs],
                         capture_output=True, text=True, check=True).stdout
    result, cur = [], None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            cur = []
            result.append(cur)
            i += 1
            continue
        func, where = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
        where = re.sub(r" \(discriminator \d+\)$", "", where)
        cur.append((func, where.rsplit("/", 1)[-1]))
        i += 2
    return [tuple(f) for f in result]


def line_of(frame):
    """The line number of a frame's file:line, 0 if there is none."""
    num = frame[1].rsplit(":", 1)[-1]
    return int(num) if num.isdigit() else 0


def show(f):
    return " <- ".join(f"{fn} {where}" for fn, where in f)


def chain(f):
    """The functions of the frames f, innermost first."""
    return tuple(fn for fn, _ in f)


def masked(f):
    """The frames f without the innermost line."""
    return ((f[0][0], f[0][1].rsplit(":", 1)[0] + ":*"),) + tuple(f[1:]) \
        if f else f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bfd-addr2line")
    ap.add_argument("stock")
    ap.add_argument("gc")
    args = ap.parse_args()

    def lookup(prog, exe, cs):
        """(callee, frames at the call, frames at the return address)."""
        at_call = frames(prog, exe, [ret - 1 for _, _, ret in cs])
        at_ret = frames(prog, exe, [ret for _, _, ret in cs])
        return [(c, fc, fr) for (c, _, _), fc, fr in zip(cs, at_call, at_ret)]

    def keys(looked):
        return Counter((c, "call", fc) for c, fc, _ in looked) + \
            Counter((c, "ret", masked(fr)) for c, _, fr in looked)

    def show_key(key):
        return f"{key[0]} ({key[1]}) at {show(key[2])}"

    stock_calls = calls(args.stock)
    gc_calls = calls(args.gc)
    stock_names = {c for c, _, _ in stock_calls}
    errors = []
    if not stock_calls:
        errors.append("no __kmpc_* call in the stock build")
    theirs = [c for c in gc_calls if c[0] in stock_names]
    ours = [c for c in gc_calls if c[0] not in stock_names]
    for c, _, _ in ours:
        if not c.startswith(ADDED) and c != "grainchunk.ask":
            errors.append(f"the grainchunk build calls {c}, the stock one "
                          f"does not")
    llvm = "llvm-addr2line"
    stock_llvm = lookup(llvm, args.stock, stock_calls)
    want = keys(stock_llvm)
    got = keys(lookup(llvm, args.gc, theirs))
    for key in sorted(set(want) | set(got)):
        if want[key] != got[key]:
            errors.append(f"{show_key(key)}: {want[key]} in the stock build, "
                          f"{got[key]} with grainchunk")
    # Where the loops are: the function chains of the init calls.
    gc_llvm = lookup(llvm, args.gc, gc_calls)
    scopes = {chain(fc) for c, fc, _ in gc_llvm if "static_init" in c}
    # Loops whose init call reads no line (flang 19 leaves some without a
    # location, in the stock build too): the call of grainchunk.ask right
    # before it reads what it reads (the plugin gives it the init call's
    # location, so that the init call keeps stock's line); the chunk calls,
    # in blocks of their own, still name a line (the loop body's).
    lineless = {chain(fc) for c, fc, _ in gc_llvm
                if "static_init" in c and (not fc or line_of(fc[0]) == 0)}
    added = 0
    for c, fc, fr in lookup(llvm, args.gc, ours):
        added += 1
        if c == "__kmpc_should_callback_per_chunk":
            if not fc or fc[0][0] != "grainchunk.ask":
                errors.append(f"{c} called in {show(fc)}, not grainchunk.ask")
            continue
        if (not fc or line_of(fc[0]) == 0) and not (
                c == "grainchunk.ask" and chain(fc) in lineless):
            errors.append(f"{c} at {show(fc)}: no line")
        for f in (fc, fr):
            if chain(f) not in scopes:
                errors.append(f"{c} at {show(f)}: not in the scope of a loop")
    alike = 0
    if args.bfd_addr2line:
        bfd = args.bfd_addr2line
        trusted = Counter()
        for (c, fc, fr), (_, bc, br) in zip(
                stock_llvm, lookup(bfd, args.stock, stock_calls)):
            if (fc, fr) == (bc, br):
                trusted += keys([(c, fc, fr)])
                alike += 1
        got_bfd = keys(lookup(bfd, args.gc, theirs))
        for key in sorted(trusted):
            if got_bfd[key] < trusted[key]:
                errors.append(f"{bfd}: {show_key(key)}: {trusted[key]} in the "
                              f"stock build, {got_bfd[key]} with grainchunk")
    for e in errors:
        print(e)
    if errors:
        print("check_frames: FAILED")
        return 1
    tail = (f", {os.path.basename(args.bfd_addr2line)} reads {alike} of "
            f"{len(stock_calls)} stock calls alike" if args.bfd_addr2line
            else "")
    print(f"check_frames: OK, {len(theirs)} runtime calls match, "
          f"{added} added calls{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
