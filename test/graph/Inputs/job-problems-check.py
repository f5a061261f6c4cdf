# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Reads a multi-process summary (job-problems.test) and checks its job's
# problems list against the per-process sections: numbered from 1, most
# time lost first, each labelled r<rank> (p<pid> without a rank) naming a
# process of the summary, each problem a section shows listed with the
# same loss when it loses more than the list's last; loops of several
# processes (with --across) carry the across-processes line. Prints
# "job-problems: OK <n> of <N>: <labels in order>" or what is wrong.
import re
import sys

text = open(sys.argv[1]).read().split("\n")
want_across = "--across" in sys.argv[2:]
head = [i for i, l in enumerate(text)
        if l.startswith("job's problems, ranked by time lost over all")]
if len(head) != 1:
    sys.exit("job-problems: no job's problems list (%d)" % len(head))
m = re.search(r"\((\d+) of (\d+);", text[head[0]])
n, total = int(m.group(1)), int(m.group(2))
entry = re.compile(r"^  (\d+)\. ([rp]\d+) (.*): lost ([0-9.]+) ms "
                   r"\(([0-9.]+)% of the job, ([0-9.]+)% of ([rp]\d+)\)$")
job, i = [], head[0] + 1
while i < len(text) and text[i].startswith("  "):
    e = entry.match(text[i])
    if not e:
        sys.exit("job-problems: bad entry: " + text[i])
    across = i + 1 < len(text) and text[i + 1].startswith("     across ")
    job.append((int(e.group(1)), e.group(2), e.group(3), float(e.group(4)),
                e.group(7), across))
    i += 2 if across else 1
if [j[0] for j in job] != list(range(1, n + 1)) or n > 10 or n > total:
    sys.exit("job-problems: numbering %s of %d" % ([j[0] for j in job], n))
if any(a[3] < b[3] for a, b in zip(job, job[1:])):
    sys.exit("job-problems: not most lost first")
# The per-process sections and the problems they show.
labels, shown, who = {}, [], None
proc = re.compile(r"^process (\d+) \(parent \d+, rank (\w+), host")
prob = re.compile(r"^    (\d+)\. (.*): lost ([0-9.]+) ms \(")
for l in text:
    p = proc.match(l)
    if p:
        who = "p" + p.group(1) if p.group(2) == "NA" else "r" + p.group(2)
        labels[who] = True
        continue
    q = prob.match(l)
    if q and who:
        shown.append((who, q.group(2), float(q.group(3))))
for j in job:
    if j[1] not in labels or j[4] != j[1]:
        sys.exit("job-problems: label %s names no process" % j[1])
    if want_across and j[2].startswith("loop ") and not j[5]:
        sys.exit("job-problems: no across line for " + j[2])
if not shown:
    sys.exit("job-problems: no process shows a problem")
for s in shown:
    if s[2] > job[-1][3] and not any(
            (j[1], j[2], j[3]) == s for j in job):
        sys.exit("job-problems: %s %s (%.3f ms) not in the list" % s)
print("job-problems: OK %d of %d: %s" % (n, total,
                                         " ".join(j[1] for j in job)))
