#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks grainchunk-graph's outputs against what the test programs ran.

  check_graph.py known OUT PROGRAM_OUTPUT  known.c's grains: counts, ranges,
                              costs (against the program's own timing), metrics
  check_graph.py driver OUT ext|std   ext_driver.c's grains
  check_graph.py graphml OUT [SUMMARY]  grains.graphml (networkx): node and
                              edge counts, one DAG per process from start to
                              end, the critical path against networkx's
                              longest path, run.json and the summary
  check_graph.py trace OUT    trace.json against grains.csv
  check_graph.py png PNG LANES  a rendered timeline: size, lanes not blank (PIL)
  check_graph.py deviation OUT PROGRAM_OUTPUT BASELINE_OUTPUT  deviation.c:
                              which grains have a twin, their work_deviation
                              against the program's own timings
  check_graph.py peak MB CMD...  runs CMD: its peak resident memory is below MB
  check_graph.py tasks OUT N    tasktree.c's N tasks: the tree's shape, joins, work
  check_graph.py unknown OUT N  exactly N chunks, all of one loop, have unknown
                              times (NA), all other chunks times
  check_graph.py names OUT    the grains per (kind, function, location) in
                              grains.csv and GraphML, and the trace's names
  check_graph.py functions NAMES FILE  grainchunk-graph's userFunction and
                              demangle (run by the test tool NAMES, one name
                              a line) on each line of FILE ("name -> want")
  check_graph.py otf2 OUT SRC  trace.otf2 read back with otf2-print against
                              run.json, grains.csv and the per-grain
                              trace.json: locations, enters/leaves, regions
                              named SRC:line, timestamps in order
  check_graph.py aggregated OUT  the aggregated trace.json and grains.graphml
                              and loops.csv (pandas) against grains.csv
  check_graph.py styles OUT DIR  the yEd and Cytoscape styles in DIR parse as
                              XML and map only attributes grains.graphml has
  check_graph.py capped OUT GRAINS TRACE GRAPH REPORT PER_GRAIN  the byte
                              caps (bytes) and the directory's bytes per
                              grain; grains.graphml one DAG per process
  check_graph.py problems OUT  problems.c: the outlier chunk (iteration 5 of
                              the first loop) and the prototype's attributes
                              in grains.graphml (networkx) against grains.csv
  check_graph.py chunk_tasks OUT PROGRAM_OUTPUT  chunk_tasks.c: every task
                              (made inside loop chunks) has a lineage and a
                              work_deviation, lineages are distinct; the
                              chunks matched (all of the static,3 loop)
  check_graph.py loop_tasks OUT N  loop_tasks.c's N tasks, made inside loop
                              chunks: each task's parent in grains.csv is a
                              chunk of the loop that ran when it was made,
                              N different chunks; in grains.graphml its one
                              in-edge is the creation edge from that chunk,
                              its join (the barrier) goes on to the loop's
                              join; one source and one sink; a task on the
                              critical path has its chunk on it
  check_graph.py loop_tasks_aggregated OUT  the aggregated grains.graphml of
                              loop_tasks.c: a DAG, every task group's fork
                              has an in-edge from a chunk group
  check_graph.py problem_graphs OUT [aggregated]  the problem views
                              (--outputs problem-graphs): a file per problem
                              type grains.csv flags (and none else); in it
                              exactly those grains problematic and red, the
                              others dimmed grains.graphml colours, the same
                              graph; the summary's counts. aggregated: the
                              group nodes' problematic add up to the counts
  check_graph.py processes SUMMARY SRC  mpi_loop.c: the loop across
                              processes: work for each rank, the process
                              imbalance their max/mean

Prints one line per check; exits 1 with "FAILED: ..." on a mismatch.
Debian's python3 with python3-networkx and python3-pil (install-deps.sh).
"""
import collections
import csv
import json
import os
import re
import sys


def fail(msg):
    print(f"check_graph: FAILED: {msg}")
    sys.exit(1)


def grains(out):
    # Plain RFC 4180 (the header first), read as any CSV reader would; the
    # clock is in run.json.
    with open(os.path.join(out, "grains.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "run.json")) as f:
        tpn = float(json.load(f)["ticks_per_ns"])
    return rows, tpn


def meta(out):
    m = {}
    raw = os.path.join(out, "raw")
    if not os.path.exists(os.path.join(raw, "meta.txt")):  # format 4: <host>.<pid>/
        raw = os.path.join(raw, next(d for d in sorted(os.listdir(raw))
                                     if os.path.isfile(os.path.join(raw, d, "meta.txt"))))
    with open(os.path.join(raw, "meta.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            m[k] = v
    return m


def num(v):
    return None if v == "NA" else float(v)


def max_mean(vals):
    return max(vals) / (sum(vals) / len(vals))


def near(name, got, want, tol):
    if got is None or abs(got - want) > tol * want:
        fail(f"{name} = {got}, expected {want:.4g} within {tol:.0%}")


def check_costs(chunks, unit_ticks, label, measured=None):
    """chunk k (iteration k) costs (k + 1) units: it ran at least that long.
    measured[k]: the ticks the program itself timed for iteration k (a busy
    machine stretches chunks; both see the same stretch): all but 2 chunks
    within 10% + 50 us of it (a preemption between the body and the next
    chunk event is the tool's alone)."""
    ok = 0
    for c in chunks:
        k = int(c["first_iteration"])
        want = (k + 1) * unit_ticks
        got = float(c["exec_cycles"])
        if got < 0.97 * want:
            fail(f"{label}: chunk {k} ran {got:.0f} ticks, less than its {want:.0f}")
        if measured:
            ok += abs(got - measured[k]) <= 0.1 * measured[k] + 50e3 * unit_ticks / 300e3
    if measured and ok < len(chunks) - 2:
        fail(f"{label}: only {ok} of {len(chunks)} chunks within 10% of the program's own timing")
    return ok


def known(out, prog_out):
    rows, tpn = grains(out)
    measured = {}
    with open(prog_out) as f:
        for line in f:
            if line.startswith("cost "):
                _, k, ns = line.split()
                measured[int(k)] = int(ns) * tpn
    m = meta(out)
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    tasks = [r for r in rows if r["grain_type"] == "task"]
    loops = collections.defaultdict(list)
    for c in chunks:
        loops[c["loop_instance"]].append(c)
    if sorted(len(v) for v in loops.values()) != [7, 16]:
        fail(f"chunks per loop instance {sorted(len(v) for v in loops.values())}, expected [7, 16]")
    static = next(v for v in loops.values() if len(v) == 16)
    dynamic = next(v for v in loops.values() if len(v) == 7)
    # The static schedule: chunk k is iteration k, on thread k mod 2.
    its = sorted(int(c["first_iteration"]) for c in static)
    if its != list(range(16)) or any(c["first_iteration"] != c["last_iteration"] for c in static):
        fail(f"static chunks {its}")
    if any(int(c["thread_num"]) != int(c["first_iteration"]) % 2 for c in static):
        fail("a static chunk ran on the wrong thread")
    # The dynamic loop: 7 chunks of 3 (the last 2) tiling 0..19.
    spans = sorted((int(c["first_iteration"]), int(c["last_iteration"])) for c in dynamic)
    if spans != [(3 * i, min(3 * i + 2, 19)) for i in range(7)]:
        fail(f"dynamic chunks {spans}")
    print(f"check_graph: OK grains: {len(static)} static chunks, {len(dynamic)} dynamic chunks, "
          f"{len(tasks)} tasks")
    ok = check_costs(static, 300 * 1000 * tpn, "static loop", measured)
    # Metrics: the prototype's definitions, from the columns, and their
    # known values for costs 1..16 on 2 threads.
    work = [float(c["work_cycles"]) for c in static]
    cwb = float(static[0]["chunk_work_balance"])
    near("chunk_work_balance (from the columns)", cwb, max_mean(work), 1e-4)
    prog = list(measured.values())
    near("chunk_work_balance (the program's timing)", cwb, max_mean(prog), 0.1)
    per = collections.defaultdict(float)
    for c in static:
        per[c["thread_num"]] += float(c["work_cycles"])
    cpu = float(static[0]["chunk_work_cpu_balance"])
    near("chunk_work_cpu_balance (from the columns)", cpu, max_mean(list(per.values())), 1e-4)
    prog_cpu = [sum(v for k, v in measured.items() if k % 2 == t) for t in (0, 1)]
    near("chunk_work_cpu_balance (the program's timing)", cpu, max_mean(prog_cpu), 0.1)
    print(f"check_graph: OK costs: {ok} of 16 static chunks as the program timed them; "
          f"chunk_work_balance {cwb:.3f} (program {max_mean(prog):.3f}; on an idle machine "
          f"16/8.5 = 1.882), chunk_work_cpu_balance {cpu:.3f} (program {max_mean(prog_cpu):.3f}; "
          "idle 72/68 = 1.059)")
    # Tasks: 16 tiny, 2 big (5 ms).
    if len(tasks) != 18:
        fail(f"{len(tasks)} tasks, expected 18")
    big = sorted(tasks, key=lambda t: float(t["exec_cycles"]))[-2:]
    tiny = [t for t in tasks if t not in big]
    if any(float(t["exec_cycles"]) < 0.97 * 5e6 * tpn for t in big):
        fail("a big task ran less than 5 ms")
    if m.get("ext_task_create") == "1" and m.get("ext_tool_time") == "1":
        # The big tasks' benefit is above the tiny ones' median (the same
        # waits per child, 5 ms of work against none; a tiny task preempted
        # may measure more); not necessarily above 1: on a loaded machine
        # the parent wakes from its wait late, which its children's benefit
        # counts (0.91 seen at a load of 20).
        flagged = sum(1 for t in tiny if "parallel_benefit" in t["problems"])
        tiny_med = sorted(num(t["parallel_benefit"]) for t in tiny)[len(tiny) // 2]
        if flagged < 12 or any(num(t["parallel_benefit"]) <= tiny_med for t in big):
            fail(f"parallel benefit: {flagged} of 16 tiny tasks flagged (median "
                 f"{tiny_med}), big {[t['parallel_benefit'] for t in big]}")
        # Static chunks' making time: the first's is the init call, the
        # others' from the plugin's chunk-end call before them; every one
        # measured and > 0. (Not compared with the bodies: a thread
        # descheduled in the init call makes it long.)
        measured = []
        for c in static:
            cr = num(c["creation_cycles"])
            if cr is None or cr <= 0:
                fail(f"static chunk {c['first_iteration']}: creation {c['creation_cycles']}")
            measured.append(cr)
        print(f"check_graph: OK parallel benefit measured: {flagged} of 16 tiny tasks < 1, "
              f"both big tasks above the tiny ones' median; static chunks' creation measured for {len(measured)} of 16 "
              f"({', '.join(f'{v:.0f}' for v in measured[:4])} ticks)")
    else:
        if any(t["creation_cycles"] != "NA" or t["parallel_benefit"] != "NA" for t in tasks):
            fail("creation time reported without a way to measure it")
        print("check_graph: OK parallel benefit unmeasured (NA) without extension events")


def driver(out, mode):
    rows, tpn = grains(out)
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    tasks = sorted((r for r in rows if r["grain_type"] == "task"), key=lambda r: int(r["create_instant"]))
    if len(chunks) != 8 or len(tasks) != 6:
        fail(f"{len(chunks)} chunks, {len(tasks)} tasks; expected 8 and 6")
    check_costs(chunks, 200 * 1000 * tpn, "driver loop")
    if mode == "ext":
        for c in chunks:  # ext_driver.c's creation(k)
            k = int(c["first_iteration"])
            want = 5e9 if k == 6 else 812.5 if k == 7 else 100.0 * (k + 1)
            if num(c["creation_cycles"]) != want:
                fail(f"chunk {k} creation {c['creation_cycles']}, the runtime said {want}")
        if any(num(t["creation_cycles"]) != 2e6 for t in tasks):
            fail("task creation differs from the runtime's event_duration")
        tiny, big = tasks[:4], tasks[4:]
        flagged = sum(1 for t in tiny if "parallel_benefit" in t["problems"])
        if flagged < 3 or any(num(t["parallel_benefit"]) <= 1 for t in big):
            fail(f"{flagged} of 4 tiny tasks flagged; big {[t['parallel_benefit'] for t in big]}")
        for g in chunks + tasks:  # the definition, from the columns
            want = float(g["work_cycles"]) / (float(g["creation_cycles"]) +
                                              float(g["sync_cycles_per_child"]))
            near(f"parallel_benefit of {g['task']}", num(g["parallel_benefit"]), want, 1e-4)
        print(f"check_graph: OK ext: creation times as reported, {flagged} of 4 tiny tasks "
              "parallel_benefit < 1, big tasks > 1")
    else:
        if any(g["creation_cycles"] != "NA" or g["parallel_benefit"] != "NA" for g in chunks + tasks):
            fail("a creation time or parallel benefit without extension events")
        print("check_graph: OK std: creation and parallel_benefit NA, costs measured")


def graphml(out, summary=None):
    import networkx as nx
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    kinds = collections.Counter(d.get("grain_type", "?") for _, d in g.nodes(data=True))
    edges = collections.Counter(d.get("edge_type", "?") for _, _, d in g.edges(data=True))
    print(f"check_graph: graphml {g.number_of_nodes()} nodes "
          + " ".join(f"{k}={kinds[k]}" for k in sorted(kinds)))
    print(f"check_graph: graphml {g.number_of_edges()} edges "
          + " ".join(f"{k}={edges[k]}" for k in sorted(edges)))
    print(f"check_graph: graphml acyclic {nx.is_directed_acyclic_graph(g)}")
    for n, d in g.nodes(data=True):
        if d.get("grain_type") in ("chunk", "task"):
            preds = [g.edges[p, n]["edge_type"] for p in g.predecessors(n)]
            succs = [g.edges[n, s]["edge_type"] for s in g.successors(n)]
            if preds != ["creation"] or "synchronization" not in succs:
                fail(f"grain {n}: in {preds}, out {succs}")
    print("check_graph: graphml every grain: one creation edge in, a synchronization edge out")
    # The prototype's attribute: type (start, end, fork, join, task) on
    # nodes, (create, sync, continue, scope) on edges, beside ours.
    want = {"start": "start", "end": "end", "fork": "fork", "join": "join",
            "chunk": "task", "task": "task"}
    for n, d in g.nodes(data=True):
        if want.get(d["grain_type"]) != d.get("type"):
            fail(f"node {n}: grain_type {d['grain_type']}, type {d.get('type')}")
    ewant = {"creation": "create", "synchronization": "sync",
             "continuation": "continue", "scope": "scope"}
    for s, t, d in g.edges(data=True):
        if ewant[d["edge_type"]] != d.get("type"):
            fail(f"edge {s}->{t}: edge_type {d['edge_type']}, type {d.get('type')}")
    # One DAG per process from its start to its end node.
    with open(os.path.join(out, "run.json")) as f:
        rj = json.load(f)
    procs = rj["processes"]
    comps = list(nx.weakly_connected_components(g))
    if len(comps) != len(procs):
        fail(f"{len(comps)} weakly connected components for {len(procs)} processes")
    spans = []
    for i, proc in enumerate(procs):
        pre = "" if len(procs) == 1 else f"p{proc['pid'] if proc['pid'] is not None else i}."
        comp = next((c for c in comps if pre + "start" in c), None)
        if comp is None:
            fail(f"no node {pre}start")
        h = g.subgraph(comp).copy()
        starts = [n for n in h if h.nodes[n]["type"] == "start"]
        ends = [n for n in h if h.nodes[n]["type"] == "end"]
        if len(starts) != 1 or len(ends) != 1:
            fail(f"a process has start nodes {starts} and end nodes {ends}")
        s, e = starts[0], ends[0]
        ok = nx.descendants(h, s) | {s}
        back = nx.ancestors(h, e) | {e}
        if ok != set(h) or back != set(h):
            fail(f"{len(set(h) - ok)} nodes not reached from {s}, "
                 f"{len(set(h) - back)} not reaching {e}")
        # The critical path: its nodes form one path start -> end, the
        # longest by weight (networkx's own longest path has its weight).
        path = [n for n in nx.topological_sort(h) if h.nodes[n]["on_crit_path"]]
        if path[0] != s or path[-1] != e:
            fail(f"critical path from {path[0]} to {path[-1]}")
        for a, b in zip(path, path[1:]):
            if not h.has_edge(a, b):
                fail(f"critical path: no edge {a} -> {b}")
        weight = sum(h.nodes[n]["weight_cycles"] for n in path)
        # networkx: longest path by node weight (as edge weight into a node).
        for a, b in h.edges:
            h.edges[a, b]["w"] = h.nodes[b]["weight_cycles"]
        longest = nx.dag_longest_path_length(h, weight="w")
        if abs(longest - weight) > 1e-6 * max(weight, 1):
            fail(f"critical path weight {weight}, networkx's longest path {longest}")
        span = proc["critical_path"]["span_cycles"]
        work = sum(h.nodes[n]["weight_cycles"] for n in h)
        if abs(span - weight) > 1e-6 * max(weight, 1) or \
                abs(proc["critical_path"]["work_cycles"] - work) > 1e-6 * max(work, 1):
            fail(f"run.json span {span}, work {proc['critical_path']['work_cycles']}; "
                 f"graph {weight}, {work}")
        spans.append((weight / proc["ticks_per_ns"] / 1e6, work / proc["ticks_per_ns"] / 1e6))
        print(f"check_graph: graphml one DAG from {s} to {e}: {h.number_of_nodes()} nodes "
              f"on start->end paths; critical path {len(path)} nodes, weight = span = "
              f"networkx's longest path")
    if summary:
        import re
        with open(summary) as f:
            got = [(float(a), float(b)) for a, b in
                   re.findall(r"critical path: span (\S+) ms, work (\S+) ms", f.read())]
        if len(got) != len(spans) or any(abs(a - x) > 1e-5 * x or abs(b - y) > 1e-5 * y
                                         for (a, b), (x, y) in zip(got, spans)):
            fail(f"summary's critical path {got}, graph's {spans}")
        print("check_graph: graphml the summary's span and work are the graph's")


def trace(out):
    rows, _ = grains(out)
    with open(os.path.join(out, "trace.json")) as f:
        tr = json.load(f)
    ev = tr["traceEvents"]
    names = {e["tid"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    xs = [e for e in ev if e["ph"] == "X"]
    chunks = [e for e in xs if e["cat"] == "chunk"]
    if {e["tid"] for e in xs} - names:
        fail("an event on a thread with no track")
    if any(e["dur"] < 0 or "iterations" not in e["args"] for e in chunks):
        fail("a chunk event without duration or iteration range")
    want = sum(1 for r in rows if r["grain_type"] == "chunk")
    if len(chunks) != want:
        fail(f"{len(chunks)} chunk events, {want} chunks")
    grains_seen = {e["args"]["grain"] for e in xs}
    if grains_seen != {r["task"] for r in rows}:
        fail("trace events and grains differ")
    print(f"check_graph: OK trace: {len(xs)} complete events ({len(chunks)} chunks) on "
          f"{len(names)} tracks, every grain present")


def png(path, lanes):
    from PIL import Image
    im = Image.open(path).convert("RGB")
    w, h = im.size
    top, lane_h, gap = 40, 28, 6  # write_svg's layout
    filled = []
    for i in range(lanes):
        y0 = top + i * (lane_h + gap) + 4
        n = 0
        for y in range(y0, y0 + lane_h - 8, 4):
            for x in range(90, w - 20):
                if im.getpixel((x, y)) not in ((255, 255, 255), (238, 238, 238)):
                    n += 1
        filled.append(n)
    print(f"check_graph: png {w}x{h}, lanes with grains drawn: "
          f"{sum(1 for n in filled if n > 0)} of {lanes}")
    if w != 1200 or not all(filled):
        fail(f"png {w}x{h}, coloured pixels per lane {filled}")


def deviation(out, prog_out, base_out):
    """deviation.c: which grains have a twin, and their work_deviation
    against the ratio of the program's own timings in the two runs."""
    import re

    def costs(path):
        c = {}
        with open(path) as f:
            for line in f:
                if line.startswith("cost "):
                    _, kind, i, ns = line.split()
                    c[(kind, int(i))] = int(ns)
        return c

    par, base = costs(prog_out), costs(base_out)
    rows, _ = grains(out)
    lin = [r["lineage"] for r in rows if r["lineage"] != "NA"]
    if len(lin) != len(rows) or len(set(lin)) != len(lin):
        fail(f"{len(rows)} grains, {len(lin)} lineages, {len(set(lin))} distinct")
    matched = [r for r in rows if r["work_deviation"] != "NA"]
    dyn = [r for r in rows if r["grain_type"] == "chunk" and r["work_deviation"] == "NA"]
    # A one-thread team runs a dynamic loop as one chunk: no twin for its chunks.
    if len(dyn) != 4 or len(matched) != len(rows) - 4:
        fail(f"{len(matched)} grains matched, {len(dyn)} chunks without a twin")
    ok, bad = 0, []
    for r in matched:
        lg = r["lineage"]
        m = re.search(r">t(\d+)(\.0)?$", lg)
        if m:
            key = ("child" if m.group(2) else "task", int(m.group(1)))
        else:
            key = ("nested" if lg.count("/p") == 2 else "static", int(r["first_iteration"]))
        want = par[key] / base[key]
        got = float(r["work_deviation"])
        if abs(got / want - 1) <= 0.25:
            ok += 1
        else:
            bad.append(f"{key}: {got:.2f} (own timings {want:.2f})")
    if len(bad) > 2:
        fail("work_deviation far from the program's own timings: " + "; ".join(bad))
    flagged = sum(1 for r in matched if "work_deviation" in r["problems"].split("|"))
    if flagged != sum(1 for r in matched if float(r["work_deviation"]) > 2):
        fail(f"{flagged} grains flagged work_deviation")
    print(f"check_graph: OK deviation: {len(matched)} grains matched, {ok} within 25% of the "
          f"program's own timings, 4 dynamic chunks without a twin, lineages distinct")


def peak(limit_mb, *cmd):
    import resource
    import subprocess
    rc = subprocess.call(cmd, stderr=subprocess.DEVNULL)
    mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if rc != 0:
        fail(f"{cmd[0]} exited with {rc}")
    if mb >= float(limit_mb):
        fail(f"peak resident memory {mb:.0f} MB, limit {limit_mb} MB")
    print(f"check_graph: OK peak resident memory below {limit_mb} MB")


def tasks(out, n):
    """tasktree.c's tree: every task but the two roots has a task parent,
    the inner tasks have 2 children numbered 0 and 1, all join at their
    parent's one taskwait, and work is exec minus overhead."""
    rows, _ = grains(out)
    ts = [r for r in rows if r["grain_type"] == "task"]
    ids = set(r["task"][1:] for r in ts)
    if len(ts) != int(n):
        fail(f"{len(ts)} tasks, expected {n}")
    roots = [r for r in ts if r["parent"] not in ids]
    inner = [r for r in ts if r["num_children"] == "2"]
    kids = collections.defaultdict(list)
    for r in ts:
        kids[r["parent"]].append(int(r["child_number"]))
    if len(roots) != 2 or len(set(r["parent"] for r in roots)) != 1:
        fail(f"{len(roots)} root tasks")
    if any(sorted(v) != [0, 1] for v in kids.values()) or len(kids) != len(inner) + 1:
        fail("a parent whose children are not numbered 0 and 1")
    if any(r["num_children"] not in ("0", "2") or r["joins_at"] != "0" for r in ts):
        fail("a task with other than 0 or 2 children, or joining at other than its first wait")
    if any(float(r["work_cycles"]) > float(r["exec_cycles"]) for r in ts
           if r["work_cycles"] != "NA"):
        fail("a task with more work than its execution time")
    print(f"check_graph: OK tasks: {len(ts)} tasks, {len(inner)} with 2 children, one root")


def unknown(out, n):
    rows, _ = grains(out)
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    na = [r for r in chunks if r["exec_cycles"] == "NA"]
    loops = sorted(set(r["loop"] for r in na))
    if len(na) != int(n) or len(loops) > 1:
        fail(f"{len(na)} chunks with exec_cycles NA in loops {loops}, expected {n} in one loop")
    if any(r["work_cycles"] != "NA" or r["chunk_work_balance"] != "NA" for r in na):
        fail("a chunk with an unknown time has a work or balance value")
    known = [r for r in chunks if r["exec_cycles"] != "NA"]
    if any(float(r["exec_cycles"]) <= 0 for r in known):
        fail("a measured chunk with no time")
    print(f"check_graph: OK unknown: {len(na)} chunks of one loop with exec_cycles NA, "
          f"{len(known)} others measured")


def names(out):
    """One line per (kind, function, location): its grains, from grains.csv;
    GraphML labels and the trace's event names must agree with it."""
    rows, _ = grains(out)
    count = collections.Counter((r["grain_type"], r["outline_function"], r["source_location"])
                                for r in rows)
    labels = collections.Counter(r["loop"] or (f"task {r['source_location']} ({r['outline_function']})"
                                               if r["outline_function"] != "?" else f"task {r['source_location']}")
                                 for r in rows)
    import networkx
    g = networkx.read_graphml(os.path.join(out, "grains.graphml"))
    got = collections.Counter(a["label"] for _, a in g.nodes(data=True)
                              if a.get("grain_type") in ("chunk", "task"))
    if got != labels:
        fail(f"GraphML labels {sorted(got.items())} differ from grains.csv's {sorted(labels.items())}")
    with open(os.path.join(out, "trace.json")) as f:
        ev = json.load(f)
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    got = collections.Counter(e["name"] for e in ev if e.get("ph") == "X")
    if got != labels:
        fail(f"trace names {sorted(got.items())} differ from grains.csv's {sorted(labels.items())}")
    for (kind, fn, loc), n in sorted(count.items()):
        print(f"check_graph: {kind} {fn} {loc}: {n}")


def functions(names_tool, path):
    import subprocess
    cases = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, _, want = (x.strip() for x in line.rpartition("->"))
            cases.append((name, want))
    res = subprocess.run([names_tool], input="".join(n + "\n" for n, _ in cases),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    bad = 0
    for (name, want), got in zip(cases, res):
        if got != want:
            print(f"check_graph: {name!r} -> {got!r}, expected {want!r}")
            bad += 1
    if len(res) < len(cases) or bad:
        fail(f"{bad} names, {len(res)} answers for {len(cases)}")
    print("check_graph: OK functions")


def otf2(out, src):
    """trace.otf2 holds every grain: a location per thread, an enter and a
    leave per chunk and per run segment of a task (as trace.json's complete
    events), regions named by the source file and line, each location's
    timestamps in order and its enters and leaves nested."""
    import re
    import subprocess
    rows, _ = grains(out)
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    with open(os.path.join(out, "trace.json")) as f:
        xs = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
    path = os.path.join(out, "trace.otf2")
    defs = subprocess.run(["otf2-print", "-G", path], check=True,
                          capture_output=True, text=True).stdout
    locs = [ln for ln in defs.splitlines() if ln.startswith("LOCATION ")]
    threads = sum(p["threads"] for p in run["processes"])
    if len(locs) != threads:
        fail(f"{len(locs)} locations, {threads} threads")
    regions = re.findall(r'^REGION\s+\d+\s+Name: "([^"]*)"', defs, re.M)
    bad = [r for r in regions if not re.search(re.escape(src) + r":\d+", r)]
    if not regions or bad:
        fail(f"regions without {src}:line: {bad or 'none at all'}")
    evs = subprocess.run(["otf2-print", path], check=True, capture_output=True,
                         text=True).stdout
    last, depth = {}, collections.Counter()
    n = collections.Counter()
    for ln in evs.splitlines():
        m = re.match(r"(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: \"([^\"]*)\"", ln)
        if not m:
            continue
        kind, loc, t = m.group(1), int(m.group(2)), int(m.group(3))
        if t < last.get(loc, 0):
            fail(f"location {loc}: time {t} before {last[loc]}")
        last[loc] = t
        depth[loc] += 1 if kind == "ENTER" else -1
        if depth[loc] < 0:
            fail(f"location {loc}: a leave without an enter")
        n[kind] += 1
        n[kind, "task" if m.group(4).startswith("task ") else "chunk"] += 1
    if any(depth.values()):
        fail(f"enters and leaves do not pair: {dict(depth)}")
    chunks = sum(1 for r in rows if r["grain_type"] == "chunk")
    segments = sum(1 for e in xs if e["cat"] == "task")
    if n["ENTER"] != chunks + segments or n["ENTER", "chunk"] != chunks:
        fail(f"{n['ENTER']} enters ({n['ENTER', 'chunk']} of chunks), "
             f"{chunks} chunks and {segments} task run segments")
    print(f"check_graph: OK otf2: {len(locs)} locations, {len(regions)} regions named "
          f"{src}:line, {n['ENTER']} enters and leaves ({chunks} chunks, {segments} "
          f"task run segments), timestamps in order")


def one_dag(g):
    """The graph is one DAG per process: a single source (start) and a
    single sink (end) in each weakly connected piece, one piece per
    process."""
    import networkx as nx
    if not nx.is_directed_acyclic_graph(g):
        fail("the graph has a cycle")
    pieces = list(nx.weakly_connected_components(g))
    for piece in pieces:
        src = [n for n in piece if g.in_degree(n) == 0]
        snk = [n for n in piece if g.out_degree(n) == 0]
        if len(src) != 1 or len(snk) != 1 or \
                g.nodes[src[0]]["grain_type"] != "start" or \
                g.nodes[snk[0]]["grain_type"] != "end":
            fail(f"a piece of {len(piece)} nodes has sources {src[:5]} and sinks {snk[:5]}")
    return len(pieces)


def aggregated(out):
    """Above their caps: trace.json has one event per loop instance and
    thread (and per task creation site and thread), grains.graphml is a DAG
    whose group nodes add up to the grains, loops.csv (read by pandas) one
    row per loop instance and thread adding up to grains.csv's chunks."""
    import networkx as nx
    import pandas as pd
    rows, _ = grains(out)
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    tasks = [r for r in rows if r["grain_type"] == "task"]
    per = collections.Counter((r["loop_instance"], int(r["cpu_id"])) for r in chunks)
    work = collections.Counter()
    for r in chunks:
        work[r["loop_instance"], int(r["cpu_id"])] += int(r["exec_cycles"])
    with open(os.path.join(out, "trace.json")) as f:
        tr = json.load(f)
    if not tr["otherData"].get("aggregated"):
        fail("trace.json is not the aggregated one")
    xs = [e for e in tr["traceEvents"] if e["ph"] == "X"]
    inst = collections.Counter((e["args"]["loop_instance"], e["tid"])
                               for e in xs if e["cat"] == "loop instance")
    if set(inst) != set(per) or any(v != 1 for v in inst.values()):
        fail(f"trace events per loop instance and thread {dict(inst)}, chunks {dict(per)}")
    for e in xs:
        if e["cat"] == "loop instance":
            key = (e["args"]["loop_instance"], e["tid"])
            if e["args"]["chunks"] != per[key] or e["args"]["work_cycles"] != work[key]:
                fail(f"trace event {key}: {e['args']}, chunks {per[key]} work {work[key]}")
    tev = sum(e["args"]["tasks"] for e in xs if e["cat"] == "tasks")
    if tev < len(tasks):
        fail(f"task events hold {tev} tasks, {len(tasks)} tasks")
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    if not nx.is_directed_acyclic_graph(g):
        fail("the aggregated graph has a cycle")
    kinds = collections.Counter()
    for n, d in g.nodes(data=True):
        kinds[d["grain_type"]] += d.get("grains", 1)
        if any(k not in d for k in ("shape", "width", "height", "color",
                                    "border-color")):
            fail(f"aggregated node {n} without the visual attributes: {d}")
    if kinds["chunk"] or kinds["task"] or kinds["chunks"] != len(chunks) \
            or kinds["tasks"] != len(tasks):
        fail(f"graph nodes {dict(kinds)}: {len(chunks)} chunks, {len(tasks)} tasks")
    # The prototype's types, and the critical path through the groups.
    want = {"chunks": "task", "tasks": "task", "fork": "fork", "join": "join",
            "start": "start", "end": "end"}
    for n, d in g.nodes(data=True):
        if d.get("type") != want.get(d["grain_type"]):
            fail(f"aggregated node {n}: type {d.get('type')}")
    one_dag(g)
    for a, b, d in g.edges(data=True):
        if d.get("type") not in ("create", "sync", "continue"):
            fail(f"aggregated edge {a}->{b}: type {d.get('type')}")
    groups = [d for _, d in g.nodes(data=True) if d["type"] == "task"]
    on = [d for d in groups if d.get("on_crit_path") is True]
    if any("on_crit_path" not in d for d in groups) or not on or \
            any(d["border-color"] != "#FF0000" for d in on):
        fail(f"aggregated groups on the critical path: {len(on)} of {len(groups)}")
    lc = pd.read_csv(os.path.join(out, "loops.csv"), keep_default_na=False,
                     na_values=["NA"])
    got = {(r.loop_instance, r.thread): (r.chunks, r.work_cycles) for r in lc.itertuples()}
    want = {k: (per[k], work[k]) for k in per}
    if got != want:
        fail(f"loops.csv {got}, grains.csv {want}")
    for r in lc.itertuples():
        ws = sorted(int(c["exec_cycles"]) for c in chunks
                    if (c["loop_instance"], int(c["cpu_id"])) == (r.loop_instance, r.thread))
        med = (ws[(len(ws) - 1) // 2] + ws[len(ws) // 2]) / 2
        if (r.min_chunk_work_cycles, r.max_chunk_work_cycles) != (ws[0], ws[-1]) \
                or r.median_chunk_work_cycles != med:
            fail(f"loops.csv {r}: chunk work {ws}")
    print(f"check_graph: OK aggregated: trace {len(inst)} loop instance events, graph "
          f"{g.number_of_nodes()} nodes for {len(rows)} grains (a DAG, the prototype's "
          f"types, {len(on)} groups on the critical path), loops.csv {len(lc)} rows")


def problems(out):
    import networkx as nx
    rows, _ = grains(out)
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    first = min(r["loop_instance"] for r in rows)
    slow = [r for r in rows if r["loop_instance"] == first
            and r["first_iteration"] == "5"]
    if len(slow) != 1 or "outlier" not in slow[0]["problems"].split("|"):
        fail(f"iteration 5's chunk: {slow}")
    node = g.nodes[slow[0]["task"]]
    if node.get("outlier") is not True or node.get("problem") is not True:
        fail(f"iteration 5's node: {node}")
    if any("chunk_work_balance" in r["problems"] for r in rows):
        fail("a chunk flagged chunk_work_balance")
    print("check_graph: OK problems: iteration 5's chunk is an outlier, in "
          "grains.csv and grains.graphml")
    grain = {n: d for n, d in g.nodes(data=True)
             if d["grain_type"] in ("chunk", "task")}
    want = ["type", "shape", "width", "height", "color", "border-color",
            "last_to_finish", "num_siblings", "inst_par_min",
            "inst_par_median", "inst_par_max"]
    for n, d in g.nodes(data=True):
        for k in (want if n in grain else want[:6]):
            if k not in d:
                fail(f"{n} has no {k}: {d}")
        if d["border-color"] != ("#FF0000" if d["on_crit_path"] else "#000000"):
            fail(f"{n}: border-color {d['border-color']}")
        if not d["inst_par_min"] <= d["inst_par_median"] <= d["inst_par_max"] \
                if n in grain else False:
            fail(f"{n}: inst_par {d}")
    print("check_graph: OK attributes: every grain has type, shape, width, "
          "height, color, border-color, last_to_finish, num_siblings, "
          "inst_par_min/median/max")
    by_id = {r["task"]: r for r in rows}
    latest = {}
    for r in rows:
        if r["exec_end_instant"] != "NA":
            e = int(r["exec_end_instant"])
            c = r["cpu_id"]
            if c not in latest or e > latest[c][0]:
                latest[c] = (e, r["task"])
    marked = sorted(n for n, d in grain.items() if d["last_to_finish"])
    if marked != sorted(t for _, t in latest.values()):
        fail(f"last_to_finish {marked}, latest per thread {latest}")
    print("check_graph: OK last_to_finish: one grain per thread, its latest end")
    inst = collections.defaultdict(list)
    for r in rows:
        inst[r["loop_instance"]].append(int(r["cpu_id"]))
    for n, d in grain.items():
        r = by_id[n]
        cpus = inst[r["loop_instance"]]
        if d["num_siblings"] != len(cpus) or \
                d.get("sibling_scatter", -1) != (max(cpus) - min(cpus)
                                                 if len(cpus) > 1 else -1):
            fail(f"{n}: siblings {d}, instance threads {cpus}")
    print("check_graph: OK siblings: a chunk's num_siblings is its loop "
          "instance's chunks, sibling_scatter its threads' spread")
    colours = collections.defaultdict(set)
    for n, d in grain.items():
        colours[d["label"]].add(d["color"])
    if any(len(c) != 1 for c in colours.values()) or \
            len(set().union(*colours.values())) != len(colours):
        fail(f"colours {dict(colours)}")
    print(f"check_graph: OK colours: one per loop, {len(colours)} loops")


def task_outliers(out):
    """task-outlier.c: the 200 ms task, the longest, is an outlier, in
    grains.csv and grains.graphml alike. Whether a 300 us task is one too
    depends on the machine (preempted, it measures milliseconds), so of the
    others only what the rule (docs/grain-graphs.md) implies whatever they
    measured: at each site (the siblings that join at one point), the
    flagged ones are fewer than half, none measured shorter than an
    unflagged sibling, and each is above the median by 5% of their work per
    thread (the run's threads, run.json)."""
    import networkx as nx
    import statistics
    rows, _ = grains(out)
    with open(os.path.join(out, "run.json")) as f:
        threads = sum(p["threads"] for p in json.load(f)["processes"])
    tasks = [r for r in rows if r["grain_type"] == "task"]
    work = {r["task"]: float(r["work_cycles"]) for r in tasks}
    flagged = {r["task"] for r in tasks if "outlier" in r["problems"].split("|")}
    longest = max(tasks, key=lambda r: work[r["task"]])["task"]
    if len(tasks) != 32 or longest not in flagged:
        fail(f"task_outliers: {len(tasks)} tasks, the longest {longest} not "
             f"among the flagged {sorted(flagged)}")
    sites = collections.defaultdict(list)
    for r in tasks:
        sites[(r["source_location"], r["parent"], r["joins_at"])].append(r["task"])
    if sorted(len(v) for v in sites.values()) != [8, 24]:
        fail(f"task_outliers: sites {sorted(len(v) for v in sites.values())}")
    for site, ks in sites.items():
        out_k = [k for k in ks if k in flagged]
        in_k = [k for k in ks if k not in flagged]
        w = [work[k] for k in ks]
        share = 0.05 * sum(w) / threads
        med = statistics.median(w)
        if 2 * len(out_k) >= len(ks):
            fail(f"task_outliers: {site}: {len(out_k)} of {len(ks)} flagged")
        if out_k and in_k and min(work[k] for k in out_k) < max(work[k] for k in in_k):
            fail(f"task_outliers: {site}: a flagged task shorter than an unflagged one")
        for k in out_k:
            if work[k] - med < share:
                fail(f"task_outliers: {site}: {k} flagged, {work[k] - med:.0f} "
                     f"ticks above the median, below 5% of a thread's share {share:.0f}")
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    marked = {n for n, d in g.nodes(data=True) if d.get("outlier") is True}
    if marked != flagged:
        fail(f"task_outliers: graphml marks {sorted(marked)}, grains.csv flags {sorted(flagged)}")
    print("check_graph: OK task_outliers: the 200 ms task is an outlier, in "
          "grains.csv and grains.graphml; every other flagged task "
          f"({len(flagged) - 1}) measured above the rule's thresholds")


def processes(summary, src):
    """The summary's line for the loop of src across processes: a work
    figure for each rank, and the process imbalance their max/mean. Not
    which rank measured more: on a loaded machine a process's CPU share
    varies, and its chunks' times with it."""
    text = open(summary).read()
    m = re.search(re.escape(src) + r":\d+ \([^)]*\): (\d+) processes; work per "
                  r"process \(ms\) ([^;]*); process imbalance \(max/mean\) "
                  r"([0-9.]+)", text)
    if not m:
        fail(f"processes: no line for {src} across processes")
    work = {int(r): float(w) for r, w in re.findall(r"r(\d+)=([0-9.]+)", m.group(2))}
    n, imb = int(m.group(1)), float(m.group(3))
    if sorted(work) != list(range(n)) or min(work.values()) <= 0:
        fail(f"processes: work {work} for {n} processes")
    want = max(work.values()) / (sum(work.values()) / n)
    if abs(imb - want) > 0.006:
        fail(f"processes: imbalance {imb}, max/mean of {work} is {want:.3f}")
    print(f"check_graph: OK processes: {n}, each with its work, the imbalance "
          "their max/mean")


def estimate(summary, where):
    """The schedule estimate of the first problem at `where` loses less
    than half of what the loop loses now, under both schedules."""
    text = open(summary).read()
    m = re.search(re.escape(where) + r":\d+ .*?try: .*?the (\d+) instance\(s\) "
                  r"that lose ([0-9.]+) ms now would lose ([0-9.]+) ms with "
                  r"schedule\(dynamic,(\d+)\) and ([0-9.]+) ms with "
                  r"schedule\(guided\)", text, re.S)
    if not m:
        fail("estimate: no estimate for " + where)
    now, dyn, guided = float(m.group(2)), float(m.group(3)), float(m.group(5))
    if not (now > 0 and dyn < now / 2 and guided < now / 2):
        fail("estimate: %s: now %.3f ms, dynamic,%s %.3f ms, guided %.3f ms"
             % (where, now, m.group(4), dyn, guided))
    print("check_graph: OK estimate: %s: dynamic and guided lose less than "
          "half of %.3f ms" % (where, now))


def styles(out, styledir):
    import xml.etree.ElementTree as ET
    keys = {"node": set(), "edge": set()}
    for k in ET.parse(os.path.join(out, "grains.graphml")).getroot():
        if k.tag.endswith("key"):
            keys[k.get("for")].add(k.get("attr.name"))
    yed = ET.parse(os.path.join(styledir, "grainchunk-yed.cnfx")).getroot()
    used = []
    for st in yed.iter("style"):
        for src in st.iter("source"):
            used.append((st.get("scope"), src.get("name")))
    cy = ET.parse(os.path.join(styledir, "grainchunk-cytoscape.xml")).getroot()
    for part in ("node", "edge"):
        for el in cy.iter(part):
            for m in el.iter():
                if m.get("attributeName"):
                    used.append((part, m.get("attributeName")))
    missing = [u for u in used if u[1] not in keys[u[0]]]
    if missing or len(used) < 10:
        fail(f"styles map {used}; not in grains.graphml: {missing}")
    print(f"check_graph: OK styles: {len(used)} mappings, every attribute in "
          "grains.graphml")


def chunk_tasks(out, prog_out):
    """chunk_tasks.c with a one-thread baseline: tasks made inside chunks
    are matched whatever the team size; chunks only where the bounds are
    the same in both runs (schedule(static, 3), the second loop of the
    top region, and every chunk of a one-thread nested team)."""
    import re
    with open(prog_out) as f:
        made = int(re.search(r"tasks (\d+)", f.read()).group(1))
    rows, _ = grains(out)
    tasks = [r for r in rows if r["grain_type"] == "task"]
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    if len(tasks) != made:
        fail(f"{len(tasks)} tasks in grains.csv, the program made {made}")
    lin = [r["lineage"] for r in rows if r["lineage"] != "NA"]
    if len(lin) != len(rows) or len(set(lin)) != len(lin):
        fail(f"{len(rows)} grains, {len(lin)} lineages, {len(set(lin))} distinct")
    nodev = [r["lineage"] for r in tasks if r["work_deviation"] == "NA"]
    if nodev:
        fail(f"{len(nodev)} of {len(tasks)} tasks without work_deviation: "
             + ", ".join(nodev[:8]))
    chunked = [r for r in chunks if re.match(r"^/p[^/]*/L1:", r["lineage"])]
    if not chunked or any(r["work_deviation"] == "NA" for r in chunked):
        fail(f"schedule(static, 3) chunks without work_deviation: "
             + ", ".join(r["lineage"] for r in chunked if r["work_deviation"] == "NA"))
    matched = sum(1 for r in chunks if r["work_deviation"] != "NA")
    print(f"check_graph: OK chunk tasks: {len(tasks)} tasks, all matched; "
          f"{matched} of {len(chunks)} chunks matched, "
          f"{len(chunked)} of them schedule(static, 3)")


def loop_tasks(out, n):
    import networkx as nx
    n = int(n)
    rows, _ = grains(out)
    chunks = {r["task"]: r for r in rows if r["grain_type"] == "chunk"}
    tasks = [r for r in rows if r["grain_type"] == "task"]
    if len(tasks) != n:
        fail(f"{len(tasks)} tasks, want {n}")
    for t in tasks:
        c = chunks.get(t["parent"])
        if c is None:
            fail(f"task {t['task']}: parent {t['parent']} is not a chunk")
        if not int(c["exec_start_instant"]) <= int(t["create_instant"]) \
                <= int(c["exec_end_instant"]):
            fail(f"task {t['task']} made at {t['create_instant']}, outside its "
                 f"parent chunk {c['task']} ({c['exec_start_instant']}.."
                 f"{c['exec_end_instant']})")
    if len({t["parent"] for t in tasks}) != n:
        fail(f"tasks' parent chunks {sorted(t['parent'] for t in tasks)}")
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    if not nx.is_directed_acyclic_graph(g):
        fail("grains.graphml has a cycle")
    for t in tasks:
        ins = [(p, g.nodes[p]["grain_type"], g.edges[p, t["task"]]["edge_type"])
               for p in g.predecessors(t["task"])]
        if ins != [(t["parent"], "chunk", "creation")]:
            fail(f"task {t['task']} (parent {t['parent']}): in-edges {ins}")
        # It joins at the loop's barrier: that join goes on to the loop's.
        joins = [s for s in g.successors(t["task"])
                 if g.edges[t["task"], s]["edge_type"] == "synchronization"]
        if len(joins) != 1 or not any(s.startswith("j.L")
                                      for s in g.successors(joins[0])):
            fail(f"task {t['task']}: joins {joins}, then "
                 f"{[list(g.successors(j)) for j in joins]}")
        if g.nodes[t["task"]]["on_crit_path"] and \
                not g.nodes[t["parent"]]["on_crit_path"]:
            fail(f"task {t['task']} on the critical path, its chunk {t['parent']} not")
    sources = [v for v in g if g.in_degree(v) == 0]
    sinks = [v for v in g if g.out_degree(v) == 0]
    if [g.nodes[v]["grain_type"] for v in sources] != ["start"] or \
            [g.nodes[v]["grain_type"] for v in sinks] != ["end"]:
        fail(f"sources {sources}, sinks {sinks}")
    print(f"check_graph: OK loop tasks: {n} tasks, each made by its own chunk: the "
          "parent in grains.csv, the creation edge in grains.graphml, joined before "
          "the loop's join; a DAG with one source and one sink")


def loop_tasks_aggregated(out):
    import networkx as nx
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    if not nx.is_directed_acyclic_graph(g):
        fail("the aggregated graph has a cycle")
    groups = [v for v, d in g.nodes(data=True) if d["grain_type"] == "tasks"]
    if not groups:
        fail("no task group")
    for v in groups:
        forks = [p for p in g.predecessors(v) if g.nodes[p]["grain_type"] == "fork"]
        if len(forks) != 1 or not any(g.nodes[p]["grain_type"] == "chunks"
                                      for p in g.predecessors(forks[0])):
            fail(f"task group {v}: forks {forks}, before them "
                 f"{[list(g.predecessors(f)) for f in forks]}")
    print("check_graph: OK loop tasks aggregated: a DAG, every task group's fork "
          "after a chunk group")


def dimmed(c):
    """A colour as the problem views dim it: alpha 0.2 over white."""
    v = [int(c[i:i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple((2 * x + 8 * 255 + 5) // 10 for x in v)


def problem_graphs(out, mode="every"):
    import re
    import networkx as nx
    rows, _ = grains(out)
    flagged = collections.defaultdict(set)
    for r in rows:
        for p in r["problems"].split("|"):
            if p:
                flagged[p].add(r["task"])
    with open(os.path.join(out, "summary.txt")) as f:
        said = {m.group(2): int(m.group(1)) for m in re.finditer(
            r"^  ([0-9]+) grains? ha(?:s|ve) ([a-z_]+) \(.*, (?:[0-9]+ of them on "
            r"the critical path|critical path unknown.*)$", f.read(), re.M)}
    want = {p: len(ids) for p, ids in flagged.items()}
    if said != want:
        fail(f"the summary's problem counts {said}, grains.csv's {want}")
    pdir = os.path.join(out, "problems")
    files = sorted(f[:-len(".graphml")] for f in os.listdir(pdir))
    if files != sorted(flagged) or not files:
        fail(f"problems/ holds {files}, grains.csv flags {sorted(flagged)}")
    base = nx.read_graphml(os.path.join(out, "grains.graphml"))
    for p in files:
        g = nx.read_graphml(os.path.join(pdir, p + ".graphml"))
        if sorted(g.nodes) != sorted(base.nodes) or \
                g.number_of_edges() != base.number_of_edges():
            fail(f"problems/{p}.graphml is not grains.graphml's graph")
        if mode == "aggregated":
            total = 0
            for n, d in g.nodes(data=True):
                k = d["problematic"]
                total += k
                if (d["color"] == "#FF0000") != (k > 0):
                    fail(f"{p}: node {n} problematic {k}, colour {d['color']}")
            if total != want[p]:
                fail(f"{p}: group nodes' problematic add up to {total}, "
                     f"grains.csv flags {want[p]}")
            print(f"check_graph: OK problems/{p}.graphml (aggregated): group "
                  f"nodes' problematic add up to {total}, red where > 0")
            continue
        red = set()
        for n, d in g.nodes(data=True):
            if d["problematic"] == 1:
                red.add(n)
                if d["color"] != "#FF0000":
                    fail(f"{p}: problematic {n} coloured {d['color']}")
            elif d["problematic"] != 0 or \
                    d["color"] != dimmed(base.nodes[n]["color"]):
                fail(f"{p}: node {n}: problematic {d['problematic']}, colour "
                     f"{d['color']}, grains.graphml's {base.nodes[n]['color']}")
        if red != flagged[p]:
            fail(f"{p}: problematic {sorted(red)}, grains.csv flags "
                 f"{sorted(flagged[p])}")
        print(f"check_graph: OK problems/{p}.graphml: the {len(red)} grains "
              "grains.csv flags problematic and red, the others dimmed")
    print(f"check_graph: OK the summary's counts are grains.csv's: {want}")


def capped(out, grains, trace_cap, graph_cap, report_cap, per_grain):
    """The byte caps: trace.json, grains.graphml (and each problem graph),
    report.html within theirs, the whole directory within per_grain bytes
    per grain; trace.json parses, grains.graphml is one DAG per process
    from start to end (networkx)."""
    import networkx as nx
    grains = int(grains)
    caps = {"trace.json": int(trace_cap), "grains.graphml": int(graph_cap),
            "report.html": int(report_cap)}
    pdir = os.path.join(out, "problems")
    if os.path.isdir(pdir):
        for f in os.listdir(pdir):
            caps[os.path.join("problems", f)] = int(graph_cap)
    for f, cap in caps.items():
        size = os.path.getsize(os.path.join(out, f))
        if size > cap:
            fail(f"{f}: {size} bytes, above its cap of {cap}")
    total = 0
    for d, sub, fs in os.walk(out):
        # The recording --keep-raw keeps is not an output.
        if d == out and "raw" in sub:
            sub.remove("raw")
        for f in fs:
            total += os.path.getsize(os.path.join(d, f))
    if total > int(per_grain) * grains:
        fail(f"{out}: {total} bytes, {total / grains:.0f} per grain, above "
             f"{per_grain}")
    with open(os.path.join(out, "trace.json")) as f:
        tr = json.load(f)
    g = nx.read_graphml(os.path.join(out, "grains.graphml"))
    pieces = one_dag(g)
    agg = "aggregated" if tr["otherData"].get("aggregated") else "every grain"
    print(f"check_graph: OK capped: trace.json {agg}, each file within its "
          f"cap, {total / grains:.0f} bytes per grain in all, grains.graphml "
          f"{g.number_of_nodes()} nodes, {pieces} DAG(s) from start to end")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"known": known, "driver": driver, "graphml": graphml, "trace": trace,
     "png": lambda p, n: png(p, int(n)), "unknown": unknown,
     "peak": peak, "deviation": deviation, "tasks": tasks, "names": names,
     "functions": functions, "otf2": otf2, "aggregated": aggregated,
     "problems": problems, "styles": styles, "estimate": estimate,
     "task_outliers": task_outliers, "chunk_tasks": chunk_tasks,
     "loop_tasks": loop_tasks, "loop_tasks_aggregated": loop_tasks_aggregated,
     "processes": processes,
     "problem_graphs": problem_graphs, "capped": capped}[cmd](*args)
