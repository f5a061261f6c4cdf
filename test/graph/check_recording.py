#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reads a recording in format 4 (tools/grainchunk-record.c) on its own,
without grainchunk-graph, and prints what the lit tests check:

  check_recording.py RAW [ITERATION|FIRST-LAST ...]

RAW holds one directory per process (<host>.<pid>). Per process (parents
before their fork children): its pid's role (root, or child of a recorded
process), rank, size, whether meta.txt says the run completed, threads and
records by kind; per thread the records in its file and whether the file
holds exactly them (a normal end) or the stream goes on in the thread's
ring, thread-N.tail (a process that did not reach finalize). Exits 1 on a record stream
that is not well formed (an unknown kind, a string or wide record cut
short other than at the end) or a complete recording whose counts disagree
with meta.txt. Per ITERATION (or every one of FIRST-LAST): whether a chunk that holds
it was recorded (in any process; a chunk's bounds count from 0)."""
import collections
import os
import struct
import sys

REC = struct.Struct("<QQQII")
R_WIDE, R_STRING, R_CHUNK = 0x80, 13, 8
KINDS = ["", "thread", "parallel_begin", "parallel_end", "implicit_begin",
         "implicit_end", "loop_begin", "loop_end", "chunk", "task_create",
         "task_switch", "sync_begin", "sync_end", "string", "source", "taskloop",
         "cancel"]


def fail(msg):
    print(f"check_recording: {msg}")
    sys.exit(1)


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            meta[k] = v
    return meta


def read_thread(path, iters, seen):
    """(records by kind, records in the stream, how the stream ends: exact
    (the file holds the records and nothing else), ring (the process did
    not finish: the stream goes on in thread-N.tail, whose first record's
    first field is the stream index of the ring's first record), or the
    bytes left over)."""
    data = open(path, "rb").read()
    end = "exact"
    tail = path[:-4] + ".tail"
    ring = open(tail, "rb").read() if os.path.exists(tail) else b""
    if len(ring) >= REC.size:
        n = len(data) // REC.size
        first = REC.unpack_from(ring)[0]
        if first > n:
            fail(f"{tail}: the ring begins at record {first}; {path} holds {n}")
        data = data[:n * REC.size] + ring[REC.size * (1 + n - first):]
        end = "ring"
    n = len(data) // REC.size
    kinds = collections.Counter()
    i = 0
    while i < n:
        t, a, b, c, kd = REC.unpack_from(data, i * REC.size)
        if kd == 0:
            break
        kind = kd & 0x7f
        if not 1 <= kind < len(KINDS):
            fail(f"{path}: record {i}: unknown kind {kind}")
        step = 1
        if kd & R_WIDE:
            step = 2
        elif kind == R_STRING:
            step = 1 + ((kd >> 8) + REC.size - 1) // REC.size
        if i + step > n:
            break  # cut short at the end: ignored
        kinds[KINDS[kind]] += 1
        if kind == R_CHUNK:
            seen.update(x for x in iters if a <= x <= b)
        i += step
    left = data[i * REC.size:]
    if end == "exact" and left:
        end = f"{len(left)} bytes left over"
    elif end == "ring" and left.strip(b"\0"):
        fail(f"{tail}: records after the stream's end")
    return kinds, i, end


def main():
    raw = sys.argv[1]
    asked = [[int(y) for y in x.split("-")] for x in sys.argv[2:]]
    iters, seen = [x for r in asked for x in range(r[0], r[-1] + 1)], set()
    procs = []
    for d in sorted(os.listdir(raw)):
        if os.path.isfile(os.path.join(raw, d, "meta.txt")):
            procs.append((d, read_meta(os.path.join(raw, d, "meta.txt"))))
    pids = {m["pid"] for _, m in procs}
    # Parents before their children, then by pid.
    depth = {}
    ppid = {m["pid"]: m["ppid"] for _, m in procs}
    for p in pids:
        k, q = 0, p
        while ppid.get(q) in pids and k < 64:
            q, k = ppid[q], k + 1
        depth[p] = k
    procs.sort(key=lambda pm: (depth[pm[1]["pid"]], int(pm[1]["pid"])))
    print(f"processes {len(procs)}")
    for d, m in procs:
        if m.get("record_version") != "4" or m.get("record_bytes") != "32":
            fail(f"{d}: record_version {m.get('record_version')}")
        if not d.endswith("." + m["pid"]) and f".{m['pid']}-" not in d:
            fail(f"{d}: directory does not name pid {m['pid']}")
        for k in ("clock0", "ns0", "ticks_per_ns", "host", "exe", "ppid"):
            if k not in m:
                fail(f"{d}: meta.txt has no {k}")
        complete = m.get("complete") == "1"
        role = "child" if m["ppid"] in pids else "root"
        files = sorted((f for f in os.listdir(os.path.join(raw, d))
                        if f.startswith("thread-") and f.endswith(".bin")),
                       key=lambda f: int(f[7:-4]))
        total = collections.Counter()
        records, lines = 0, []
        for f in files:
            kinds, nrec, end = read_thread(os.path.join(raw, d, f), iters, seen)
            total += kinds
            records += nrec
            lines.append(f"  {f[:-4]} records {nrec} chunks {kinds['chunk']} {end}")
        print(f"process {role} rank {m.get('rank')} size {m.get('size')} "
              f"rank_source {m.get('rank_source')} complete {int(complete)} "
              f"threads {len(files)} chunks {total['chunk']}")
        print("  kinds " + " ".join(f"{k}={total[k]}" for k in KINDS[1:] if total[k]))
        for line in lines:
            print(line)
        if complete:
            if int(m["threads"]) != len(files):
                fail(f"{d}: meta.txt says {m['threads']} threads; there are "
                     f"{len(files)} files")
            print(f"  meta records {m['records']} "
                  + ("match" if int(m["records"]) == records else f"stream {records}")
                  + f" dropped {m['dropped']} lost_threads {m['lost_threads']}")
    for r in asked:
        missing = sum(x not in seen for x in range(r[0], r[-1] + 1))
        print(f"iteration{'s' if len(r) > 1 else ''} {'-'.join(map(str, r))} "
              + (f"missing {missing}" if missing else "recorded"))


if __name__ == "__main__":
    main()
