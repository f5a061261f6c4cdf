# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""mpi-shapes.test: an aggregated grains.graphml of alike processes.

check_shapes.py WHOLE.graphml ALONE-DIR... : WHOLE's DAGs (weakly
connected components), whether each is a DAG from one start to one end,
then per DAG (in the file's order) its members (the ranks and pids on its
start node), and whether each group node's grains, exec_cycles and
work_cycles are the sums, and work_min and work_max the least and largest,
of the same node (by position in the file) in the members' own graphs
(ALONE-DIR: a member's process analysed alone, its run.json naming it),
and whether its label is made of the sums.
"""
import json
import math
import sys

import networkx as nx

g = nx.read_graphml(sys.argv[1])
alone = {}
for d in sys.argv[2:]:
    p = json.load(open(d + "/run.json"))["processes"][0]
    alone[p["rank"]] = (p["pid"], nx.read_graphml(d + "/grains.graphml"))
order = list(g.nodes)
comps = [set(c) for c in nx.weakly_connected_components(g)]
dags = all(nx.is_directed_acyclic_graph(g.subgraph(c)) for c in comps)
ends = True
for c in comps:
    src = [n for n in c if g.in_degree(n) == 0]
    snk = [n for n in c if g.out_degree(n) == 0]
    ends = ends and len(src) == 1 and len(snk) == 1
    ends = ends and g.nodes[src[0]]["grain_type"] == "start"
    ends = ends and g.nodes[snk[0]]["grain_type"] == "end"
print("classes", len(comps), "dags", dags, "ends", ends)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-5)


def first_of(c):
    return order.index(next(n for n in c if g.in_degree(n) == 0))


for c in sorted(comps, key=first_of):
    nodes = [n for n in order if n in c]
    s = g.nodes[nodes[0]]
    ranks = [int(r) for r in s["ranks"].split()]
    pids = [int(p) for p in s["pids"].split()]
    members = [alone[r][1] for r in ranks]
    okp = pids == [alone[r][0] for r in ranks]
    mnodes = [list(m.nodes) for m in members]
    same = all(len(m) == len(nodes) for m in mnodes)
    sums = spread = labels = same
    groups = 0
    for i, n in enumerate(nodes if same else []):
        d = g.nodes[n]
        if d["grain_type"] not in ("chunks", "tasks"):
            continue
        groups += 1
        md = [m.nodes[mn[i]] for m, mn in zip(members, mnodes)]
        w = [x["work_cycles"] for x in md]
        sums = sums and d["grains"] == sum(x["grains"] for x in md)
        sums = sums and d["exec_cycles"] == sum(x["exec_cycles"] for x in md)
        sums = sums and close(d["work_cycles"], sum(w))
        spread = spread and close(d["work_min"], min(w))
        spread = spread and close(d["work_max"], max(w))
        spread = spread and d["processes"] == len(ranks)
        labels = labels and d["label"].startswith("%d " % d["grains"])
        labels = labels and d["label"].endswith(" over %d processes" % len(ranks))
    print("class ranks", " ".join(map(str, ranks)), "processes",
          s["processes"], "pids", okp, "sums", sums and groups > 0, "spread",
          spread, "labels", labels)
