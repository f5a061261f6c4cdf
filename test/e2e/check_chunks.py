#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks a chunk_tool log against OpenMP's static schedule.

usage: check_chunks.py [--no-last] PROGRAM_OUTPUT TOOL_LOG

--no-last: the tool could not read `last` (no grainchunk in the process).

PROGRAM_OUTPUT has, per parallel region in execution order, "REGION <T>"
followed by "LOOP <trip> <chunk>" for each worksharing loop in it, or, per
league of teams, "TEAMS <num_teams>" followed by a LOOP line for each
distribute loop in it (then "thread" below reads "team", T is the number of
teams the runtime formed, and chunks must come as distribute_chunk), or,
per parallel region nested in one of the others, "NESTED <T>" and its LOOP
lines (nested regions are matched in the order they began). In a TEAMS
block, "LOOP <trip> <chunk> <T2> <chunk2>" is a `distribute parallel for`:
each distribute chunk forks a region of (at most) T2 threads whose loop
runs over the chunk with schedule(static, chunk2) (0: no chunk); `last`
still means the whole loop's last iteration. The model,
computed here independently of grainchunk: chunk k of a loop holds iterations
[k*chunk, min((k+1)*chunk, trip)) and runs on thread k mod T, so thread r
executes chunks r, r+T, r+2T, ... in that order; the last chunk holds the
loop's last iteration. Chunk 0 stands for schedule(static) without a chunk:
OpenMP gives each thread at most one chunk of about trip/T iterations, in
thread order; libomp's sizes (its default "balanced" split) are
ceil(trip/T) for the first trip mod T threads and floor(trip/T) for the
others, and threads left without iterations get no chunk. Every chunk
must be reported exactly once, on its thread, inside that thread's loop (between the loop's work begin and end),
in order, with the runtime's parallel_data/task_data pointers.
"""
import sys
from collections import defaultdict


def model(trip, chunk, threads):
    per_thread = defaultdict(list)
    if chunk == 0:
        q, r = divmod(trip, threads)
        start = 0
        for t in range(threads):
            its = q + 1 if t < r else q
            if its:
                per_thread[t].append((start, its,
                                      1 if start + its == trip else 0))
            start += its
        return per_thread
    nchunks = (trip + chunk - 1) // chunk
    for k in range(nchunks):
        start = k * chunk
        its = min(chunk, trip - start)
        per_thread[k % threads].append((start, its, 1 if k == nchunks - 1 else 0))
    return per_thread


def check_inner(team_tid, dist_chunks, trip, threads, chunk, parent, team,
                loops, errors):
    """The inner loops of `distribute parallel for`: the team's task forks
    one parallel region per distribute chunk, in order; its loop runs over
    that chunk with the static schedule. Returns the chunks checked."""
    regs = [p for p, par in parent.items() if par == team_tid]
    if len(regs) != len(dist_chunks):
        errors.append(f"team task {team_tid}: {len(regs)} inner regions for "
                      f"{len(dist_chunks)} distribute chunks")
        return 0
    total = 0
    for (start, its, _, _), pid in zip(dist_chunks, regs):
        # thread_limit is an upper bound: the runtime may form fewer.
        members = team[pid]
        size = len(members)
        if not 1 <= size <= threads:
            errors.append(f"inner region {pid}: {size} threads, at most "
                          f"{threads} expected")
            continue
        for tid, (num, _) in members.items():
            # `last`: the chunk holds the whole loop's last iteration.
            want = [(start + s, i, 1 if start + s + i == trip else 0)
                    for s, i, _ in model(its, chunk, size)[num]]
            total += len(want)
            seen = loops[(pid, tid)]
            got = [(s, i, l) for s, i, l, k in seen[0]] if len(seen) == 1 \
                else None
            if got != want or any(c[3] != 3 for c in seen[0]):
                errors.append(f"inner region {pid} thread {num} (chunk "
                              f"[{start}, +{its}), {threads} threads, chunk "
                              f"{chunk}): got {got}, expected {want}")
    return total


def main(prog_out, tool_log):
    regions = []  # (kind, requested size, [(trip, chunk)])
    for line in open(prog_out):
        f = line.split()
        if f and f[0] in ("REGION", "TEAMS", "NESTED"):
            regions.append((f[0], int(f[1]), []))
        elif f and f[0] == "LOOP":
            regions[-1][2].append(tuple(int(x) for x in f[1:5]))

    pids = []                      # top-level regions, in order
    parent = {}                    # pid -> tid of the encountering task
    team = defaultdict(dict)       # pid -> tid -> (thread_num, team size)
    loops = defaultdict(list)      # (pid, tid) -> [list of chunks per loop]
    open_loop = {}                 # (pid, tid) -> currently open loop
    errors = []
    for n, line in enumerate(open(tool_log), 1):
        f = line.split()
        if not f:
            continue
        if f[0] == "P":
            parent[f[1]] = f[3] if len(f) > 3 else "0"
            if parent[f[1]] == "0":
                pids.append(f[1])
        elif f[0] == "I":
            team[f[1]][f[2]] = (int(f[3]), int(f[4]))
        elif f[0] == "W":
            key = (f[2], f[3])
            if f[1] == "b":
                loops[key].append([])
                open_loop[key] = True
            else:
                open_loop[key] = False
        elif f[0] == "C":
            key = (f[1], f[2])
            if not open_loop.get(key):
                errors.append(f"line {n}: chunk outside a loop: {line.strip()}")
                continue
            if f[6] != "same":
                errors.append(f"line {n}: parallel_data/task_data differ from "
                              f"the runtime's: {line.strip()}")
            if f[5] == "-" and not NO_LAST:
                errors.append(f"line {n}: no last flag: {line.strip()}")
            last = int(f[5]) if f[5] != "-" else None
            kind = int(f[7]) if len(f) > 7 else 3
            loops[key][-1].append((int(f[3]), int(f[4]), last, kind))

    # Nested regions (encountered by an implicit task of a top-level
    # region) match the NESTED specs, in the order they began.
    nested_specs = [r for r in regions if r[0] == "NESTED"]
    regions = [r for r in regions if r[0] != "NESTED"]
    tops = {pid for (what, _, _), pid in zip(regions, pids)
            if what == "REGION"}
    nested = [p for p in parent if p not in pids and any(
        parent[p] in team[q] for q in tops)]
    if len(nested) != len(nested_specs):
        errors.append(f"{len(nested_specs)} nested regions ran but the tool "
                      f"saw {len(nested)}")
    regions += nested_specs
    pids = pids + nested
    if len(pids) != len(regions):
        errors.append(f"{len(regions)} regions ran but the tool saw "
                      f"{len(pids)} parallel regions")
    total = 0
    for (what, size, specs), pid in zip(regions, pids):
        members = team[pid]  # tid -> (thread or team number, size)
        if what in ("REGION", "NESTED"):
            want_kind = 3
            if len(members) != size:
                errors.append(f"region {pid}: {len(members)} threads, "
                              f"expected {size}")
                continue
            units = {num: (pid, tid) for tid, (num, _) in members.items()}
        else:
            # A league: each team's initial task encounters the team's own
            # one-thread parallel region, in which its distribute loops run.
            want_kind = 5
            nteams = len(members)
            if not 1 <= nteams <= size or any(
                    n != nteams for _, n in members.values()):
                errors.append(f"league {pid}: {nteams} teams for "
                              f"num_teams({size})")
                continue
            size = nteams
            units = {}
            for sub, par in parent.items():
                if par in members:
                    subtids = list(team[sub])
                    if len(subtids) != 1:
                        errors.append(f"team region {sub}: {len(subtids)} "
                                      "threads, expected 1")
                        continue
                    units[members[par][0]] = (sub, subtids[0])
            if len(units) != nteams:
                errors.append(f"league {pid}: {len(units)} team regions, "
                              f"expected {nteams}")
                continue
        for num, key in sorted(units.items()):
            seen = loops[key]
            if len(seen) != len(specs):
                errors.append(f"region {pid} thread {num}: {len(seen)} loops, "
                              f"expected {len(specs)}")
                continue
            for j, (spec, got) in enumerate(zip(specs, seen)):
                trip, chunk = spec[:2]
                if len(spec) == 4:  # distribute parallel for: inner loops
                    total += check_inner(key[1], got, trip, spec[2], spec[3],
                                         parent, team, loops, errors)
                want = model(trip, chunk, size)[num]
                total += len(want)
                bad_kind = [c for c in got if c[3] != want_kind]
                if bad_kind:
                    errors.append(f"region {pid} loop {j}: dispatch kind "
                                  f"{bad_kind[0][3]}, expected {want_kind}")
                got_cmp = [(s, i, l if l is not None else w[2])
                           for (s, i, l, _), w in zip(got, want)]
                if len(got) != len(want) or got_cmp != want:
                    got3 = [c[:3] for c in got]
                    errors.append(
                        f"region {pid} loop {j} (trip {trip}, chunk {chunk}, "
                        f"{size} threads) thread {num}: got {got3[:6]}"
                        f"{'...' if len(got) > 6 else ''} ({len(got)} chunks), "
                        f"expected {want[:6]}{'...' if len(want) > 6 else ''} "
                        f"({len(want)} chunks)")
    for e in errors[:20]:
        print("check_chunks: " + e)
    if errors:
        print(f"check_chunks: FAILED, {len(errors)} problem(s)")
        return 1
    print(f"check_chunks: OK, {total} chunks in {len(regions)} regions match "
          f"the static schedule")
    return 0


NO_LAST = False

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--no-last"]:
        NO_LAST = True
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    sys.exit(main(*args))
