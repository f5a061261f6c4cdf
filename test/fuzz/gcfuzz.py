#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Differential fuzzer: random OpenMP programs, stock Clang vs grainchunk.

Each program has a few parallel regions with statically scheduled loops of a
random shape: iteration-variable type (8 to 64 bits, signed or unsigned),
bounds (also next to the type's limits), comparison, step sign and size,
chunk size (literal or computed at run time), team size (1, 2, 3, 4, 7 or a
serialized region), construct (parallel for, for in a parallel region with
or without nowait, orphaned for in a called function, parallel for simd,
collapse(2), lastprivate, class-type private and firstprivate objects
(C++), teams distribute with or without dist_schedule,
teams distribute parallel for,
a parallel loop nested in another),
optimization level, language (C or C++), Clang's OpenMPIRBuilder on or
off, and build flags that change Clang's code (-save-temps,
-fsanitize=undefined, -ftrapv).

One program in eight is a near-limit program instead: one loop whose
logical iteration space ends next to the limit of a 32- or 64-bit type
(trip counts around 2^30, 2^31, 2^32, 2^62, 2^63, 2^64, chunks up to the
type's limit), run by a one-thread or serialized team under the tool, or by
2-4 threads where the fuzzer's own simulation of Clang's chunk loop stays
inside the type (beyond it stock Clang itself overflows). Its body only
counts iterations and sums the loop variable, which LLVM folds to a
constant per chunk at -O1 and above, so 2^62 iterations take as long as a
few chunks.

For each program the fuzzer computes, on its own (never from the program):
  - which values the loop variable takes, hence each loop's trip count and
    the checksum the program must print;
  - OpenMP's static schedule (chunk k of a loop on thread k mod T), checked
    by test/e2e/check_chunks.py against what an OMPT tool was told.
It builds the program with stock Clang and with -fplugin=libgrainchunk.so +
libgrainchunk-rt, runs the stock build with no tool and the grainchunk build
under the test tool, and requires: both outputs equal the model's, and the
tool saw every chunk exactly once, on the right thread, with exact bounds.

With --lang fortran the programs are Fortran, built with the build's flang
(stock, and with -fpass-plugin=libGrainChunkPass.so): `!$omp do` loops over
DO variables of integer kinds 1, 2, 4 and 8 with random bounds (also next to
the kind's limits, literal or set at run time) and steps (negative and
non-unit), schedule(static[, chunk]) (literal or run-time chunk) or none,
as `parallel do`, `parallel do simd`, `do` in a parallel region (with or
without nowait), orphaned `do` in a module procedure or an external
subroutine, collapse(2), lastprivate, a `parallel do` nested in another's
iterations; every loop reduces into an integer(8); -O0 to -O3, with or
without -g. The checks are the same.

usage:
  gcfuzz.py --build BUILD_DIR [--lang c|fortran] [--count N] [--seed S]
            [--jobs J] [--keep DIR]
A failing program is kept in DIR (default BUILD_DIR/fuzz-failures) with its
source, the model, both outputs, the tool log and a reproduce.sh.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_CHUNKS = os.path.join(HERE, "..", "e2e", "check_chunks.py")
MASK = (1 << 64) - 1

# C type, bits, signed
TYPES = [("signed char", 8, True), ("unsigned char", 8, False),
         ("short", 16, True), ("unsigned short", 16, False),
         ("int", 32, True), ("unsigned", 32, False),
         ("long", 64, True), ("unsigned long", 64, False),
         ("long long", 64, True), ("unsigned long long", 64, False)]
TEAMS = [1, 2, 3, 4, 7]
# Clang's major version. Clang 14 and 15 with their libomp run static loops
# with a (non)monotonic modifier wrongly even without grainchunk (every
# thread runs every iteration): no modifiers for them.
CLANG_MAJOR = 22
# flang's major version (the build's GRAINCHUNK_FLANG).
FLANG_MAJOR = 22


def type_range(bits, signed):
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else \
        (0, (1 << bits) - 1)


def mix(v):
    """What the loop body adds for loop-variable value v (mod 2^64)."""
    u = v & MASK
    return ((u * 0x9E3779B97F4A7C15) ^ (u >> 7)) & MASK


MIX_C = ("static unsigned long long mix(unsigned long long u) "
         "{ return (u * 0x9E3779B97F4A7C15ULL) ^ (u >> 7); }\n"
         "static int team_members;\n")
COUNT_C = "#pragma omp atomic\nteam_members++;"
# Class-type private data (C++ only; a C build gets the same loop without
# them): a private and a firstprivate object with constructors, a copy
# constructor and a destructor. GC_ONE(x) is x in both languages.
OBJ_C = """#ifdef __cplusplus
struct Obj { unsigned long long v; Obj() : v(1) {}
  Obj(const Obj &o) : v(o.v) {} ~Obj() { v = 0; } };
static Obj gc_p, gc_f;
#define GC_OBJS private(gc_p) firstprivate(gc_f)
#define GC_ONE(x) (gc_p.v = (x), gc_p.v * gc_f.v)
#else
#define GC_OBJS
#define GC_ONE(x) (x)
#endif
"""


def c_int(v, bits, signed):
    """A C literal of value v that is valid for the type."""
    if signed and v == -(1 << (bits - 1)):
        return f"({v + 1}LL - 1)"
    return f"{v}LL" if signed else f"{v}ULL"


class Loop:
    """One loop nest level: for (T i = lo; i CMP hi; i += step)."""

    def __init__(self, rng, var):
        self.var = var
        self.ctype, bits, signed = rng.choice(TYPES)
        tmin, tmax = type_range(bits, signed)
        trip_hint = rng.choice([0, 1, 2, 3, 5, 7, 10, 17, 40, 100, 333, 1000])
        step = rng.choice([1, 1, 1, 2, 3, 5, 7, 64])
        up = rng.random() < 0.6
        incl = rng.random() < 0.5
        span = trip_hint * step
        # Start near zero, near the type's minimum or near its maximum.
        where = rng.choice(["zero", "zero", "min", "max"])
        if up:
            lo_lim, hi_lim = tmin, tmax - span - 1
        else:
            lo_lim, hi_lim = tmin + span + 1, tmax
        if hi_lim < lo_lim:  # the type is too small for this trip: shrink
            step, span = 1, min(span, (tmax - tmin) // 2)
            lo_lim, hi_lim = (tmin, tmax - span - 1) if up else \
                (tmin + span + 1, tmax)
        if where == "min":
            start = lo_lim + rng.randrange(0, 4)
        elif where == "max":
            start = hi_lim - rng.randrange(0, 4)
        else:
            start = min(max(rng.randrange(-50, 50), lo_lim), hi_lim)
        end = start + span if up else start - span
        end += rng.choice([0, 0, 1, -1])  # not always a multiple of the step
        end = min(max(end, tmin), tmax)
        self.lo, self.hi, self.step, self.up, self.incl = \
            start, end, step, up, incl
        if up:
            self.cmp = "<=" if incl else "<"
        else:
            self.cmp = ">=" if incl else ">"
        self.bits, self.signed = bits, signed

    def values(self):
        v, out = self.lo, []
        while (v <= self.hi if self.incl else v < self.hi) if self.up else \
              (v >= self.hi if self.incl else v > self.hi):
            out.append(v)
            v = v + self.step if self.up else v - self.step
        return out

    def header(self):
        b, s = self.bits, self.signed
        inc = f"{self.var} += {self.step}" if self.up else \
            f"{self.var} -= {self.step}"
        return (f"for ({self.ctype} {self.var} = ({self.ctype}){c_int(self.lo, b, s)}; "
                f"{self.var} {self.cmp} ({self.ctype}){c_int(self.hi, b, s)}; {inc})")


class Region:
    def __init__(self, rng, idx):
        self.idx = idx
        self.serial = rng.random() < 0.07
        self.threads = 1 if self.serial else rng.choice(TEAMS)
        self.kind = rng.choice(["pfor", "pfor", "pfor_simd", "for_in_par",
                                "orphan", "collapse2", "lastprivate",
                                "distribute", "nested"])
        if self.kind == "distribute":  # a league of 2 to 4 teams
            self.serial = False
            self.threads = rng.choice([2, 3, 4])
            # distribute parallel for: each distribute chunk forks a region
            # of inner_threads threads for the inner loop (chunk 0: none)
            self.combined = rng.random() < 0.4
            self.inner_threads = rng.choice([1, 2, 3])
            self.inner_chunk = rng.choice([0, 1, 2, 3, 5])
        if self.kind == "nested":  # an outer loop whose iterations fork
            self.serial = False
            self.threads = rng.choice([1, 2, 3])
            self.outer_trip = rng.choice([1, 2, 3, 5])
            self.outer_chunk = rng.choice([0, 1, 2])
            self.inner_threads = rng.choice([1, 2, 3])
        nloops = 2 if self.kind in ("for_in_par", "orphan") and \
            rng.random() < 0.5 else 1
        self.loops = []
        # A combined construct whose loop has no iterations is a parallel
        # region without effects, which LLVM's OpenMPOpt may delete: keep
        # zero-trip loops to the non-combined kinds (their regions count
        # their threads, an effect).
        combined = self.kind not in ("for_in_par", "orphan", "distribute")
        for j in range(nloops):
            nest = [Loop(rng, "i")]
            while combined and not nest[0].values():
                nest = [Loop(rng, "i")]
            if self.kind == "collapse2":
                nest.append(Loop(rng, "j"))
                # keep collapsed nests small
                while not 0 < len(nest[0].values()) * \
                        len(nest[1].values()) <= 4000:
                    nest = [Loop(rng, "i"), Loop(rng, "j")]
            # 0: schedule(static) without a chunk (or no schedule clause)
            chunk = rng.choice([0, 0, 1, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64,
                                1000])
            runtime_chunk = chunk and rng.random() < 0.3
            nowait = self.kind in ("for_in_par", "orphan") and \
                rng.random() < 0.5
            self.loops.append((nest, chunk, runtime_chunk, nowait))

    def trips(self):
        out = []
        for nest, chunk, _, _ in self.loops:
            t = 1
            for lp in nest:
                t *= len(lp.values())
            out.append((t, chunk))
        return out

    def sums(self):
        out = []
        for nest, _, _, _ in self.loops:
            if self.kind == "nested":
                inner = sum(mix(v) for v in nest[0].values()) & MASK
                out.append(sum(inner * (k + 1)
                               for k in range(self.outer_trip)) & MASK)
            elif len(nest) == 1:
                vals = nest[0].values()
                s = sum(mix(v) for v in vals) & MASK
                out.append(s)
                if self.kind == "lastprivate":
                    out.append(vals[-1] & MASK if vals else 0)
            else:
                a = nest[0].values()
                b = nest[1].values()
                out.append(sum((mix(x) * 3 + mix(y)) & MASK
                               for x in a for y in b) & MASK)
        return out


LIMIT_TYPES = [("int", 32, True), ("unsigned", 32, False),
               ("long", 64, True), ("unsigned long", 64, False),
               ("long long", 64, True), ("unsigned long long", 64, False)]


class LimitsRegion:
    """One loop whose logical iteration space ends next to its type's limit.

    The logical iteration variable Clang uses has the loop variable's width
    (32 or 64 bits here); its signedness is read from the IR (run_one)."""

    def __init__(self, rng, idx):
        self.idx = idx
        self.kind = "limits"
        self.ctype, bits, signed = rng.choice(LIMIT_TYPES)
        self.bits = bits
        tmin, tmax = type_range(bits, signed)
        width = tmax - tmin  # values the type holds, minus one
        self.step = rng.choice([1, 1, 1, 2, 3])
        exp = rng.choice([bits - 2, bits - 2, bits - 1, bits - 1, bits])
        trip = (1 << exp) + rng.randint(-9, 9)
        trip = max(1, min(trip, width // self.step))
        self.up = rng.random() < 0.7
        span = (trip - 1) * self.step
        # Start at the type's minimum, at 0 (or 1), or so that the loop ends
        # at the type's maximum.
        where = rng.choice(["min", "zero", "max"])
        if self.up:
            lo_lim, hi_lim = tmin, tmax - span
        else:
            lo_lim, hi_lim = tmin + span, tmax
        start = {"min": lo_lim, "max": hi_lim,
                 "zero": min(max(rng.choice([0, 1]), lo_lim), hi_lim)}[where]
        self.lo = start
        last = start + span if self.up else start - span
        self.incl = rng.random() < 0.5
        if self.incl:
            self.hi = last
        else:  # i < hi (i > hi): one step past the last value, if it fits
            nxt = last + 1 if self.up else last - 1
            if not tmin <= nxt <= tmax:
                self.incl, nxt = True, last
            self.hi = nxt
        self.trip = trip
        # A chunk size that makes the chunk walk reach the limit: from a few
        # chunks to a few thousand (each one is a tool event).
        cmax = (1 << (bits - 1)) - 1  # the runtime takes a signed chunk
        kind = rng.choice(["big", "third", "power", "odd"])
        if kind == "big":
            chunk = cmax - rng.randint(0, 9)
        elif kind == "third":
            chunk = trip // rng.choice([2, 3, 7]) + rng.randint(-3, 3)
        elif kind == "power":
            chunk = (1 << rng.randint(bits - 12, bits - 2)) + \
                rng.choice([-1, 0, 1])
        else:
            chunk = trip // rng.randint(2, 4000) * 2 + 1
        self.chunk = max(1, min(chunk, cmax))
        while -(-trip // self.chunk) > 4000:
            self.chunk = min(cmax, self.chunk * 2 + 1)
        self.serial = rng.random() < 0.25
        self.threads = 1 if self.serial else rng.choice([1, 1, 2, 3, 4])
        # More than one thread only where Clang's chunk loop stays inside
        # the type whatever its signedness (beyond it stock Clang overflows).
        if self.threads > 1 and not all(
                clang_walk_fits(trip, self.chunk, self.threads, bits, sg)
                for sg in (True, False)):
            self.threads = 1

    def values_count_sum(self):
        n, lo, st = self.trip, self.lo, self.step if self.up else -self.step
        return n & MASK, (n * lo + st * (n * (n - 1) // 2)) & MASK

    def header(self):
        b, sg = self.bits, self.ctype.startswith("unsigned") is False
        cmp = ("<=" if self.incl else "<") if self.up else \
            (">=" if self.incl else ">")
        inc = f"i += {self.step}" if self.up else f"i -= {self.step}"
        return (f"for ({self.ctype} i = ({self.ctype}){c_int(self.lo, b, sg)}; "
                f"i {cmp} ({self.ctype}){c_int(self.hi, b, sg)}; {inc})")

    def code(self):
        par = f"num_threads({self.threads})" + (" if(0)" if self.serial
                                                 else "")
        sfx = "LL"
        return (f"unsigned long long cnt = 0, sum = 0;\n"
                f"const long long chunk = {self.chunk}{sfx};\n"
                f"#pragma omp parallel for schedule(static, chunk) {par} "
                f"reduction(+:cnt, sum)\n{self.header()}\n"
                f"  {{ cnt++; sum += (unsigned long long)i; }}\n"
                f'printf("sum %llu\\nsum %llu\\n", cnt, sum);')

    def model(self, iv_signed):
        """check_chunks' model, given the logical iteration variable's
        signedness: a one-thread team walks the schedule's chunks only where
        grainchunk's walk fits in that type; otherwise one chunk."""
        if self.threads > 1:
            return f"REGION {self.threads}\nLOOP {self.trip} {self.chunk}\n"
        imax = (1 << (self.bits - (1 if iv_signed else 0))) - 1
        last_start = (self.trip - 1) // self.chunk * self.chunk
        walk = last_start + self.chunk <= imax
        return f"REGION 1\nLOOP {self.trip} {self.chunk if walk else 0}\n"


def clang_walk_fits(trip, chunk, threads, bits, signed):
    """Whether Clang's chunk loop (lb += stride; ub += stride, clamped to
    trip - 1), run by `threads` threads from the runtime's first chunks,
    keeps every bound it computes inside the iteration variable's type."""
    imax = (1 << (bits - (1 if signed else 0))) - 1
    stride = chunk * threads
    if stride > imax:
        return False
    for t in range(threads):
        lb, ub = t * chunk, t * chunk + chunk - 1
        if ub > imax:
            return False
        while lb <= min(ub, trip - 1):
            lb, ub = lb + stride, ub + stride
            if lb > imax or ub > imax:
                return False
    return True


def gen_limits_program(rng):
    r = LimitsRegion(rng, 0)
    src = "#include <stdio.h>\nint main(void) {\n" + r.code() + \
        "\nreturn 0;\n}\n"
    cnt, sm = r.values_count_sum()
    return src, f"sum {cnt}\nsum {sm}\n", r


def loop_code(rng, region, j, nest, chunk, runtime_chunk, nowait, pragma,
              acc=None):
    acc = acc or f"s{j}"
    ch = f"chunk_{region.idx}_{j}" if runtime_chunk else str(chunk)
    if region.kind == "distribute" and region.combined:
        clauses = " schedule(static" + (f", {region.inner_chunk})"
                                        if region.inner_chunk else ")")
        if chunk:
            clauses += f" dist_schedule(static, {ch})"
    elif region.kind == "distribute":
        clauses = rng.choice([" dist_schedule(static)", ""]) if chunk == 0 \
            else f" dist_schedule(static, {ch})"
    elif chunk == 0:
        clauses = rng.choice([" schedule(static)", ""])
    else:
        mod = rng.choice(["", "", "", "monotonic: ", "nonmonotonic: "])
        if CLANG_MAJOR < 16:
            mod = ""
        clauses = f" schedule({mod}static, {ch})"
    if len(nest) == 2:
        clauses += " collapse(2)"
    clauses += f" reduction(+:{acc})"
    if region.kind == "lastprivate":
        clauses += " lastprivate(last)"
    if nowait:
        clauses += " nowait"
    objs = rng.random() < 0.4
    if objs:
        clauses += " GC_OBJS"
    lines = [f"#pragma omp {pragma}{clauses}"]
    lines.append(nest[0].header())
    if len(nest) == 2:
        lines.append("  " + nest[1].header())
        term = "mix((unsigned long long)i) * 3 + mix((unsigned long long)j)"
    else:
        term = "mix((unsigned long long)i)"
    body = f"{acc} += GC_ONE({term});" if objs else f"{acc} += {term};"
    if len(nest) == 1:
        if region.kind == "lastprivate":
            body += " last = (unsigned long long)i;"
    lines.append("    { " + body + " }")
    return "\n".join(lines) + "\n"


def gen_program(rng):
    regions = [Region(rng, k) for k in range(rng.randint(1, 4))]
    src = ["#include <stdio.h>", MIX_C, OBJ_C]
    funcs, main = [], []
    for r in regions:
        par = f"num_threads({r.threads})" + (" if(0)" if r.serial else "")
        decl = [f"unsigned long long s{j} = 0;" for j in range(len(r.loops))]
        decl.append("unsigned long long last = 0; (void)last;")
        for j, (_, chunk, rt, _) in enumerate(r.loops):
            if rt:
                src.append(f"static volatile int chunk_{r.idx}_{j} = {chunk};")
        body = []
        if r.kind == "nested":
            nest, chunk, rt, _ = r.loops[0]
            osched = (f"schedule(static, {r.outer_chunk})" if r.outer_chunk
                      else "schedule(static)")
            body.append(f"#pragma omp parallel for {osched} {par} "
                        f"reduction(+:s0)\n"
                        f"for (int k = 0; k < {r.outer_trip}; k++) {{\n"
                        f"unsigned long long t0 = 0;")
            body.append(loop_code(rng, r, 0, nest, chunk, rt, False,
                                  f"parallel for num_threads("
                                  f"{r.inner_threads})", "t0"))
            body.append("s0 += t0 * (unsigned long long)(k + 1);\n}")
        elif r.kind == "distribute":
            # The league's size must not depend on the machine's cores.
            nest, chunk, rt, _ = r.loops[0]
            what = (f"teams distribute parallel for thread_limit("
                    f"{r.inner_threads})" if r.combined else
                    "teams distribute")
            body.append(loop_code(rng, r, 0, nest, chunk, rt, False,
                                  f"{what} num_teams({r.threads})"))
        elif r.kind in ("pfor", "pfor_simd", "collapse2", "lastprivate"):
            nest, chunk, rt, nowait = r.loops[0]
            pragma = "parallel for simd" if r.kind == "pfor_simd" else \
                "parallel for"
            body.append(loop_code(rng, r, 0, nest, chunk, rt, False,
                                  pragma + " " + par))
        elif r.kind == "for_in_par":
            body.append(f"#pragma omp parallel {par}\n{{\n{COUNT_C}")
            for j, (nest, chunk, rt, nowait) in enumerate(r.loops):
                body.append(loop_code(rng, r, j, nest, chunk, rt, nowait, "for"))
            body.append("}")
        else:  # orphan: the loops live in a function called in the region
            # and reduce into shared file-scope variables.
            for j in range(len(r.loops)):
                src.append(f"static unsigned long long g{r.idx}_{j};")
            f = [f"static void region{r.idx}(void) {{", COUNT_C]
            for j, (nest, chunk, rt, nowait) in enumerate(r.loops):
                f.append(loop_code(rng, r, j, nest, chunk, rt, nowait, "for",
                                   f"g{r.idx}_{j}"))
            f.append("}")
            funcs.append("\n".join(f))
            body.append(f"#pragma omp parallel {par}\nregion{r.idx}();")
            body += [f"s{j} = g{r.idx}_{j};" for j in range(len(r.loops))]
        out = [f'printf("sum %llu\\n", s{j});' for j in range(len(r.loops))]
        if r.kind == "lastprivate":
            out.append('printf("sum %llu\\n", last);')
        main.append("{\n" + "\n".join(decl + body + out) + "\n}")
    src += funcs
    main.append('printf("team members %d\\n", team_members);')
    src.append("int main(void) {\n" + "\n".join(main) + "\nreturn 0;\n}\n")
    expect_out = "".join(f"sum {s}\n" for r in regions for s in r.sums())
    expect_out += "team members %d\n" % sum(
        r.threads for r in regions if r.kind in ("for_in_par", "orphan"))
    model = []
    for r in regions:
        model.append(("TEAMS " if r.kind == "distribute" else "REGION ")
                     + str(r.threads))
        if r.kind == "distribute" and r.combined:
            model += [f"LOOP {t} {c} {r.inner_threads} {r.inner_chunk}"
                      for t, c in r.trips() if t > 0]
            continue
        if r.kind == "nested":
            model.append(f"LOOP {r.outer_trip} {r.outer_chunk}")
            for _ in range(r.outer_trip):
                model.append(f"NESTED {r.inner_threads}")
                model += [f"LOOP {t} {c}" for t, c in r.trips()]
            continue
        # Clang skips the worksharing loop (no runtime call, no events)
        # when it has no iterations.
        model += [f"LOOP {t} {c}" for t, c in r.trips() if t > 0]
    return "\n".join(src), expect_out, "\n".join(model) + "\n"


# ---------------------------------------------------------------------------
# Fortran (flang with -fpass-plugin): the same differential test on random
# `!$omp do` loops. The body adds w(i) = modulo(i, 1000003) * 3 + 1 to an
# integer(8) reduction variable (no overflow, so the program's meaning does
# not depend on the optimization level).

# Integer kinds of the DO variable: kind, bits. flang takes 1 and 2 too.
FKINDS = [(1, 8), (2, 16), (4, 32), (4, 32), (4, 32), (8, 64), (8, 64)]


def fw(v):
    """What the Fortran loop body adds for DO-variable value v."""
    return (v % 1000003) * 3 + 1  # Python's % is Fortran's MODULO


def f_int(v, kind):
    """A Fortran literal of value v and the given kind."""
    if v >= 0:
        return f"{v}_{kind}"
    if v == -(1 << (kind * 8 - 1)):  # -128_1 is not a literal
        return f"(-{-v - 1}_{kind} - 1_{kind})"
    return f"(-{-v}_{kind})"


class FLoop:
    """One DO loop: do VAR = lo, hi, step (step may be negative)."""

    def __init__(self, rng, var, max_trip=1000):
        self.var = var
        self.kind, bits = rng.choice(FKINDS)
        tmin, tmax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        trip = rng.choice([0, 1, 2, 3, 5, 7, 10, 17, 40, 100, 333, 1000])
        trip = min(trip, max_trip)
        step = rng.choice([1, 1, 1, 2, 3, 5, 7, 64]) * \
            (-1 if rng.random() < 0.35 else 1)
        span = trip * abs(step)
        # flang computes the trip count, (hi - lo + step) / step, in the DO
        # variable's kind: keep it inside the kind (Fortran's rule too).
        if span > tmax // 2:
            step = 1 if step > 0 else -1
            span = min(trip, tmax // 2)
        where = rng.choice(["zero", "zero", "zero", "big", "limit"])
        if where == "zero":
            base = rng.randrange(-50, 50)
        elif where == "big":  # beyond 32 bits for kind 8
            base = rng.choice([1, -1]) * rng.randrange(0, tmax // 4) \
                if bits < 64 else rng.choice([1, -1]) * (3 << 31) + \
                rng.randrange(-9, 9)
        else:  # next to the kind's limit, in the loop's direction
            base = tmax - span - rng.randrange(0, 4) if step > 0 else \
                tmin + span + rng.randrange(0, 4)
            if bits == 64:  # keep (hi - lo + step) inside integer(8)
                base = base // 2
        lo = base
        hi = lo + (span if step > 0 else -span)
        hi += rng.choice([0, 0, 1, -1])
        # flang-19 divides by zero on an empty loop with a negative step
        # (SIGFPE in a stock build; flang-22 runs it): ascending there.
        if trip == 0 and step < 0 and FLANG_MAJOR < 22:
            step = -step
        if trip == 0:  # an empty loop: hi before lo in the step's direction
            hi = lo - rng.randint(1, 5) * (1 if step > 0 else -1)
        lo, hi = min(max(lo, tmin), tmax), min(max(hi, tmin), tmax)
        # hi - lo + step stays inside the kind.
        if abs(hi - lo) + abs(step) > tmax:
            hi = lo + (tmax - abs(step)) * (1 if hi > lo else -1)
        self.lo, self.hi, self.step = lo, hi, step
        # Bounds and step as literals or as variables set at run time.
        self.runtime = rng.random() < 0.3
        self.implicit_step = rng.random() < 0.5

    def values(self):
        if self.step > 0:
            return list(range(self.lo, self.hi + 1, self.step))
        return list(range(self.lo, self.hi - 1, self.step))

    def header(self, tag):
        k = self.kind
        if self.runtime:
            b = f"b{tag}_{self.var}"
            return f"do {self.var} = {b}(1), {b}(2), {b}(3)"
        st = "" if self.step == 1 and self.implicit_step else \
            f", {f_int(self.step, k)}"
        return (f"do {self.var} = {f_int(self.lo, k)}, "
                f"{f_int(self.hi, k)}{st}")

    def decl(self, tag):
        """Module declaration of the run-time bounds, if any."""
        if not self.runtime:
            return None
        return f"integer({self.kind}) :: b{tag}_{self.var}(3)"

    def init(self, tag):
        if not self.runtime:
            return None
        k = self.kind
        return (f"b{tag}_{self.var} = [{f_int(self.lo, k)}, "
                f"{f_int(self.hi, k)}, {f_int(self.step, k)}]")


class FRegion:
    KINDS = ["pdo", "pdo", "pdo_simd", "do_in_par", "orphan", "orphan_ext",
             "collapse2", "lastprivate", "nested"]

    def __init__(self, rng, idx):
        self.idx = idx
        self.kind = rng.choice(self.KINDS)
        self.serial = rng.random() < 0.07 and self.kind != "nested"
        self.threads = 1 if self.serial else rng.choice(TEAMS)
        if self.kind == "nested":
            self.threads = rng.choice([1, 2, 3])
            self.outer_trip = rng.choice([1, 2, 3, 5])
            self.outer_chunk = rng.choice([0, 1, 2])
            self.inner_threads = rng.choice([1, 2, 3])
        multi = self.kind in ("do_in_par", "orphan", "orphan_ext")
        nloops = 2 if multi and rng.random() < 0.5 else 1
        self.loops = []
        for j in range(nloops):
            while True:
                nest = [FLoop(rng, f"i{j}")]
                if self.kind == "collapse2":
                    nest.append(FLoop(rng, f"j{j}", 200))
                trip = 1
                for lp in nest:
                    trip *= len(lp.values())
                # flang-22 rejects `parallel do simd` over an integer(8)
                # DO variable with run-time bounds or a negative step
                # ("'omp.simd' op operand #1 must be variadic of 32-bit
                # signless integer"): not a loop grainchunk can be tested on.
                if self.kind == "pdo_simd" and nest[0].kind == 8:
                    continue
                # Combined constructs get loops with iterations (a region
                # without effects may be deleted); collapsed nests stay
                # small.
                if (multi or trip > 0) and trip <= 4000:
                    break
            chunk = rng.choice([0, 0, 1, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64,
                                1000])
            runtime_chunk = chunk and rng.random() < 0.3
            nowait = multi and rng.random() < 0.5
            self.loops.append((nest, chunk, runtime_chunk, nowait, trip))

    def sums(self):
        out = []
        for nest, _, _, _, _ in self.loops:
            if len(nest) == 2:
                a, b = nest[0].values(), nest[1].values()
                out.append(sum(fw(x) * 3 + fw(y) for x in a for y in b))
            else:
                s = sum(fw(v) for v in nest[0].values())
                if self.kind == "nested":
                    s = sum(s * (k + 1) for k in range(self.outer_trip))
                out.append(s)
                if self.kind == "lastprivate":
                    vals = nest[0].values()
                    out.append(vals[-1] if vals else 0)
        return out

    def model(self):
        lines = [f"REGION {self.threads}"]
        if self.kind == "nested":
            lines.append(f"LOOP {self.outer_trip} {self.outer_chunk}")
            for _ in range(self.outer_trip):
                lines.append(f"NESTED {self.inner_threads}")
                lines += [f"LOOP {t} {c}" for _, c, _, _, t in self.loops]
            return lines
        return lines + [f"LOOP {t} {c}" for _, c, _, _, t in self.loops]


def f_loop(rng, r, j, nest, chunk, rt, nowait, directive, acc):
    """The lines of one worksharing loop (`directive` is the OpenMP
    construct and its clauses before the schedule)."""
    tag = f"{r.idx}_{j}"
    ch = f"ch{tag}" if rt else str(chunk)
    if chunk:
        sched = f" schedule(static, {ch})"
    else:
        sched = rng.choice([" schedule(static)", ""])
    clauses = sched
    if len(nest) == 2:
        clauses += " collapse(2)"
    clauses += f" reduction(+:{acc})"
    if r.kind == "lastprivate":
        clauses += " lastprivate(last)"
    lines = [f"!$omp {directive}{clauses}", nest[0].header(tag + "0")]
    if len(nest) == 2:
        lines.append("  " + nest[1].header(tag + "1"))
        lines.append(f"    {acc} = {acc} + w(int({nest[0].var}, 8)) * 3 + "
                     f"w(int({nest[1].var}, 8))")
        lines.append("  end do")
    else:
        lines.append(f"  {acc} = {acc} + w(int({nest[0].var}, 8))")
        if r.kind == "lastprivate":
            lines.append(f"  last = int({nest[0].var}, 8)")
    lines.append("end do")
    end = directive.split(" num_threads")[0].split(" if(")[0]
    if directive.startswith("do"):
        lines.append(f"!$omp end {end}" + (" nowait" if nowait else ""))
    else:
        lines.append(f"!$omp end {end}")
    return lines


def gen_fortran_program(rng):
    regions = [FRegion(rng, k) for k in range(rng.randint(1, 4))]
    mod = ["module gcf", "implicit none", "integer(8) :: last"]
    procs = ["contains",
             "pure integer(8) function w(v)",
             "  integer(8), intent(in) :: v",
             "  w = modulo(v, 1000003_8) * 3_8 + 1_8",
             "end function"]
    ext, main, inits = [], [], []
    for r in regions:
        par = f" num_threads({r.threads})" + (" if(.false.)" if r.serial
                                              else "")
        for j, (nest, chunk, rt, nowait, _) in enumerate(r.loops):
            tag = f"{r.idx}_{j}"
            for k, lp in enumerate(nest):
                if lp.decl(tag + str(k)):
                    mod.append(lp.decl(tag + str(k)))
                    inits.append(lp.init(tag + str(k)))
            if rt:
                mod.append(f"integer :: ch{tag}")
                inits.append(f"ch{tag} = {chunk}")
            mod.append(f"integer(8) :: s{tag}")
        ivars = [f"integer({lp.kind}) :: {lp.var}"
                 for nest, *_ in r.loops for lp in nest]
        body = [f"s{r.idx}_{j} = 0" for j in range(len(r.loops))]
        if r.kind == "nested":
            nest, chunk, rt, _, _ = r.loops[0]
            osched = (f"schedule(static, {r.outer_chunk})" if r.outer_chunk
                      else "schedule(static)")
            procs += [f"subroutine inner{r.idx}(t)",
                      "  integer(8), intent(inout) :: t",
                      f"  {ivars[0]}"]
            procs += ["  " + x for x in f_loop(
                rng, r, 0, nest, chunk, rt, False,
                f"parallel do num_threads({r.inner_threads})", "t")]
            procs.append("end subroutine")
            body += [f"!$omp parallel do {osched}{par} private(t) "
                     f"reduction(+:s{r.idx}_0)",
                     f"do k = 1, {r.outer_trip}",
                     "  t = 0",
                     f"  call inner{r.idx}(t)",
                     f"  s{r.idx}_0 = s{r.idx}_0 + t * k",
                     "end do",
                     "!$omp end parallel do"]
        elif r.kind in ("pdo", "pdo_simd", "collapse2", "lastprivate"):
            nest, chunk, rt, _, _ = r.loops[0]
            d = "parallel do simd" if r.kind == "pdo_simd" else "parallel do"
            if r.kind == "lastprivate":
                body.append("last = 0")
            body += f_loop(rng, r, 0, nest, chunk, rt, False, d + par,
                           f"s{r.idx}_0")
        elif r.kind == "do_in_par":
            body.append(f"!$omp parallel{par}")
            for j, (nest, chunk, rt, nowait, _) in enumerate(r.loops):
                body += ["  " + x for x in f_loop(
                    rng, r, j, nest, chunk, rt, nowait, "do",
                    f"s{r.idx}_{j}")]
            body.append("!$omp end parallel")
        else:  # orphaned: a module procedure or an external subroutine
            where = procs if r.kind == "orphan" else ext
            name = f"orph{r.idx}"
            where += [f"subroutine {name}()"]
            if r.kind == "orphan_ext":
                where.append("  use gcf")
            where += ["  " + x for x in ivars]
            for j, (nest, chunk, rt, nowait, _) in enumerate(r.loops):
                where += ["  " + x for x in f_loop(
                    rng, r, j, nest, chunk, rt, nowait, "do",
                    f"s{r.idx}_{j}")]
            where.append("end subroutine")
            body += [f"!$omp parallel{par}", f"call {name}()",
                     "!$omp end parallel"]
        out = [f"write (*, '(a,i0)') 'sum ', s{r.idx}_{j}"
               for j in range(len(r.loops))]
        if r.kind == "lastprivate":
            out.append("write (*, '(a,i0)') 'sum ', last")
        # Each region in a block of its own, with its DO variables.
        main += ["block"] + ["  " + x for x in ivars] + \
            ["  integer :: k", "  integer(8) :: t"] + \
            ["  " + x for x in body + out] + ["end block"]
    src = mod + procs + ["end module", ""] + ext + \
        ["program fuzz", "use gcf", "implicit none"] + inits + main + \
        ["end program", ""]
    expect = "".join(f"sum {s}\n" for r in regions for s in r.sums())
    model = []
    for r in regions:
        model += r.model()
    return "\n".join(src), expect, "\n".join(model) + "\n"


def read_cache(build):
    vals = {}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if "=" in line and ":" in line.split("=", 1)[0]:
                k, v = line.rstrip("\n").split("=", 1)
                vals[k.split(":", 1)[0]] = v
    return vals


class Env:
    def __init__(self, build):
        cache = read_cache(build)
        self.clang = cache["GRAINCHUNK_CLANG"]
        omp = cache["GRAINCHUNK_OMP_LIBDIR"]
        self.plugin = os.path.join(build, "clang-plugin", "libgrainchunk.so")
        self.passlib = os.path.join(build, "clang-plugin",
                                    "libGrainChunkPass.so")
        self.flang = cache.get("GRAINCHUNK_FLANG", "")
        shim = os.path.join(build, "runtime-shim")
        self.tool = os.path.join(build, "test", "libchunk_tool.so")
        self.omp_link = [f"-L{omp}", f"-Wl,-rpath,{omp}"]
        self.shim_link = [f"-L{shim}", "-Wl,--push-state,--no-as-needed",
                          "-lgrainchunk-rt", "-Wl,--pop-state",
                          f"-Wl,-rpath,{shim}"]
        for p in (self.clang, self.plugin, self.tool):
            if not os.path.exists(p):
                sys.exit(f"gcfuzz: {p} is missing; build grainchunk first "
                         "(bash scripts/build.sh)")
        v = subprocess.run([self.clang, "--version"], capture_output=True,
                           text=True).stdout
        global CLANG_MAJOR, FLANG_MAJOR
        CLANG_MAJOR = int(v.split("version ", 1)[1].split(".", 1)[0])
        FLANG_MAJOR = CLANG_MAJOR  # GRAINCHUNK_FLANG is the same LLVM's


def clean_env():
    env = dict(os.environ)
    for v in ("OMP_TOOL", "OMP_TOOL_LIBRARIES", "OMP_NUM_THREADS",
              "GRAINCHUNK_VERBOSE", "LD_PRELOAD", "OMP_SCHEDULE"):
        env.pop(v, None)
    # Leagues get the teams they ask for, whatever the number of cores, and
    # nested regions get their own teams.
    env["KMP_TEAMS_THREAD_LIMIT"] = "8"
    env["OMP_MAX_ACTIVE_LEVELS"] = "2"
    return env


def make_sh(d):
    def sh(args, env=None, timeout=300):
        """Runs args in the program's directory; a run that times out
        returns code 124 (as timeout(1) does) instead of raising."""
        try:
            return subprocess.run(args, cwd=d, capture_output=True,
                                  text=True, env=env or clean_env(),
                                  timeout=timeout)
        except subprocess.TimeoutExpired as t:
            return subprocess.CompletedProcess(args, 124, t.stdout or "",
                                               "timed out")
    return sh


def run_one(env, seed, index, workdir):
    rng = random.Random(f"{seed}/{index}")
    limits = rng.random() < 0.0625
    if limits:
        src, expect_out, lregion = gen_limits_program(rng)
        model = None  # needs the iteration variable's signedness (below)
        # 2^62 iterations finish only where LLVM folds the body to one
        # addition per chunk: -O2/-O3 without overflow checks. 32-bit loops
        # (at most 2^32 iterations) run at any level from -O1.
        opt = rng.choice(["-O2", "-O3"] if lregion.bits == 64 else
                         ["-O1", "-O2", "-O3", "-Os"])
    else:
        src, expect_out, model = gen_program(rng)
        opt = rng.choice(["-O0", "-O1", "-O2", "-O3", "-Os"])
    cxx = rng.random() < 0.3
    # OpenMPIRBuilder is experimental before Clang 19 (Clang 14 crashes on
    # some of these programs with or without grainchunk).
    irbuilder = rng.random() < 0.15 and CLANG_MAJOR >= 19 and not limits
    # Build flags that change the code Clang emits for the loops.
    flag = rng.choice([None] * 7 + ["-save-temps", "-fsanitize=undefined",
                                    "-ftrapv"])
    if limits and lregion.bits == 64 and flag != "-save-temps":
        flag = None
    d = os.path.join(workdir, f"p{index}")
    os.makedirs(d, exist_ok=True)
    files = {"prog.c": src, "expected.out": expect_out}
    if model is not None:
        files["model.txt"] = model
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    lang = ["-x", "c++"] if cxx else []
    cc = [env.clang + ("++" if cxx else ""), "-fopenmp", opt, "-w"] + lang
    if irbuilder:
        cc.append("-fopenmp-enable-irbuilder")
    if flag:
        cc.append(flag)
    stock = cc + ["prog.c", "-o", "prog.stock"] + env.omp_link
    gc = cc + [f"-fplugin={env.plugin}", "-Rpass-missed=grainchunk",
               "prog.c", "-o", "prog.gc"] + env.omp_link + env.shim_link
    write_reproducer(d, seed, index, opt + (" " + flag if flag else "") +
                     (", C++" if cxx else ""), stock, gc, env)
    sh = make_sh(d)
    if limits:
        # The logical iteration variable's signedness decides where a
        # one-thread team's chunk walk fits (see LimitsRegion.model).
        ir = sh(cc + ["-S", "-emit-llvm", "-O0", "prog.c", "-o", "-"])
        sfx = [w.split("(")[0] for w in
               ir.stdout.split("@__kmpc_for_static_init_")[1:]]
        calls = [x for x in sfx if x in ("4", "4u", "8", "8u")]
        if ir.returncode or len(set(calls)) != 1:
            return index, "stock Clang failed: no single static loop", \
                None, d
        model = lregion.model(calls[0] in ("4", "8"))
        with open(os.path.join(d, "model.txt"), "w") as f:
            f.write(model)
    how = opt + (" C++" if cxx else " C") + (" irbuilder" if irbuilder
                                             else "") + \
        (" " + flag if flag else "") + (" near-limit" if limits else "")
    return build_and_compare(env, index, d, stock, gc, expect_out, limits,
                             how, sh)


def run_one_fortran(env, seed, index, workdir):
    rng = random.Random(f"{seed}/fortran/{index}")
    src, expect_out, model = gen_fortran_program(rng)
    opt = rng.choice(["-O0", "-O1", "-O2", "-O3"])
    debug = rng.random() < 0.25
    d = os.path.join(workdir, f"p{index}")
    os.makedirs(d, exist_ok=True)
    for name, text in (("prog.f90", src), ("expected.out", expect_out),
                       ("model.txt", model)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    fc = [env.flang, "-fopenmp", opt] + (["-g"] if debug else [])
    stock = fc + ["prog.f90", "-o", "prog.stock"] + env.omp_link
    gc = fc + [f"-fpass-plugin={env.passlib}", "-Rpass-missed=grainchunk",
               "prog.f90", "-o", "prog.gc"] + env.omp_link + env.shim_link
    write_reproducer(d, seed, index, f"{opt}{' -g' if debug else ''}, "
                     "Fortran", stock, gc, env)
    how = opt + (" -g" if debug else "") + " Fortran"
    return build_and_compare(env, index, d, stock, gc, expect_out, False,
                             how, make_sh(d))


def write_reproducer(d, seed, index, what, stock, gc, env):
    cmds = [" ".join(stock), " ".join(gc),
            "export KMP_TEAMS_THREAD_LIMIT=8 OMP_MAX_ACTIVE_LEVELS=2",
            "./prog.stock > stock.out",
            f"OMP_TOOL_LIBRARIES={env.tool} CHUNK_TOOL_OUT=tool.log "
            "./prog.gc > gc.out",
            f"python3 {CHECK_CHUNKS} model.txt tool.log"]
    with open(os.path.join(d, "reproduce.sh"), "w") as f:
        f.write("#!/bin/sh\n# gcfuzz seed %s program %d (%s)\nset -ex\n"
                "cd \"$(dirname \"$0\")\"\n" % (seed, index, what)
                + "\n".join(cmds) + "\ncmp expected.out stock.out\n"
                "cmp expected.out gc.out\n")


def build_and_compare(env, index, d, stock, gc, expect_out, limits, how, sh):
    """Builds the program in d stock (the command `stock`) and with
    grainchunk (`gc`), runs both (the grainchunk build under the chunk tool)
    and compares their outputs with expect_out and the tool's chunks with
    d/model.txt. Returns (index, how, problems or None if the program
    cannot be compared, or "slow", d)."""
    problems = []
    r = sh(stock)
    if r.returncode:
        # Not a program grainchunk can be compared on (stock Clang crashed).
        what = "stock compiler failed: " + \
            (r.stderr.strip().splitlines() or ["?"])[0][:200]
        return index, what, None, d
    r = sh(gc)
    if r.returncode:
        problems.append(f"grainchunk build failed: {r.stderr.strip()[:400]}")
    elif "loop not instrumented" in r.stderr:
        problems.append("loop left alone: " + r.stderr.strip()[:400])
    if not problems:
        r = sh(["./prog.stock"], timeout=20 if limits else 120)
        stock_out = r.stdout if isinstance(r.stdout, str) else ""
        e = clean_env()
        e.update(OMP_TOOL_LIBRARIES=env.tool,
                 CHUNK_TOOL_OUT=os.path.join(d, "tool.log"))
        g = sh(["./prog.gc"], env=e, timeout=20 if limits else 120)
        if not isinstance(g.stdout, str):
            g.stdout = ""
        for name, text in (("stock.out", stock_out), ("gc.out", g.stdout)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        if r.returncode == 124:
            # The stock program did not finish in time: nothing to compare.
            return index, "stock program timed out", None, d
        if g.returncode == 124 and limits:
            # A near-limit loop of up to 2^64 iterations finishes only where
            # LLVM folds its body; in the grainchunk build it sometimes does
            # not (the chunk call keeps the bounds in memory). Counted apart:
            # slower, not wrong, and not comparable.
            return index, "near-limit loop not folded in the grainchunk " \
                "build (timed out; stock finished)", "slow", d
        if stock_out != expect_out and g.stdout == stock_out and \
                not r.returncode and not g.returncode:
            # The stock program itself is wrong (a toolchain defect, e.g.
            # docs/design-notes.md), and grainchunk runs it the same way:
            # there is no correct schedule to compare the chunks with.
            return index, ("stock output differs from the model; grainchunk "
                           "output equals stock"), None, d
        if stock_out != expect_out and g.stdout == stock_out and \
                r.returncode and g.returncode == r.returncode:
            # The stock program itself fails (e.g. -ftrapv traps in Clang's
            # own simd code for a loop that ends at INT_MAX), and the
            # grainchunk build fails the same way, with the same output; the
            # tool's log of a killed program is incomplete.
            return index, (f"stock program failed (exit {r.returncode}); "
                           "grainchunk's failed the same way"), None, d
        if stock_out != expect_out:
            problems.append("stock output differs from the model "
                            "(a Clang bug, or the fuzzer's)")
        if g.stdout != expect_out:
            problems.append("grainchunk output differs from the model")
        if g.returncode or r.returncode:
            problems.append(f"exit codes stock={r.returncode} "
                            f"grainchunk={g.returncode}")
        c = subprocess.run([sys.executable, CHECK_CHUNKS, "model.txt",
                            "tool.log"], cwd=d, capture_output=True, text=True)
        if c.returncode:
            problems.append("chunk stream: " + c.stdout.strip()[-600:])
    return index, how, problems, d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="grainchunk build dir")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", help="where failing programs are kept")
    ap.add_argument("--lang", choices=["c", "fortran"], default="c",
                    help="C/C++ programs built with Clang, or Fortran "
                    "programs built with the build's flang")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    env = Env(os.path.abspath(a.build))
    one = run_one
    if a.lang == "fortran":
        one = run_one_fortran
        if not os.path.exists(env.flang):
            sys.exit(f"gcfuzz: {env.flang or 'flang'} is missing (the "
                     "build's GRAINCHUNK_FLANG); install flang-N of the "
                     "build's LLVM (bash scripts/install-deps.sh) and "
                     "reconfigure")
    keep = a.keep or os.path.join(os.path.abspath(a.build), "fuzz-failures")
    work = tempfile.mkdtemp(prefix="gcfuzz-")
    failed = skipped = slow = 0
    loops = 0
    try:
        with ThreadPoolExecutor(a.jobs) as ex:
            futs = [ex.submit(one, env, a.seed, i, work)
                    for i in range(a.count)]
            for fut in futs:
                index, how, problems, d = fut.result()
                if problems == "slow":
                    slow += 1
                    print(f"gcfuzz: program {index}: {how}")
                    shutil.rmtree(d, ignore_errors=True)
                    continue
                if problems is None:
                    skipped += 1
                    print(f"gcfuzz: program {index} skipped: {how}")
                    shutil.rmtree(d, ignore_errors=True)
                    continue
                with open(os.path.join(d, "model.txt")) as f:
                    loops += sum(1 for line in f if line.startswith("LOOP")
                                 and line.split()[1] != "0")
                if problems:
                    failed += 1
                    dest = os.path.join(keep, f"seed{a.seed}-p{index}")
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.copytree(d, dest)
                    print(f"gcfuzz: program {index} ({how}) FAILED, kept in "
                          f"{dest}:")
                    for p in problems:
                        print("  " + p)
                elif a.verbose:
                    print(f"gcfuzz: program {index} ({how}) ok")
                shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lang = "Fortran " if a.lang == "fortran" else ""
    print(f"gcfuzz: seed {a.seed}: {a.count} {lang}programs, {loops} loops "
          f"with iterations, {failed} failed"
          + (f", {skipped} skipped (the stock compiler failed or ran the "
             "program wrongly)" if skipped else "")
          + (f", {slow} near-limit not compared (grainchunk build not "
             "folded)" if slow else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
