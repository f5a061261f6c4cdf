#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""summarize_events.py TOOL_LOG: what a chunk_tool log says about the OpenMP
runtime's own behaviour, per team size: how many loop entries (work begin
events, one per thread per loop) and how many ws_loop_chunk dispatch events
there were, plus ompt_set_callback's answer for dispatch and the work type
the runtime gives static loops."""
import sys
from collections import Counter, defaultdict

team = defaultdict(set)
work, chunks, wstypes = Counter(), Counter(), Counter()
answer = "none"
for line in open(sys.argv[1]):
    f = line.split()
    if not f:
        continue
    if f[0] == "SET" and f[1] == "dispatch":
        answer = f[2]
    elif f[0] == "I":
        team[f[1]].add(f[2])
    elif f[0] == "W" and f[1] == "b":
        work[f[2]] += 1
        wstypes[f[4]] += 1
    elif f[0] == "C":
        chunks[f[1]] += 1
by_size = defaultdict(lambda: [0, 0])
for pid, tids in team.items():
    by_size[len(tids)][0] += work[pid]
    by_size[len(tids)][1] += chunks[pid]
print(f"dispatch answer: {answer}")
print("loop work types: " + " ".join(sorted(wstypes)))
for size in sorted(by_size):
    entries, events = by_size[size]
    print(f"team {size}: {entries} loop entries, {events} chunk events")
