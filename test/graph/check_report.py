#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks report.html where users look at it: in headless Chromium.

  check_report.py known OUT [SCREENSHOT.png]  OUT/report.html of a program
      with grains.csv and grains.graphml: no script errors, no network
      request, the chunks drawn per thread equal grains.csv's, the legend
      names the loops, the graph's critical-path grains (all groups
      expanded) equal grains.graphml's on_crit_path, hovering a chunk shows
      its row, wheel zoom and drag pan change the visible range (a drag
      past the canvas's edge too) and reset restores it, the problems panel ranks as the summary does, lists
      first among the loops the one that lost the most thread time to
      imbalance (from grains.csv), and clicking it selects that loop; the
      problem views: one per type grains.csv flags (and the outliers), each
      highlighting in red exactly the grains grains.csv flags in the timeline
      and in the graph (collapsed groups by their counts, and expanded), its
      line the summary's; the loops' and sites' colours are grains.graphml's
      and timeline.svg's; readable: no time before zero, tick labels inside
      the canvas, the summary's number formats, at most 5 problems shown, a
      task site's problem selects its tasks (zoomed), the legend does not
      move, labels contrast with their colour, the most work has the
      palette's first colours; then a screenshot of the page (not blank).
  check_report.py demo OUT [SCREENSHOT.png]  scripts/demo.sh's page
      (examples/imbalance.c: three loops, no task): the checks of known,
      but no task in grains.csv, no task site on the page or among the
      problems (the legend stays through a loop's and a chunk's selection
      instead), and the loop listed first is the summary's first (the
      page ranks by the threads' time lost, waits included, which
      grains.csv's work does not give).
  check_report.py palette OUT  a page of 40 loops or more: their colours
      (as the browser draws them) are far apart, far from red and seen on
      white; the problems panel shows the top 5, "show all N" the rest.
  check_report.py aggregated OUT  a page above its cap (--max-report-grains):
      no errors, the chunks per process and thread (from the bars' counts)
      equal loops.csv's, the page says it is aggregated, each problem view
      highlights as many grains as the summary counts.
  check_report.py outliers OUT  a program with outlier chunks (problems.c):
      the first problem links exactly its loop's outlier chunks of
      grains.csv (problems has "outlier"), and a click on one selects that
      chunk in the timeline.
  check_report.py instances OUT  a loop of several instances (instances.c):
      its problem zooms to the instance with the most thread time outside
      its chunks (grains.csv's), the steps go to the next and back.
  check_report.py chains OUT N  a loop run N times in a row: N forks and
      joins one after the other, the critical path through a chunk group of
      each; Fit readable (at most 3 graph units per pixel).
  check_report.py big-graph OUT  more nodes than the graph draws (loops
      that alternate): blocks of consecutive instances, said on the page, at
      most 1000 nodes, Fit readable.
  check_report.py layout OUT [labels]  the grain graph as drawn (geometry of
      the SVG: nodes by their position, edges by their end points): per
      process every node below its start node and every edge running down;
      the critical path's edges (red) one path from start to end, no node
      with two red edges in or out (no fans); after Fit, and after wheel
      zooms out and in, every label shown at 9 px on screen at least
      (labels: and some shown once zoomed in).
  check_report.py blocks OUT  a page aggregated over blocks of consecutive
      loop instances: the facts say so (the block's size), and no bar
      of one loop covers another loop's on the same thread (each its lane).
  check_report.py escape OUT NAME  a program named NAME (with markup in it),
      built from NAME.c: the page runs without errors, adds no element from
      the names and shows them as text (heading, legend).

Drives /usr/bin/chromium over the DevTools protocol (python3-websocket),
run as root: --headless --no-sandbox with a fresh profile. Prints one line
per check; exits 1 with "FAILED: ..." on a mismatch.
"""
import base64
import collections
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

import websocket

CHROMIUM = "/usr/bin/chromium"


def fail(msg):
    print(f"check_report: FAILED: {msg}")
    sys.exit(1)


def ok(msg):
    print(f"check_report: OK {msg}")


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="gc-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             "--window-size=1400,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            if self.proc.poll() is not None:
                fail(f"chromium exited with {self.proc.returncode}")
            time.sleep(0.1)
        else:
            fail("chromium did not start its DevTools endpoint in 30 s")
        port = open(port_file).read().split()[0]
        for _ in range(100):
            targets = json.load(urllib.request.urlopen(
                f"http://127.0.0.1:{port}/json/list"))
            pages = [t for t in targets if t["type"] == "page"]
            if pages:
                break
            time.sleep(0.1)
        self.ws = websocket.create_connection(
            pages[0]["webSocketDebuggerUrl"], timeout=60)
        self.next = 0
        self.events = []

    def call(self, method, **params):
        self.next += 1
        mid = self.next
        self.ws.send(json.dumps({"id": mid, "method": method,
                                 "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == mid:
                if "error" in m:
                    fail(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.recv()))
        fail(f"no {method} in {timeout} s")

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            fail(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def mouse(self, kind, x, y, **kw):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **kw)

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def open_report(out):
    b = Browser()
    for domain in ("Runtime", "Log", "Network", "Page"):
        b.call(f"{domain}.enable")
    b.call("Emulation.setDeviceMetricsOverride", width=1400, height=1000,
           deviceScaleFactor=1, mobile=False)
    url = "file://" + os.path.abspath(os.path.join(out, "report.html"))
    b.call("Page.navigate", url=url)
    b.wait_event("Page.loadEventFired")
    b.js("new Promise(r => requestAnimationFrame(() => r(1)))")
    return b


def problems_of(b):
    """Script errors, console errors and requests other than the page."""
    bad = []
    for e in b.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            bad.append("exception: " + json.dumps(p["exceptionDetails"])[:300])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error",
                                                                   "assert"):
            bad.append("console error: " + json.dumps(p.get("args"))[:300])
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            bad.append("log error: " + p["entry"]["text"][:300])
        elif m == "Network.requestWillBeSent":
            u = p["request"]["url"]
            if not (u.startswith("file://") and u.endswith("report.html")) \
                    and not u.startswith("data:"):
                bad.append("network request: " + u)
    return bad


def check_clean(b, what):
    bad = problems_of(b)
    if bad:
        fail(f"{what}: " + "; ".join(bad))
    ok(f"{what}: no script error, no console error, no network request")


def read_grains(out):
    with open(os.path.join(out, "grains.csv"), newline="") as f:
        return list(csv.DictReader(f))


def crit_in_graphml(out, ids):
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    root = ET.parse(os.path.join(out, "grains.graphml")).getroot()
    crit = set()
    for n in root.iter(ns + "node"):
        d = {x.get("key"): x.text for x in n.findall(ns + "data")}
        if d.get("on_crit_path") in ("true", "1") and n.get("id") in ids:
            crit.add(n.get("id"))
    return crit


def known(out, shot=None, demo=False):
    rows = read_grains(out)
    chunks = [r for r in rows if r["grain_type"] == "chunk"]
    if demo and len(chunks) != len(rows):
        fail(f"the demo's grains.csv has {len(rows) - len(chunks)} tasks; "
             "examples/imbalance.c makes none")
    b = open_report(out)
    try:
        # Chunks drawn per thread (the whole run is in view).
        drawn = json.loads(b.js("document.getElementById('timeline').dataset.drawn"))
        want = collections.Counter(f"0:{r['cpu_id']}" for r in chunks)
        got = {k: v for k, v in drawn.items() if v}
        if got != dict(want):
            fail(f"chunks drawn per thread {got}, grains.csv has {dict(want)}")
        ok(f"chunks drawn per thread equal grains.csv's: {dict(sorted(want.items()))}")
        # The legend names the loops.
        legend = b.js("[...document.querySelectorAll('#legend .item.loop .name')]"
                      ".map(e => e.textContent)")
        loops = sorted({r["loop"] for r in chunks})
        if sorted(legend) != loops:
            fail(f"legend {legend}, grains.csv's loops {loops}")
        ok(f"the legend names the {len(loops)} loops")
        # The critical path, every group expanded.
        b.js("document.getElementById('expand-all').click()")
        # A grain node names its grain (data-id); a group too large to
        # expand names its grains on the path (data-crit-ids).
        drawn_crit = set(b.js(
            "[...document.querySelectorAll('#graph .node.crit')]"
            ".flatMap(n => [n.dataset.id, ...(n.dataset.critIds || '').split(' ')])"
            ".filter(x => x)"))
        left = b.js("[...document.querySelectorAll('#graph .node.crit')]"
                    ".filter(n => !n.dataset.id && !n.dataset.critIds && "
                    "(n.classList.contains('chunk') || n.classList.contains('task'))).length")
        want_crit = crit_in_graphml(out, {r["task"] for r in rows})
        if not want_crit:
            fail("grains.graphml has no grain on the critical path")
        if drawn_crit != want_crit or left:
            fail(f"critical path drawn {sorted(drawn_crit)} (+{left} groups), "
                 f"grains.graphml's {sorted(want_crit)}")
        ok(f"the graph highlights grains.graphml's critical path: {len(want_crit)} grains")
        edges = b.js("document.querySelectorAll('#graph .edge.crit').length")
        if edges < 1:
            fail("no critical-path edge highlighted")
        b.js("document.getElementById('collapse-all').click()")
        # Hover over a chunk: its row.
        box = b.js("(() => { const D = gcReport.data; let best = -1;"
                   " for (let i = 0; i < D.bars.k.length; i++)"
                   "  if (D.bars.k[i] >= 0 && (best < 0 || D.bars.d[i] > D.bars.d[best])) best = i;"
                   " return Object.assign(gcReport.barBox(best), {i: best}); })()")
        b.js(f"window.scrollTo(0, {box['y']} - 300)")
        box = b.js(f"gcReport.barBox({box['i']})")
        b.mouse("mouseMoved", box["x"], box["y"])
        tip = b.js("(() => { const t = document.getElementById('tip');"
                   " return t.hidden ? null : t.textContent; })()")
        if not tip or "iterations" not in tip or "thread" not in tip \
                or "duration" not in tip or not any(l in tip for l in loops):
            fail(f"hovering a chunk shows {tip!r}")
        ok("hovering a chunk shows its loop, iterations, thread, start and duration: "
           + tip.splitlines()[0])
        # Zoom (wheel) and pan (drag) change the visible range; reset.
        r0 = b.js("document.getElementById('range').textContent")
        v0 = b.js("gcReport.view.t1 - gcReport.view.t0")
        b.mouse("mouseWheel", box["x"], box["y"], deltaX=0, deltaY=-500)
        r1 = b.js("document.getElementById('range').textContent")
        v1 = b.js("gcReport.view.t1 - gcReport.view.t0")
        if not (r1 != r0 and v1 < v0 / 2):
            fail(f"wheel zoom: range {r0!r} -> {r1!r}")
        ok(f"wheel zoom: {r0} -> {r1}")
        # The drag from the middle of the canvas, on the chunk's row: where
        # a drag pans whichever bar is the longest (one near the run's start
        # took the 200 px left past the canvas's edge); then a drag that
        # goes past the canvas's left edge, which pans as far.
        mid = b.js("(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
                   " return {x: r.left + 0.6 * r.width, left: r.left}; })()")
        pans = []
        for to in (mid["x"] - 200, mid["left"] - 10):
            t0 = b.js("gcReport.view.t0")
            b.mouse("mousePressed", mid["x"], box["y"], button="left", clickCount=1)
            b.mouse("mouseMoved", to, box["y"], button="left")
            b.mouse("mouseReleased", to, box["y"], button="left", clickCount=1)
            t1 = b.js("gcReport.view.t0")
            if not t1 > t0:
                fail(f"drag left from x {mid['x']:.0f} to {to:.0f} (the canvas "
                     f"from {mid['left']:.0f}) did not move the view later: {t0} -> {t1}")
            pans.append(t1 - t0)
        ok(f"drag pans, past the canvas's edge too: {pans[0]:.0f} ns, then {pans[1]:.0f} ns")
        b.js("document.getElementById('reset').click()")
        if b.js("document.getElementById('range').textContent") != r0:
            fail("reset did not restore the whole run")
        ok("reset shows the whole run again")
        # The graph pans by a drag too, past its edge as well.
        g = b.js("(() => { const s = document.getElementById('graph');"
                 " s.scrollIntoView({block: 'center'}); const r = s.getBoundingClientRect();"
                 " return {x: r.left + r.width / 2, y: r.top + r.height / 2, left: r.left,"
                 " vb: s.getAttribute('viewBox')}; })()")
        b.mouse("mousePressed", g["x"], g["y"], button="left", clickCount=1)
        b.mouse("mouseMoved", g["left"] - 10, g["y"], button="left")
        b.mouse("mouseReleased", g["left"] - 10, g["y"], button="left", clickCount=1)
        vb = b.js("document.getElementById('graph').getAttribute('viewBox')")
        if not float(vb.split()[0]) > float(g["vb"].split()[0]):
            fail(f"graph: a drag left past its edge moved the view {g['vb']!r} -> {vb!r}")
        ok(f"graph: a drag left past its edge pans: viewBox {g['vb']} -> {vb}")
        b.js("document.getElementById('collapse-all').click()")  # a new view
        if b.js("document.getElementById('graph').getAttribute('viewBox')") != g["vb"]:
            fail("graph: collapse all did not give the first view again")
        # The problems panel: the summary's ranking (summary.txt), in its
        # order; among the loops, the one with the most thread time lost to
        # imbalance (from grains.csv: per instance, the slowest thread's
        # work minus each thread's) comes first.
        work = collections.defaultdict(lambda: collections.defaultdict(float))
        name = {}
        for r in chunks:
            work[r["loop_instance"]][r["cpu_id"]] += float(r["exec_cycles"])
            name[r["loop_instance"]] = r["loop"]
        lost = collections.Counter()
        for inst, per in work.items():
            m = max(per.values())
            lost[name[inst]] += sum(m - v for v in per.values()) if len(per) > 1 else 0
        worst = lost.most_common(1)[0][0]
        titles = b.js("[...document.querySelectorAll('#problems li.problem .title')]"
                      ".map(e => e.textContent)")
        with open(os.path.join(out, "summary.txt")) as f:
            ranked = [l.split(". ", 1)[1].split(": lost ")[0]
                      for l in f.read().split("problems, ranked by time lost", 1)[1].splitlines()
                      if l.startswith("  ") and l.strip()[:1].isdigit()]
        ranked = [x[len("loop "):] if x.startswith("loop ") else x for x in ranked]
        got = [t.split(": ")[0] for t in titles][:len(ranked)]
        if not titles or got != ranked:
            fail(f"problems panel {got}, the summary ranks {ranked}")
        ok(f"the problems panel ranks as the summary: {got}")
        if demo:
            # The demo's loops: the summary's first. The page ranks by the
            # threads' time lost, waits included, which a run of the demo
            # on a loaded machine can owe to a thread that started late
            # more than to its work (grains.csv's work cannot rank it).
            worst = ranked[0]
        loops = [t for t in titles if not t.startswith("task ")]
        if not loops or not loops[0].startswith(worst + ":"):
            fail(f"problems panel loops {loops}, want {worst!r} first")
        ok(f"the problems panel lists first among loops {loops[0]}")
        k = titles.index(loops[0])
        rect = b.js("(() => { const li = document.querySelectorAll('#problems li.problem')[%d];"
                    " li.scrollIntoView({block: 'center'}); const r = li.getBoundingClientRect();"
                    " return {x: r.left + 20, y: r.top + 5}; })()" % k)
        b.mouse("mousePressed", rect["x"], rect["y"], button="left", clickCount=1)
        b.mouse("mouseReleased", rect["x"], rect["y"], button="left", clickCount=1)
        det = b.js("document.getElementById('details').textContent")
        if worst not in det or "selected" not in det:
            fail(f"clicking the loop's problem: details {det!r}")
        ok("clicking it selects its chunks in the timeline: " + det)
        b.js("document.getElementById('reset').click()")
        check_views(b, out, rows)
        check_colours(b, out)
        check_readable(b, out, rows, demo)
        check_clean(b, "the page")
        if shot:
            b.js("gcReport.selectLoop(-1); window.scrollTo(0, 0)")
            h = b.js("document.documentElement.scrollHeight")
            b.call("Emulation.setDeviceMetricsOverride", width=1400,
                   height=min(h, 4000), deviceScaleFactor=1, mobile=False)
            b.js("gcReport.draw(); new Promise(r => requestAnimationFrame(() => r(1)))")
            png = base64.b64decode(b.call("Page.captureScreenshot",
                                          format="png")["data"])
            with open(shot, "wb") as f:
                f.write(png)
            from PIL import Image
            im = Image.open(shot).convert("RGB")
            colours = len(im.getcolors(1 << 24) or [])
            if im.size[0] != 1400 or colours < 50:
                fail(f"screenshot {im.size}, {colours} colours: blank?")
            ok(f"screenshot {shot}: {im.size[0]}x{im.size[1]}, {colours} colours")
    finally:
        b.close()


def summary_lines(out):
    with open(os.path.join(out, "summary.txt")) as f:
        return [l.strip() for l in f if " of them on the critical path" in l
                or "critical path unknown" in l]


def added_line(line, lines):
    """Whether a page of several processes' count line is the summary's
    lines of its type, one per process, added (grains and those on the
    critical path)."""
    pat = re.compile(r"(\d+) grains? ha(?:s|ve) (.*), (\d+) of them on the critical path$")
    m = pat.match(line)
    if not m:
        return False
    n = on = 0
    for l in lines:
        x = pat.match(l)
        if x and x.group(2) == m.group(2):
            n, on = n + int(x.group(1)), on + int(x.group(3))
    return (n, on) == (int(m.group(1)), int(m.group(3)))


def check_views(b, out, rows=None):
    """Each problem view highlights the grains the analysis flags: as many
    as grains.csv's rows whose problems name it (or, without grains.csv,
    as the summary counts, its processes' lines added on a page of several),
    in the timeline (whole run in view) and in the
    graph (collapsed groups by their counts; expanded, one by one)."""
    views = b.js("gcReport.data.views")
    lines = summary_lines(out)
    multi = b.js("gcReport.data.procs.length") > 1
    want = None
    if rows is not None:
        want = collections.Counter(p for r in rows for p in r["problems"].split("|") if p)
        names = sorted(v["name"] for v in views)
        if names != sorted(set(want) | {"outlier"}):
            fail(f"views {names}, grains.csv flags {sorted(want)}")
    options = b.js("[...document.querySelectorAll('#view option')].map(o => o.textContent)")
    if len(options) != len(views) + 1 or options[0] != "none":
        fail(f"the view selector offers {options}")
    if not any(v["n"] for v in views):
        fail(f"no view flags a grain: {views}")
    for v in views:
        n = want[v["name"]] if want is not None else v["n"]
        if v["n"] != n:
            fail(f"view {v['name']}: {v['n']} grains, grains.csv flags {n}")
        if v["n"] and v["line"] not in lines and not (
                multi and added_line(v["line"], lines)):
            fail(f"view {v['name']}: line {v['line']!r} not in the summary's {lines}")
        b.js("document.getElementById('reset').click()")
        b.js(f"(() => {{ const s = document.getElementById('view'); s.value = '{v['f']}';"
             " s.dispatchEvent(new Event('change')); })()")
        info = b.js("document.getElementById('view-info').textContent")
        tl = b.js("gcReport.state.viewGrains")
        gr = b.js("gcReport.state.graphViewGrains")
        b.js("document.getElementById('expand-all').click()")
        grx = b.js("gcReport.state.graphViewGrains")
        b.js("document.getElementById('collapse-all').click()")
        if info != v["line"] or tl != n or gr != n or grx != n:
            fail(f"view {v['name']}: info {info!r}, timeline {tl}, graph {gr} "
                 f"(expanded {grx}) highlighted; the analysis flags {n}")
        if n and not b.js("gcReport.data.aggregated"):
            # The longest flagged bar is drawn red (a pixel of its row
            # across its width; the page draws a view's flagged bars again
            # over the dimmed ones, which once covered a short one:
            # [200, 200, 0] read on a loaded machine;
            # red within the canvas's smoothing: a bar a few pixels wide,
            # as a grain measured short draws it, may have no pixel of pure
            # red: 255, 3, 3 and 252, 29, 28 seen on a loaded machine; within
            # 60 of pure red, where no loop colour comes: they keep 150 away,
            # palette() below).
            px = b.js("(() => { const B = gcReport.data.bars, f = %d; let best = -1;"
                      " for (let i = 0; i < B.k.length; i++) if ((B.pm[i] >> f) & 1 &&"
                      " (best < 0 || B.d[i] > B.d[best])) best = i;"
                      " const c = document.getElementById('timeline'), r = c.getBoundingClientRect(),"
                      " x = gcReport.barBox(best), d = window.devicePixelRatio || 1;"
                      " const w = Math.max(1, Math.round(x.w * d)), a = c.getContext('2d').getImageData("
                      "Math.round((x.x - x.w / 2 - r.left) * d), Math.round((x.y - r.top - 5) * d), w, 1).data;"
                      " for (let j = 0; j < a.length; j += 4) if ((255 - a[j]) ** 2 + a[j + 1] ** 2 + a[j + 2] ** 2 <= 3600) return 1;"
                      " return [...a.slice(0, 4)]; })()" % v["f"])
            if px != 1:
                fail(f"view {v['name']}: no red pixel in a flagged bar: {px}")
        ok(f"view {v['name']}: {n} grains highlighted in the timeline and the "
           f"graph, as the analysis flags: {info}")
    b.js("(() => { const s = document.getElementById('view'); s.value = '-1';"
         " s.dispatchEvent(new Event('change')); })()")
    if b.js("gcReport.state.viewGrains") or b.js("document.getElementById('view-info').textContent"):
        fail("view none still highlights")
    ok(f"the problem views: {len(views)} and none")


def check_colours(b, out):
    """The loops' and task sites' colours are grains.graphml's and
    timeline.svg's: one palette, assigned once."""
    import xml.etree.ElementTree as ET2
    D = b.js("({loops: gcReport.data.loops, sites: gcReport.data.sites,"
             " colours: gcReport.data.colours})")
    page = dict(zip(D["loops"], D["colours"]["loops"]))
    page.update(zip(D["sites"], D["colours"]["sites"]))
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    root = ET2.parse(os.path.join(out, "grains.graphml")).getroot()
    graph = {}
    for n in root.iter(ns + "node"):
        d = {x.get("key"): x.text for x in n.findall(ns + "data")}
        if d.get("grain_type") in ("chunk", "task"):
            graph.setdefault(d["label"], set()).add(d["color"])
    if any(len(c) != 1 for c in graph.values()) or \
            {k: c.pop() for k, c in graph.items()} != page:
        fail(f"colours: the page's {page}, grains.graphml's {graph}")
    sv = ET2.parse(os.path.join(out, "timeline.svg")).getroot()
    sns = "{http://www.w3.org/2000/svg}"
    els = list(sv.iter())
    legend = {}
    for i, e in enumerate(els):
        if e.tag == sns + "text" and e.text in D["loops"] and i and els[i - 1].tag == sns + "rect":
            legend[e.text] = els[i - 1].get("fill")
    if legend != {k: page[k] for k in D["loops"]}:
        fail(f"colours: timeline.svg's legend {legend}, the page's {page}")
    ok(f"the {len(page)} loop and site colours are grains.graphml's and "
       "timeline.svg's")


def palette_colours(n):
    """The first n colours of Palette.h's sequence, computed here from its
    definition: over a 6-level RGB grid without near black, grey, too light
    on white (contrast below 1.6) and near red, farthest point first from
    #0066cc."""
    def lum(c):
        v = [x / 255 for x in c]
        v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]

    def near_red(r, g, b):
        mx, mn = max(r, g, b), min(r, g, b)
        if mx > 0 and mx > mn and (mx - mn) / mx >= 0.25:
            d = mx - mn
            h = (60 * (((g - b) / d + 6) % 6) if mx == r else
                 60 * ((b - r) / d + 2) if mx == g else 60 * ((r - g) / d + 4))
            if min(h, 360 - h) < 40:
                return True
        return any((r - red) ** 2 + g * g + b * b < 150 ** 2 for red in (255, 208))
    cand = [(r, g, b) for r in range(0, 256, 51) for g in range(0, 256, 51)
            for b in range(0, 256, 51)
            if r + g + b >= 150 and max(r, g, b) - min(r, g, b) >= 51
            and not near_red(r, g, b) and 1.05 / (lum((r, g, b)) + 0.05) >= 1.6]
    dist = [float("inf")] * len(cand)
    cur, out = (0, 102, 204), []
    while len(out) < min(n, len(cand)):
        out.append("#%02x%02x%02x" % cur)
        best = 0
        for i, c in enumerate(cand):
            dist[i] = min(dist[i], sum((a - b) ** 2 for a, b in zip(c, cur)))
            if dist[i] > dist[best]:
                best = i
        cur = cand[best]
    return out


def contrast(a, b):
    """WCAG contrast ratio of two '#rrggbb' colours."""
    def lum(h):
        v = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
    la, lb = lum(a), lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def hex_of(css):
    """'rgb(r, g, b)' or '#rrggbb' as '#rrggbb'."""
    if css.startswith("#"):
        return css.lower()
    return "#%02x%02x%02x" % tuple(int(x) for x in css[css.index("(") + 1:-1].split(",")[:3])


def legend_top(b):
    return b.js("document.getElementById('legend').getBoundingClientRect().top + window.scrollY")


def check_readable(b, out, rows, demo=False):
    """What made the page hard to read on real runs (HPGMG, BOTS): the
    timeline's range and ticks, the summary's number formats, the problems
    panel's length, a task site's problem selecting its tasks, a layout that
    does not move, text contrast and colours by work."""
    b.js("document.getElementById('reset').click()")
    # No time before zero; the tick labels inside the canvas.
    full = b.js("({t0: gcReport.view.t0, t1: gcReport.view.t1,"
                " range: document.getElementById('range').textContent})")
    if full["t0"] < 0 or "-" in full["range"]:
        fail(f"the timeline shows time before zero: {full}")
    box = b.js("(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
               " return {x: r.left + 130, y: r.top + 30}; })()")
    b.mouse("mouseWheel", box["x"], box["y"], deltaX=0, deltaY=1500)
    b.mouse("mousePressed", box["x"], box["y"], button="left", clickCount=1)
    b.mouse("mouseMoved", box["x"] + 300, box["y"], button="left")
    b.mouse("mouseReleased", box["x"] + 300, box["y"], button="left", clickCount=1)
    t0 = b.js("gcReport.view.t0")
    if t0 < 0:
        fail(f"zoomed out and dragged right, the timeline starts at {t0} ns")
    for reset in (False, True):
        if reset:
            b.js("document.getElementById('reset').click()")
        ticks = b.js("gcReport.state.ticks")
        width = b.js("gcReport.state.width")
        if not ticks or any(t["x"] < 0 or t["x"] + t["w"] > width for t in ticks):
            fail(f"tick labels outside the canvas (width {width}): {ticks}")
        if any(a["x"] + a["w"] > c["x"] for a, c in zip(ticks, ticks[1:])):
            fail(f"tick labels overlap: {ticks}")
    ok(f"the timeline starts at 0 ({full['range']}), zoomed out too; its "
       f"{len(ticks)} tick labels are inside the canvas, apart, the last "
       f"{ticks[-1]['text']!r}")
    # The summary's formats: lost "%.3f ms (%.1f%%)", the critical path's line.
    with open(os.path.join(out, "summary.txt")) as f:
        summ = f.read()
    ranked = [l.strip().split(". ", 1)[1] for l in
              summ.split("problems, ranked by time lost", 1)[1].splitlines()
              if l.startswith("  ") and l.strip()[:1].isdigit()]
    titles = b.js("[...document.querySelectorAll('#problems li.problem .title')]"
                  ".map(e => e.textContent)")
    for line, title in zip(ranked, titles):
        ms, pct = line.split(": lost ", 1)[1].split(" ms (", 1)
        pct = pct.split("%)")[0]
        if f": {ms} ms" not in title or f"({pct}%" not in title:
            fail(f"the page's {title!r} rounds otherwise than the summary's {line!r}")
    cp = [l for l in summ.splitlines() if l.startswith("critical path: ")][0]
    facts = b.js("[...document.querySelectorAll('#facts tr')].map(r => r.textContent)")
    if "critical path" + cp[len("critical path: "):] not in facts:
        fail(f"the facts {facts} lack the summary's {cp!r}")
    ok(f"the page's figures are the summary's: {ranked[-1].split(', work')[0]}; {cp}")
    # The problems panel: the top 5, the rest behind "show all N".
    shown = b.js("[...document.querySelectorAll('#problems li.problem')].filter(l => l.offsetParent).length")
    if shown != min(5, len(titles)):
        fail(f"the problems panel shows {shown} of {len(titles)}")
    ok(f"the problems panel shows {shown} of {len(titles)}")
    # A task site's problem selects its tasks (zoomed to them) and says so;
    # the legend stays where it is through the selections. The demo has
    # no task: no site on the page, none among the problems.
    y0 = legend_top(b)
    sites = b.js("gcReport.data.sites")
    at = b.js("[...document.querySelectorAll('#problems li.problem')].findIndex(l => l.dataset.site >= 0)")
    if demo:
        if sites or at >= 0:
            fail(f"the demo's page has task sites {sites}, problem {at}")
        ok("no task site on the page, none among the problems (the demo makes no task)")
        check_loop_problem_legend(b, y0)
    elif at < 0:
        fail("no task site among the problems")
    else:
        check_site_problem(b, rows, full, at, y0)
    # Text on colours: the contrast of a label with its background.
    pairs = b.js("[...document.querySelectorAll('#graph .node text')].map(t =>"
                 " [getComputedStyle(t).fill, t.parentNode.querySelector('.shape').getAttribute('fill')])")
    pairs = [(hex_of(f), hex_of(g)) for f, g in pairs] + \
        [(hex_of(f), hex_of(g)) for f, g in b.js("gcReport.state.labels")]
    if not pairs:
        fail("no label on a coloured node or bar")
    worst = min(pairs, key=lambda p: contrast(*p))
    if contrast(*worst) < 4.5:
        fail(f"label {worst[0]} on {worst[1]}: contrast {contrast(*worst):.2f} (< 4.5)")
    ok(f"{len(pairs)} labels on colours: contrast at least {contrast(*worst):.1f}")
    # The colours by descending work: the grain with the most work's loop or
    # site takes the palette's first colour, the next its second.
    work = collections.Counter()
    for r in rows:
        key = r["loop"] if r["grain_type"] == "chunk" else None
        if key is None:
            key = next(x for x in sites if x.startswith(f"task {r['source_location']} "))
        work[key] += float(r["exec_cycles"])
    D = b.js("gcReport.data")
    colour = dict(zip(D["loops"], D["colours"]["loops"]))
    colour.update(zip(D["sites"], D["colours"]["sites"]))
    top = [k for k, _ in work.most_common()]
    pal = palette_colours(len(top))
    got = [colour[k] for k in top[:2]]
    if got != pal[:2]:
        fail(f"colours by work {list(zip(top, [colour[k] for k in top]))}, "
             f"the palette's first two {pal[:2]}")
    ok(f"the most work ({top[0]}, {top[1]}) has the palette's first colours {got}")


def check_site_problem(b, rows, full, at, y0):
    """Clicking the task site's problem at `at` selects its tasks (zoomed
    to them) and says so; the legend stays at y0 through the selections."""
    li = b.js("(() => { const li = document.querySelectorAll('#problems li.problem')[%d];"
              " li.scrollIntoView({block: 'center'}); const r = li.getBoundingClientRect();"
              " return {x: r.left + 20, y: r.top + 5, site: gcReport.data.sites[li.dataset.site]}; })()" % at)
    b.mouse("mousePressed", li["x"], li["y"], button="left", clickCount=1)
    b.mouse("mouseReleased", li["x"], li["y"], button="left", clickCount=1)
    det = b.js("document.getElementById('details').textContent")
    span = b.js("(() => { const B = gcReport.data.bars, j = gcReport.data.sites.indexOf(%s);"
                " let s = Infinity, e = -Infinity; for (let i = 0; i < B.k.length; i++)"
                " if (B.k[i] === -1 - j) { s = Math.min(s, B.s[i]); e = Math.max(e, B.s[i] + B.d[i]); }"
                " return {s, e, t0: gcReport.view.t0, t1: gcReport.view.t1}; })()" % json.dumps(li["site"]))
    want = sum(1 for r in rows if r["grain_type"] == "task"
               and li["site"].startswith(f"task {r['source_location']} "))
    if f"the {want} tasks of {li['site']}" not in det:
        fail(f"clicking {li['site']!r}: details {det!r}, grains.csv has {want} of its tasks")
    if not (span["t0"] <= span["s"] and span["e"] <= span["t1"]) or \
            span["t1"] - span["t0"] > 0.5 * (full["t1"] - full["t0"]):
        fail(f"clicking {li['site']!r}: view {span['t0']}..{span['t1']} for its tasks "
             f"{span['s']}..{span['e']} (the run: {full['t0']}..{full['t1']})")
    y1 = legend_top(b)
    # A click on one of the site's tasks, the longest first: a short one's
    # bar may lie under a grain drawn next to it at this zoom (a task of a
    # few us beside a chunk, as the run's timing places them), whose click
    # selects that grain; the legend stays wherever the click lands.
    bars = b.js("(() => { const B = gcReport.data.bars, j = gcReport.data.sites.indexOf(%s);"
                " const ix = []; for (let i = 0; i < B.k.length; i++) if (B.k[i] === -1 - j) ix.push(i);"
                " ix.sort((p, q) => B.d[q] - B.d[p]);"
                " return ix.slice(0, 8).map(i => gcReport.barBox(i)); })()"
                % json.dumps(li["site"]))
    ys, det2 = [], ""
    for bar in bars:
        b.mouse("mousePressed", bar["x"], bar["y"], button="left", clickCount=1)
        b.mouse("mouseReleased", bar["x"], bar["y"], button="left", clickCount=1)
        det2 = b.js("document.getElementById('details').textContent")
        ys.append(legend_top(b))
        if re.match(r"(task |\d+ tasks of )", det2):
            break
    y2 = ys[-1] if ys and all(y == ys[0] for y in ys) else ys
    b.js("document.getElementById('reset').click(); gcReport.selectLoop(-1)")
    y3 = legend_top(b)
    if not re.match(r"(task |\d+ tasks of )", det2) or not (y0 == y1 == y2 == y3):
        fail(f"the legend moved: {y0}, {y1} (site selected), {y2} (task selected: "
             f"{det2!r}), {y3} (none)")
    ok(f"clicking the problem of {li['site']} selects its {want} tasks, zoomed "
       f"to them; the legend stays at {y0:.0f} px")


def check_loop_problem_legend(b, y0):
    """Clicking the first problem (a loop's) and then its longest chunk:
    the legend stays at y0 through the selections."""
    li = b.js("(() => { const li = document.querySelector('#problems li.problem');"
              " li.scrollIntoView({block: 'center'}); const r = li.getBoundingClientRect();"
              " return {x: r.left + 20, y: r.top + 5}; })()")
    b.mouse("mousePressed", li["x"], li["y"], button="left", clickCount=1)
    b.mouse("mouseReleased", li["x"], li["y"], button="left", clickCount=1)
    y1 = legend_top(b)
    # The longest chunk in the view (the problem's click may have zoomed
    # to its loop's instances: a chunk outside is not there to click).
    bar = b.js("(() => { const B = gcReport.data.bars, c = document.getElementById('timeline')"
               ".getBoundingClientRect(); let best = -1;"
               " for (let i = 0; i < B.k.length; i++) { const x = gcReport.barBox(i);"
               "  if (B.k[i] >= 0 && x.x0 >= c.left && x.x1 <= c.right &&"
               "      (best < 0 || B.d[i] > B.d[best])) best = i; }"
               " window.scrollTo(0, gcReport.barBox(best).y + window.scrollY - 300);"
               " return gcReport.barBox(best); })()")
    b.mouse("mousePressed", bar["x"], bar["y"], button="left", clickCount=1)
    b.mouse("mouseReleased", bar["x"], bar["y"], button="left", clickCount=1)
    det = b.js("document.getElementById('details').textContent")
    y2 = legend_top(b)
    b.js("document.getElementById('reset').click(); gcReport.selectLoop(-1)")
    y3 = legend_top(b)
    if not det.startswith("chunk ") or not (y0 == y1 == y2 == y3):
        fail(f"the legend moved: {y0}, {y1} (loop selected), {y2} (chunk selected: "
             f"{det!r}), {y3} (none)")
    ok(f"clicking the first problem, then a chunk ({det.split(';')[0]}): the "
       f"legend stays at {y0:.0f} px")


def palette(out):
    """40 loops or more: their colours far apart, none near red."""
    b = open_report(out)
    try:
        check_clean(b, "the page")
        cols = b.js("(() => { const c = document.createElement('canvas').getContext('2d');"
                    " return gcReport.data.colours.loops.map(x => { c.fillStyle = x;"
                    " c.fillRect(0, 0, 1, 1); return [...c.getImageData(0, 0, 1, 1).data].slice(0, 3); }); })()")
        if len(cols) < 40:
            fail(f"{len(cols)} loop colours")
        dist = min(sum((a - b2) ** 2 for a, b2 in zip(x, y)) ** 0.5
                   for i, x in enumerate(cols) for y in cols[i + 1:])
        red = min(sum((a - b2) ** 2 for a, b2 in zip(x, r)) ** 0.5
                  for x in cols for r in ((255, 0, 0), (208, 0, 0)))
        if dist < 40 or red < 150:
            fail(f"{len(cols)} loop colours: closest pair {dist:.0f} apart, {red:.0f} from red")
        ok(f"{len(cols)} loop colours are distinct: closest pair {dist:.0f} apart "
           f"(RGB), {red:.0f} from red")
        hexes = ["#%02x%02x%02x" % tuple(c) for c in cols]
        pale = min(hexes, key=lambda c: contrast(c, "#ffffff"))
        if contrast(pale, "#ffffff") < 1.6:
            fail(f"loop colour {pale} on white: contrast {contrast(pale, '#ffffff'):.2f} (< 1.6)")
        ok(f"{len(cols)} loop colours on white: contrast at least "
           f"{contrast(pale, '#ffffff'):.2f} ({pale})")
        n = b.js("gcReport.data.problems.length")
        vis = "[...document.querySelectorAll('#problems li.problem')].filter(l => l.offsetParent).length"
        more = "document.getElementById('more-problems')"
        if n <= 5:
            fail(f"{n} problems: too few to check the panel's top 5")
        first = b.js(vis)
        label = b.js(f"{more} && {more}.textContent")
        b.js(f"{more}.click()")
        every = b.js(vis)
        b.js(f"{more}.click()")
        again = b.js(vis)
        if (first, label, every, again) != (5, f"show all {n}", n, 5):
            fail(f"problems panel: {first} shown, button {label!r}, then {every}, then {again}")
        ok(f"the problems panel shows the top 5 of {n}; 'show all {n}' shows them all")
    finally:
        b.close()


def aggregated(out):
    """A page above its cap: bars per loop instance and thread."""
    with open(os.path.join(out, "loops.csv"), newline="") as f:
        loops = list(csv.DictReader(f))
    b = open_report(out)
    try:
        drawn = json.loads(b.js("document.getElementById('timeline').dataset.drawn"))
        want = collections.Counter()
        # The page's processes in the run's order, as loops.csv lists them.
        procs = list(dict.fromkeys(r["process"] for r in loops))
        for r in loops:
            want[f"{procs.index(r['process'])}:{r['thread']}"] += int(r["chunks"])
        got = {k: v for k, v in drawn.items() if v}
        if got != dict(want):
            fail(f"aggregated: chunks drawn per thread {got}, loops.csv has {dict(want)}")
        ok(f"aggregated: chunks drawn per thread equal loops.csv's: {dict(sorted(want.items()))}")
        text = b.js("document.body.innerText")
        if "left out: report.html: aggregated" not in text:
            fail("aggregated: the page does not say it is aggregated")
        ok("aggregated: the page says what it left out")
        b.js("document.getElementById('expand-all').click()")
        b.js("document.getElementById('collapse-all').click()")
        check_views(b, out)
        check_clean(b, "the page")
    finally:
        b.close()


def outliers(out):
    rows = read_grains(out)
    b = open_report(out)
    try:
        check_clean(b, "the page")
        first = b.js("(() => { const li = document.querySelector('#problems li.problem');"
                     " return {title: li.querySelector('.title').textContent,"
                     " ids: [...li.querySelectorAll('.outliers a.grain')].map(a => a.textContent)}; })()")
        loop = first["title"].split(": ")[0]
        want = sorted(r["task"] for r in rows if r["loop"] == loop
                      and "outlier" in r["problems"].split("|"))
        if not want or sorted(first["ids"]) != want:
            fail(f"first problem {loop!r} links {first['ids']}, grains.csv's "
                 f"outliers of it are {want}")
        ok(f"the first problem ({loop}) links its outlier chunks {want}")
        b.js("document.querySelector('#problems li.problem .outliers a.grain').click()")
        det = b.js("document.getElementById('details').textContent")
        if first["ids"][0] not in det:
            fail(f"clicking outlier {first['ids'][0]}: details {det!r}")
        ok(f"clicking {first['ids'][0]} selects it: {det[:80]}")
        check_clean(b, "after the clicks")
    finally:
        b.close()


def instances(out):
    """One loop, several instances: its problem zooms to the instance with
    the most thread time outside its chunks (from grains.csv: its threads
    times its span less its chunks' time), and the steps move on."""
    rows = [r for r in read_grains(out) if r["grain_type"] == "chunk"]
    per = collections.defaultdict(list)
    for r in rows:
        per[r["loop_instance"]].append(r)
    lost = {}
    for inst, rs in per.items():
        s = min(int(r["exec_start_instant"]) for r in rs)
        e = max(int(r["exec_end_instant"]) for r in rs)
        th = {r["cpu_id"] for r in rs}
        lost[inst] = len(th) * (e - s) - sum(int(r["exec_end_instant"]) - int(r["exec_start_instant"]) for r in rs)
    order = sorted(lost, key=lambda i: -lost[i])
    b = open_report(out)
    try:
        check_clean(b, "the page")
        title = b.js("document.querySelector('#problems li.problem .title').textContent")
        loop = title.split(": ")[0]
        b.js("document.querySelector('#problems li.problem').click()")
        # The instance's bars and the loop's, on the page.
        span = ("((inst) => { const B = gcReport.data.bars; let s = Infinity, e = -Infinity;"
                " for (let i = 0; i < B.k.length; i++) if (B.k[i] >= 0 && (inst < 0 || B.inst[i] === inst))"
                " { s = Math.min(s, B.s[i]); e = Math.max(e, B.s[i] + B.d[i]); } return {s, e}; })")
        v = b.js("({t0: gcReport.view.t0, t1: gcReport.view.t1, info: document.getElementById('step-info').textContent})")
        inst = int(order[0][1:])
        one = b.js(f"{span}({inst})")
        whole = b.js(f"{span}(-1)")
        if not v["info"].startswith(f"instance {order[0]}: 1 of {len(order)} ") or \
                not (v["t0"] <= one["s"] and one["e"] <= v["t1"]) or \
                v["t1"] - v["t0"] > 0.5 * (whole["e"] - whole["s"]):
            fail(f"clicking {loop!r}: view {v}, want instance {order[0]} {one} "
                 f"(grains.csv: {lost}; the loop {whole})")
        ok(f"clicking the problem of {loop} zooms to its instance {order[0]} (1 of {len(order)})")
        b.js("document.getElementById('next').click()")
        n2 = b.js("document.getElementById('step-info').textContent")
        two = b.js(f"{span}({int(order[1][1:])})")
        v2 = b.js("({t0: gcReport.view.t0, t1: gcReport.view.t1})")
        b.js("document.getElementById('prev').click()")
        n1 = b.js("document.getElementById('step-info').textContent")
        if not n2.startswith(f"instance {order[1]}: 2 of ") or \
                not (v2["t0"] <= two["s"] and two["e"] <= v2["t1"]) or n1 != v["info"]:
            fail(f"steps: {n2!r} at {v2} (want {order[1]} {two}), back: {n1!r}")
        ok(f"the steps: 2 of {len(order)}, then 1 of {len(order)} again")
        check_clean(b, "after the clicks")
    finally:
        b.close()


def graph_of(b):
    """The drawn graph: its nodes and elements, the view's scale."""
    return b.js("(() => { const s = document.getElementById('graph'), r = s.getBoundingClientRect(),"
                " vb = s.getAttribute('viewBox').split(' ').map(Number);"
                " return {nodes: gcReport.state.graphNodes, elements: s.getElementsByTagName('*').length,"
                " unitsPerPx: vb[2] / r.width, vb, fit: gcReport.state.graphFit}; })()")


def chains(out, instances):
    """A loop run `instances` times in a row: the coarse graph's chain of
    its instances (a fork, a group per thread and a join each, one after
    the other), the critical path through a group of each; Fit fits it
    readably."""
    b = open_report(out)
    try:
        g = graph_of(b)
        d = drawn_graph(b)
        forks = sorted(n["y"] for n in d["nodes"] if n["kind"] == "fork")
        joins = sorted(n["y"] for n in d["nodes"] if n["kind"] == "join")
        crit = [n for n in d["nodes"] if n["kind"] == "chunk" and n["crit"]]
        if len(forks) != instances or len(joins) != instances or \
                any(j <= f for f, j in zip(forks, joins)) or \
                any(f <= j for j, f in zip(joins, forks[1:])) or \
                len(crit) != instances:
            fail(f"graph of {instances} instances in a row: forks at {forks}, "
                 f"joins at {joins}, {len(crit)} chunk groups on the critical path")
        b.js("document.getElementById('fit').click()")
        f = graph_of(b)
        if f["unitsPerPx"] > 3:
            fail(f"Fit: {f['unitsPerPx']:.1f} graph units per pixel: {f}")
        ok(f"{instances} instances in a row: {instances} forks and joins one "
           f"after the other, the critical path through a chunk group of each; "
           f"Fit at {f['unitsPerPx']:.2f} units per pixel")
        check_clean(b, "the graph")
    finally:
        b.close()


def big_graph(out):
    """More nodes than the graph draws (loops that alternate): the coarse
    graph over blocks of consecutive instances, said on the page; at most
    1000 nodes; Fit readable."""
    b = open_report(out)
    try:
        g = graph_of(b)
        left = b.js("document.getElementById('leftout').textContent")
        m = re.search(r"graph: a node per loop and thread over each ([0-9]+) "
                      r"consecutive instances", left)
        labels = b.js("[...document.querySelectorAll('#graph .node.chunk text')]"
                      ".map(t => t.textContent)")
        if not m or g["nodes"] > 1000 or not labels or \
                any(not t.startswith("×") for t in labels):
            fail(f"graph: {g['nodes']} nodes, {g['elements']} elements, "
                 f"labels {labels[:5]}; left out {left!r}")
        b.js("document.getElementById('fit').click()")
        f = graph_of(b)
        if f["unitsPerPx"] > 3:
            fail(f"Fit: {f['unitsPerPx']:.1f} graph units per pixel: {f}")
        ok(f"loops alternating: {g['nodes']} nodes, blocks of {m.group(1)} "
           f"consecutive instances, said on the page; {g['elements']} SVG "
           f"elements; Fit at {f['unitsPerPx']:.2f} units per pixel")
        check_clean(b, "the graph")
    finally:
        b.close()


def drawn_graph(b):
    """The graph's nodes (key, process, kind, position) and edges (end
    points, red or not), from the SVG as drawn: an edge's ends are the
    nodes at its path's first and last points."""
    return b.js(r"""(() => {
      const nodes = [...document.querySelectorAll('#graph .node')].map(n => {
        const m = /translate\(([-0-9.e]+),([-0-9.e]+)\)/.exec(n.getAttribute('transform'));
        const k = ['start', 'end', 'fork', 'join', 'chunk', 'task', 'chain'].find(c => n.classList.contains(c));
        return {key: n.dataset.key, kind: k, x: Number(m[1]), y: Number(m[2]),
                crit: n.classList.contains('crit')};
      });
      const edges = [...document.querySelectorAll('#graph path.edge')].map(e => {
        const pts = e.getAttribute('d').match(/[-0-9.e]+,[-0-9.e]+/g).map(p => p.split(',').map(Number));
        return {a: pts[0], b: pts[pts.length - 1], crit: e.classList.contains('crit')};
      });
      return {nodes, edges};
    })()""")


def label_sizes(b):
    """The on-screen font size (px) of every graph label shown."""
    return b.js("""(() => {
      const s = document.getElementById('graph'), k = s.getScreenCTM().a;
      return [...s.querySelectorAll('.node text')]
        .filter(t => getComputedStyle(t).display !== 'none' && t.getBBox().width > 0)
        .map(t => parseFloat(getComputedStyle(t).fontSize) * k);
    })()""")


def layout(out, labels=None):
    b = open_report(out)
    try:
        g = drawn_graph(b)
        at = {}
        for n in g["nodes"]:
            at.setdefault((round(n["x"], 3), round(n["y"], 3)), n)
        def node(pt):
            n = at.get((round(pt[0], 3), round(pt[1], 3)))
            if n is None:
                fail(f"an edge ends at {pt}, where no node is")
            return n
        starts = [n for n in g["nodes"] if n["kind"] == "start"]
        if not starts:
            fail("the graph has no start node")
        # Per process: its start node (the edges from it lead to its nodes).
        succ = collections.defaultdict(list)
        for e in g["edges"]:
            succ[node(e["a"])["key"]].append(node(e["b"])["key"])
        by_key = {n["key"]: n for n in g["nodes"]}
        above, up = [], []
        for s in starts:
            seen, todo = {s["key"]}, [s["key"]]
            while todo:
                for t in succ[todo.pop()]:
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            above += [by_key[k] for k in seen
                      if k != s["key"] and by_key[k]["y"] <= s["y"]]
        for e in g["edges"]:
            if e["b"][1] <= e["a"][1]:
                up.append(e)
        if above or up:
            fail(f"{len(above)} nodes at or above their start node "
                 f"({[n['kind'] for n in above][:10]}), {len(up)} of "
                 f"{len(g['edges'])} edges not running down")
        ok(f"the graph runs down from start: {len(g['nodes'])} nodes below "
           f"their start node, {len(g['edges'])} edges running down")
        # The critical path: red edges, one path per start node.
        red = [(node(e["a"])["key"], node(e["b"])["key"]) for e in g["edges"]
               if e["crit"]]
        if not red:
            fail("no critical-path edge drawn")
        outs, ins = collections.Counter(a for a, _ in red), collections.Counter(b for _, b in red)
        fans = [k for k, c in list(outs.items()) + list(ins.items()) if c > 1]
        nxt = dict(red)
        paths = 0
        for s in starts:
            k, n = s["key"], 0
            while k in nxt:
                k, n = nxt[k], n + 1
            if n:
                paths += 1
                if by_key[k]["kind"] != "end":
                    fail(f"the critical path from start stops at a {by_key[k]['kind']} node")
        covered = sum(1 for _ in red)
        if fans or paths != len([s for s in starts if s["key"] in nxt]) or \
                sum(1 for s in starts if s["key"] in nxt) == 0:
            fail(f"critical path: {len(red)} red edges, {len(fans)} nodes with "
                 f"more than one red edge in or out (fans), {paths} paths")
        # Every red edge is on a path from a start node.
        on = set()
        for s in starts:
            k = s["key"]
            while k in nxt:
                on.add((k, nxt[k]))
                k = nxt[k]
        if len(on) != covered:
            fail(f"{covered - len(on)} red edges off the path from start")
        ok(f"the critical path is one path from start to end: {covered} red "
           f"edges, no fans")
        # Labels after Fit, zoomed out and in.
        b.js("document.getElementById('fit').click()")
        sizes = {"fit": label_sizes(b)}
        box = b.js("(() => { const r = document.getElementById('graph').getBoundingClientRect();"
                   " return {x: r.left + r.width / 2, y: r.top + 40}; })()")
        b.js(f"window.scrollTo(0, {box['y']} - 300)")
        box = b.js("(() => { const r = document.getElementById('graph').getBoundingClientRect();"
                   " return {x: r.left + r.width / 2, y: r.top + 40}; })()")
        b.mouse("mouseWheel", box["x"], box["y"], deltaX=0, deltaY=600)
        sizes["out"] = label_sizes(b)
        shown = 0
        for _ in range(12):
            b.mouse("mouseWheel", box["x"], box["y"], deltaX=0, deltaY=-400)
            z = label_sizes(b)
            sizes.setdefault("in", []).extend(z)
            shown = max(shown, len(z))
        small = {k: [round(x, 1) for x in v if x < 9] for k, v in sizes.items()}
        if any(small.values()):
            fail("labels below 9 px on screen: " +
                 ", ".join(f"{k}: {len(v)} (e.g. {v[:3]})" for k, v in small.items()))
        if labels and not shown:
            fail("no label shown, even zoomed in")
        ok(f"labels: {len(sizes['fit'])} shown after Fit, {shown} zoomed in, "
           f"none below 9 px on screen")
        check_clean(b, "the graph")
    finally:
        b.close()


def blocks(out):
    b = open_report(out)
    try:
        block = b.js("gcReport.data.block")
        facts = b.js("document.getElementById('facts').textContent")
        want = ("over the whole run" if block == 0 else
                f"over each {block} consecutive instances")
        if block is None or block == 1 or want not in facts:
            fail(f"the facts for blocks of {block} instances: {facts!r}")
        ok(f"the facts say the bars are blocks: ...{want}...")
        boxes = b.js("""(() => { const D = gcReport.data, out = [];
          for (let i = 0; i < D.bars.k.length; i++) {
            const x = gcReport.barBox(i);
            out.push({r: D.bars.row[i], k: D.bars.k[i], x0: x.x - x.w / 2, x1: x.x + x.w / 2,
                      y0: x.y - (x.h === undefined ? 18 : x.h) / 2, y1: x.y + (x.h === undefined ? 18 : x.h) / 2});
          }
          return out; })()""")
        rows = collections.defaultdict(list)
        for x in boxes:
            rows[x["r"]].append(x)
        over = 0
        for bars in rows.values():
            bars.sort(key=lambda x: x["x0"])
            for i, p in enumerate(bars):
                for q in bars[i + 1:]:
                    if q["x0"] >= p["x1"]:
                        break
                    if q["k"] != p["k"] and q["y0"] < p["y1"] and p["y0"] < q["y1"]:
                        over += 1
        if over:
            fail(f"{over} pairs of bars of different loops overlap on a thread's row")
        ok(f"{len(boxes)} bars, none over another loop's on its row")
        check_clean(b, "the page")
    finally:
        b.close()


def escape(out, name):
    b = open_report(out)
    try:
        check_clean(b, "the page")
        tags = b.js("[...document.body.querySelectorAll('*')].map(e => e.tagName)")
        if "B" in tags:
            fail("the name's <b> became an element")
        prog = b.js("document.getElementById('program').textContent")
        if not prog.endswith(name):
            fail(f"the program's name is {prog!r}, not ...{name!r}")
        ok(f"the program's name is text on the page: {prog!r}")
        base = name.split("/")[-1] + ".c:"
        legend = b.js("[...document.querySelectorAll('#legend .name')]"
                      ".map(e => e.textContent)")
        mine = [x for x in legend if x.startswith(base)]
        if not mine:
            fail(f"the legend {legend} does not show {base!r} as text")
        ok(f"the loop's name is text on the page: {mine[0]!r}")
        n = b.js("gcReport.data.bars.k.length")
        if not n:
            fail("no grains drawn")
        ok(f"{n} grains drawn")
    finally:
        b.close()


def procs(out):
    """A page of several processes: one line of facts, and the table of
    processes with each process's summary figures (critical path, thread
    time shares), in the run's order, sorted by a header's click."""
    want = []  # per process in summary order: rank, span, work, par, shares
    cur = None
    with open(os.path.join(out, "summary.txt")) as f:
        for l in f:
            m = re.match(r"process \d+ \((?:parent \d+, )?rank (-?\d+|NA)", l)
            if m:
                cur = {"rank": m.group(1)}
                want.append(cur)
                continue
            if cur is None:
                continue
            m = re.match(r"\s+critical path: span ([0-9.e+-]+) ms, work ([0-9.e+-]+) ms, parallelism ([0-9.e+-]+)", l)
            if m and "span" not in cur:
                cur["span"], cur["work"], cur["par"] = map(float, m.groups())
            m = re.match(r"\s+waits [0-9.]+ ms \(([0-9.]+)%\)", l)
            if m:
                cur["waits"] = float(m.group(1))
            m = re.match(r"\s+fork and join [0-9.]+ ms \(([0-9.]+)%\); .* ([0-9.]+) ms \(([0-9.]+)%\)", l)
            if m:
                cur["fork"], cur["own"] = float(m.group(1)), float(m.group(3))
    if len(want) < 2 or any("span" not in w or "waits" not in w for w in want):
        fail(f"procs: the summary's processes are not read: {want}")
    b = open_report(out)
    try:
        facts = b.js("[...document.querySelectorAll('#facts tr')].map(r => r.textContent)")
        if any(f.startswith("critical path") or f.startswith("thread time") for f in facts):
            fail(f"procs: the facts still hold a line per process: {facts}")
        line = [f for f in facts if f.startswith("processes")]
        if not line or f"{len(want)} processes" not in line[0]:
            fail(f"procs: the processes line {line}")
        ok(f"procs: one line of facts: {line[0][len('processes'):]}")
        head = b.js("[...document.querySelectorAll('#procs th')].map(h => h.textContent)")
        rows = b.js("[...document.querySelectorAll('#procs tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
        if len(rows) != len(want):
            fail(f"procs: {len(rows)} rows for {len(want)} processes")
        col = {h: i for i, h in enumerate(head)}
        for w, r in zip(want, rows):
            who = r[col["process"]]
            if w["rank"] != "NA" and who != "rank " + w["rank"]:
                fail(f"procs: row {r} for rank {w['rank']}")
            def near(got, exp, tol):
                return abs(float(got) - exp) <= tol
            checks = [("span (ms)", w["span"], max(0.0015, 1e-5 * w["span"])),
                      ("work (ms)", w["work"], max(0.0015, 1e-5 * w["work"])),
                      ("parallelism", w["par"], max(0.011, 1e-5 * w["par"])),
                      ("waits (%)", w["waits"], 0.11), ("fork and join (%)", w["fork"], 0.11),
                      ("own code (%)", w["own"], 0.11)]
            for name, exp, tol in checks:
                if not near(r[col[name]], exp, tol):
                    fail(f"procs: {who}: {name} {r[col[name]]}, the summary {exp}")
        ok(f"procs: {len(rows)} rows, each the summary's span, work, parallelism, waits, fork and join, own code")
        i = col["waits (%)"]
        b.js(f"document.querySelectorAll('#procs th')[{i}].click()")
        up = b.js(f"[...document.querySelectorAll('#procs tbody tr')].map(r => r.cells[{i}].textContent)")
        b.js(f"document.querySelectorAll('#procs th')[{i}].click()")
        down = b.js(f"[...document.querySelectorAll('#procs tbody tr')].map(r => r.cells[{i}].textContent)")
        v = [float(x) for x in up]
        if v != sorted(v) or [float(x) for x in down] != sorted(v, reverse=True):
            fail(f"procs: sorting by waits gave {up} then {down}")
        ok("procs: a header's click sorts by it, again reverses")
        tip = b.js("document.querySelector('#procs tbody tr').title")
        if "critical path" not in tip or "thread time" not in tip:
            fail(f"procs: a row's title lacks the summary's lines: {tip!r}")
        ok("procs: a row's title holds the summary's lines")
        check_clean(b, "the page")
    finally:
        b.close()


if __name__ == "__main__":
    cmds = {"known": known, "demo": lambda out, shot=None: known(out, shot, demo=True),
            "aggregated": aggregated, "outliers": outliers,
            "escape": escape, "palette": palette, "instances": instances,
            "chains": lambda out, n: chains(out, int(n)), "big-graph": big_graph,
            "layout": layout, "blocks": blocks, "procs": procs}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        fail(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
