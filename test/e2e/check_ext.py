#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the extension events (81-84) a tool got against what the program
ran (ext-events.test; logs of Inputs/ext_loops.c and Inputs/ext_tool.c).

Per thread, the program's log (B/I/E) and the tool's (Lb/C/X/Le) are
walked together: every loop begin has a loop begin event (schedule,
signedness, step 1, codeptr_ra as the standard work event's), every
iteration the thread ran lies in a chunk event it got before, in order,
each chunk's iterations are exactly the ones it ran, and the loop ends with
an end event. Chunk events may come ahead of their iterations (a loop built
without the plugin reports all of a thread's chunks at its start), never
after. Cancellation (a standard cancel event X with ompt_cancel_loop on the
thread inside the loop) may end the thread's part early: then the chunk it
was in may be cut short, and the chunks after it never start, which is
only allowed for chunks marked MAY_NOT_RUN. A chunk reported but never
started without that mark is an error.

Flags (include/grainchunk.h): LAST on exactly the chunks that hold the
loop's last iteration, whatever the schedule; AHEAD on the chunks after a
thread's first of a static loop built without the plugin, on no other;
MAY_NOT_RUN on those where cancellation is on (--cancellation), never
otherwise. Durations: all 0 without a clock; > 0 with one except for AHEAD
chunks; below SPIN_NS for three in four chunks of spinning loops at least (a
preemption stretches some; a making time that took in the previous body
would stretch all). Tasks: one 84 event per
explicit task, right after the standard task_create of the same task, with
duration > 0 with a clock.

A B line may carry two more fields: 1 if the loop was built without the
plugin (else --stock says), and a loop number; for each loop number one
line gives the chunks reported, started and reported but never started.

usage: check_ext.py PROGRAM_LOG TOOL_LOG [--clock tsc|ns|none] [--stock]
                    [--cancellation]
"""
import argparse
import collections
import sys

SPIN_NS = 20000
ALWAYS = 5
EXPLICIT, TARGET, TASKWAIT = 0x4, 0x8, 0x10
LAST, AHEAD, MAY_NOT_RUN = 1, 2, 4  # GRAINCHUNK_CHUNK_*
CANCEL_LOOP = 0x04                  # ompt_cancel_loop


def per_thread(path):
    threads = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                threads[parts[0]].append(parts[1:])
    return threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prog")
    ap.add_argument("tool")
    ap.add_argument("--clock", default="tsc", choices=["tsc", "ns", "none"])
    ap.add_argument("--stock", action="store_true",
                    help="the loops were built without the plugin")
    ap.add_argument("--cancellation", action="store_true",
                    help="the program ran with cancellation on")
    a = ap.parse_args()
    prog, tool = per_thread(a.prog), per_thread(a.tool)
    errors = []

    def err(msg):
        if len(errors) < 20:
            errors.append(msg)

    answers = {e[1]: int(e[2]) for evs in tool.values() for e in evs
               if e[0] == "R"}
    for ev in ["81", "82", "84"] + ([] if a.clock == "none" else ["83"]):
        if answers.get(ev) != ALWAYS:
            err(f"registration of {ev} answered {answers.get(ev)}, not "
                f"ompt_set_always")
    if not any(e == ["G", "82", "1"] for evs in tool.values() for e in evs):
        err("ompt_get_callback did not return the chunk callback")

    n_loops = n_chunks = n_iters = 0
    durations = {"static": 0, "dispatched": 0, "spun": 0, "long": 0}
    per_id = collections.defaultdict(lambda: [0, 0, 0])  # reported, started, never
    for tid, pevs in prog.items():
        tevs = [e for e in tool.get(tid, [])
                if e[0] in ("Lb", "C", "X", "Le", "We")]
        ti = 0
        stack = []  # frames: dict(info, queue of [lo, hi], chunks)

        def bank():
            nonlocal ti
            while ti < len(tevs) and tevs[ti][0] in ("C", "X"):
                if not stack:
                    err(f"thread {tid}: {tevs[ti][0]} event outside any loop")
                    ti += 1
                    continue
                if tevs[ti][0] == "X":
                    if int(tevs[ti][1]) & CANCEL_LOOP:
                        stack[-1]["cancelled"] = True
                    ti += 1
                    continue
                lo, hi = int(tevs[ti][1]), int(tevs[ti][2])
                c = dict(lo=lo, hi=hi, dur=float(tevs[ti][3]),
                         flags=int(tevs[ti][4]), ends=int(tevs[ti][5]), next=lo)
                stack[-1]["queue"].append(c)
                stack[-1]["chunks"].append(c)
                ti += 1

        for pe in pevs:
            kind = pe[0]
            if kind in ("K", "X"):
                continue
            bank()
            if kind == "B":
                sched, n, sgn, mode, sp = map(int, pe[1:6])
                stock = bool(int(pe[6])) if len(pe) > 6 else a.stock
                lid = pe[7] if len(pe) > 7 else None
                if ti >= len(tevs) or tevs[ti][0] != "Lb":
                    err(f"thread {tid}: loop (sched {sched}, n {n}) began "
                        f"without a loop begin event (next: "
                        f"{tevs[ti] if ti < len(tevs) else 'nothing'})")
                    return report(errors)
                lb = tevs[ti]
                ti += 1
                if [int(x) for x in lb[1:5]] != [sched, sgn, 1, 1]:
                    err(f"thread {tid}: loop begin {lb[1:]} for a loop with "
                        f"schedule {sched}, signed {sgn}, step 1, codeptr "
                        f"as the work event's")
                stack.append(dict(sched=sched, n=n, mode=mode, spin=sp, sgn=sgn,
                                  stock=stock, lid=lid, cancelled=False,
                                  queue=collections.deque(), chunks=[]))
                n_loops += 1
            elif kind == "I":
                i = int(pe[1])
                if not stack:
                    err(f"thread {tid}: iteration {i} outside any loop")
                    continue
                fr = stack[-1]
                q = fr["queue"]
                while q and q[0]["next"] > q[0]["hi"]:
                    q.popleft()
                if not q:
                    err(f"thread {tid}: iteration {i} ran without a chunk "
                        f"event announcing it")
                    return report(errors)
                if q[0]["next"] != i:
                    err(f"thread {tid}: iteration {i} ran, the chunk event "
                        f"[{q[0]['lo']}, {q[0]['hi']}] said {q[0]['next']}")
                    return report(errors)
                q[0]["next"] += 1
                n_iters += 1
            elif kind == "E":
                fr = stack.pop() if stack else None
                if fr is None:
                    err(f"thread {tid}: loop end without a begin")
                    continue
                q = fr["queue"]
                while q and q[0]["next"] > q[0]["hi"]:
                    q.popleft()
                for c in q:
                    started = c["next"] > c["lo"]
                    if c["next"] <= c["hi"] and not fr["cancelled"]:
                        err(f"thread {tid}: chunk [{c['lo']}, {c['hi']}] "
                            f"announced, iterations from {c['next']} not run")
                    elif not started and not c["flags"] & MAY_NOT_RUN:
                        err(f"thread {tid}: chunk [{c['lo']}, {c['hi']}] "
                            f"reported without MAY_NOT_RUN, never started "
                            f"(flags {c['flags']})")
                    elif started and c is not q[0]:
                        err(f"thread {tid}: chunk [{c['lo']}, {c['hi']}] cut "
                            "short, but not the last one the thread ran")
                if fr["lid"] is not None:
                    st = per_id[fr["lid"]]
                    st[0] += len(fr["chunks"])
                    started = sum(c["next"] > c["lo"] for c in fr["chunks"])
                    st[1] += started
                    st[2] += len(fr["chunks"]) - started
                if ti >= len(tevs) or tevs[ti][0] != "Le":
                    err(f"thread {tid}: loop ended without a loop end event")
                    return report(errors)
                le = tevs[ti]
                ti += 1
                if ti < len(tevs) and tevs[ti][0] == "We":
                    if tevs[ti][1] != "1":
                        err(f"thread {tid}: loop end's codeptr_ra differs "
                            f"from the standard work end's")
                    ti += 1
                else:
                    err(f"thread {tid}: no standard work end after loop end")
                if [int(x) for x in le[1:4]] != [fr["sched"], fr["sgn"], 1]:
                    err(f"thread {tid}: loop end {le[1:]}")
                check_chunks(tid, fr, a, err, durations)
                n_chunks += len(fr["chunks"])
        bank()
        if stack:
            err(f"thread {tid}: {len(stack)} loops never ended")
        if ti != len(tevs):
            err(f"thread {tid}: tool events left over: {tevs[ti:ti + 3]}")

    # Tasks.
    std = ext = 0
    made = max((int(e[1]) for evs in prog.values() for e in evs
                if e[0] == "X"), default=0)
    for evs in tool.values():
        for e in evs:
            if e[0] == "S":
                fl = int(e[1])
                if fl & (EXPLICIT | TARGET) and not fl & TASKWAIT:
                    std += 1
            elif e[0] == "T":
                ext += 1
                if e[4] != "1":
                    err("a task creation event (84) did not follow the "
                        "standard task_create of its task")
                d = float(e[3])
                if (a.clock == "none") != (d == 0):
                    err(f"task creation duration {d} with clock {a.clock}")
    if ext != std or ext < made:
        err(f"{ext} task creation events (84), {std} standard explicit task "
            f"creations, the program made at least {made}")
    if not n_loops or not n_chunks:
        err("no loops or chunks seen")
    if durations["long"] > durations["spun"] // 4:
        err(f"{durations['long']} of {durations['spun']} chunks of spinning "
            f"loops took {SPIN_NS} ns or more to make: the making time "
            "includes the previous chunk's body")
    for lid, (rep_, run, never) in sorted(per_id.items()):
        print(f"check_ext: loop {lid}: {rep_} chunks reported, {run} started, "
              f"{never} never started")
    return report(errors, f"{n_loops} loops, {n_chunks} chunks, {n_iters} "
                  f"iterations, {ext} tasks match")


def check_chunks(tid, fr, a, err, durations):
    chunks = fr["chunks"]
    for k, c in enumerate(chunks):
        if c["hi"] < c["lo"]:
            err(f"thread {tid}: empty chunk {c}")
        name = (f"thread {tid}: chunk [{c['lo']}, {c['hi']}] of a loop of "
                f"{fr['n']} (mode {fr['mode']})")
        want_last = int(c["lo"] <= fr["n"] - 1 <= c["hi"])
        if bool(c["flags"] & LAST) != bool(want_last):
            err(f"{name} has flags {c['flags']}: LAST is "
                f"{'missing' if want_last else 'wrong'}")
        ahead = fr["stock"] and fr["mode"] == 0 and k > 0
        if bool(c["flags"] & AHEAD) != ahead:
            err(f"{name} (the thread's chunk {k}) has flags {c['flags']}: "
                f"AHEAD is {'missing' if ahead else 'wrong'}")
        may_not = ahead and a.cancellation
        if bool(c["flags"] & MAY_NOT_RUN) != may_not:
            err(f"{name} (the thread's chunk {k}) has flags {c['flags']}: "
                f"MAY_NOT_RUN is {'missing' if may_not else 'wrong'}")
        if c["flags"] & ~(LAST | AHEAD | MAY_NOT_RUN):
            err(f"{name} has unknown flags {c['flags']}")
        d = c["dur"]
        if a.clock == "none":
            if d != 0:
                err(f"thread {tid}: duration {d} without a clock")
            continue
        timed = not ahead
        if timed and not d > 0:
            err(f"thread {tid}: chunk [{c['lo']}, {c['hi']}] (chunk {k} of "
                f"the thread, mode {fr['mode']}) has duration {d}")
        if not timed and d != 0:
            err(f"thread {tid}: untimed chunk has duration {d}")
        if not c["ends"]:  # the contract in include/grainchunk.h
            err(f"thread {tid}: chunk [{c['lo']}, {c['hi']}]'s duration {d} does not end "
                "with the thread's last clock reading")
        if a.clock == "ns" and fr["spin"]:
            # A making time that took in the previous chunk's body would be
            # at least SPIN_NS for every chunk after a thread's first; a
            # preemption stretches a few. Judged over the run (see check).
            durations["spun"] += 1
            durations["long"] += d >= SPIN_NS


def report(errors, ok=""):
    if errors:
        for e in errors:
            print("check_ext:", e)
        print("check_ext: FAILED")
        return 1
    print(f"check_ext: OK, {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
