# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The task bars of an aggregated report.html (report-task-idle.test): how
many, and how many last across a gap of 100 ms or more with no task
running on their row."""
import html
import json
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="gc-data">(.*?)</script>',
              page, re.S)
D = json.loads(html.unescape(m.group(1)) if m.group(1).startswith("{&") else m.group(1))
B = D["bars"]
# Starts are differences from the bar before; durations as they are.
starts, t = [], 0
for d in B["s"]:
    t += d
    starts.append(t)
bars = [(B["row"][i], starts[i], starts[i] + B["d"][i])
        for i in range(len(B["row"])) if B["k"][i] < 0]
across = 0
for row, s, e in bars:
    # A task bar spanning 100 ms or more is one bar across the idle gap.
    if e - s >= 100e6:
        across += 1
print(f"task bars: {len(bars)}; across the gap: {across}")
