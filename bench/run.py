#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/run.py - grainchunk's overhead benchmarks, stock Clang vs grainchunk.

Builds bench/schedbench.c, chunkcost.c, loopcost.c and taskbench.c twice
(stock Clang, and Clang + the grainchunk plugin + runtime library, linked as
README.md says; chunkcost and loopcost also stock + runtime library) and the
benchmark tools (bench/tools/bench_tool.c, one variant per scenario), then
runs the matrix

    scenario  x  build           (no tool | tool without callbacks |
                                  tool with an empty dispatch callback |
                                  extension events: loop (81) | chunk (82) |
                                  chunk + cycle-counter clock (82 + 83))
                                  x (stock | grainchunk [| stock + runtime
                                  library, extension scenarios, chunkcost
                                  and loopcost])

and, for taskbench, (no tool | no callbacks | standard task_create |
task creation 84 | 84 + clock 83) x (stock | grainchunk)

round by round, stock and grainchunk alternating run by run (A B A B ...).
Each schedbench run yields one overhead per loop schedule (a median over its
own repetitions); the report takes the median over rounds per build, the
interquartile range as the spread, and the ratio grainchunk/stock. It also
times the compilation of a generated translation unit with a few thousand
static loops, with and without the plugin.

    python3 bench/run.py            # full matrix (about 10-15 minutes)
    python3 bench/run.py --quick    # smoke run (a few minutes)
    python3 bench/run.py --rounds 9 --lc-rounds 5   # fewer rounds
    BENCH_QUICK=1 bash scripts/bench.sh

Normally started by scripts/bench.sh, which builds grainchunk first. Writes
the tables between the GENERATED markers of docs/performance.md and the plot
docs/performance.svg (quick mode: build/bench/performance.md and .svg, so a
smoke run never overwrites the measured figures). Standard library only.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (bench/plot.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
V = os.environ.get("GRAINCHUNK_LLVM_VERSION", "22")
LLVM = f"/usr/lib/llvm-{V}"
CC = f"{LLVM}/bin/clang"
BUILD = os.environ.get("GRAINCHUNK_BUILD_DIR", os.path.join(ROOT, "build"))
OUT = os.path.join(BUILD, "bench")
THREADS = os.environ.get("BENCH_THREADS", "2")

MODES = {
    # rounds: interleaved stock/grainchunk pairs per scenario. Timings are
    # kept short (one loop, ~0.5 ms; chunkcost ~0.1-0.7 ms) and many, so that
    # the median skips those a busy shared machine preempts.
    "full": dict(rounds=21, delay_ns=50, iters=4096, inner=1, outer=101,
                 cc_iters=1 << 17, cc_reps=101, loops=3000, compile_pairs=3,
                 lc_rounds=11, lc_iters=1 << 20, lc_reps=15, app_loops=40,
                 small_funcs=300, tb_rounds=21, tb_delay_ns=100,
                 tb_iters=512, tb_outer=51),
    "quick": dict(rounds=3, delay_ns=50, iters=4096, inner=2, outer=5,
                  cc_iters=1 << 18, cc_reps=5, loops=200, compile_pairs=1,
                  lc_rounds=2, lc_iters=1 << 16, lc_reps=3, app_loops=40,
                  small_funcs=300, tb_rounds=2, tb_delay_ns=100,
                  tb_iters=256, tb_outer=5),
}
BUILDS = ["stock", "grainchunk"]
# stock Clang, linked with the runtime library as README.md says (no plugin):
# its static loops' chunks reach extension tools when the init call returns
STOCKRT = "stockrt"
BUILD_LABELS = {"stock": "stock", "grainchunk": "grainchunk",
                STOCKRT: "stock + runtime library"}
EXT_BUILDS = BUILDS + [STOCKRT]
# the grainchunk build with bench/tools/chunkfloor.c in place of the runtime
# library (chunkcost, dispatch scenario): the floor of the per-chunk path
FLOOR = "floor"
BUILD_LABELS[FLOOR] = "grainchunk + floor library"
FLOOR_DIR = os.path.join(OUT, "floor")
# key, label, tool library (None: no tool), builds in schedbench,
# builds in chunkcost and loopcost
SCENARIOS = [
    ("none", "no tool", None, BUILDS, BUILDS),
    ("nocb", "tool, no callbacks", "libnocb_tool.so", BUILDS, BUILDS),
    ("dispatch", "tool, empty dispatch callback", "libdispatch_tool.so",
     BUILDS, BUILDS + [FLOOR]),
    ("ext81", "extension: loop callback (81) only", "libext_loop_tool.so",
     BUILDS, EXT_BUILDS),
    ("ext82", "extension: chunk callback (82), no time function",
     "libext_chunk_tool.so", BUILDS, EXT_BUILDS),
    ("ext82t", "extension: chunk callback (82) + cycle-counter time "
     "function (83)", "libext_chunktime_tool.so", BUILDS, EXT_BUILDS),
]
EXT_SCENARIOS = ("ext81", "ext82", "ext82t")
# taskbench: key, label, tool library
TASK_SCENARIOS = [
    ("none", "no tool", None),
    ("nocb", "tool, no callbacks", "libnocb_tool.so"),
    ("taskstd", "standard task_create callback", "libtask_std_tool.so"),
    ("task84", "extension: task creation (84), no time function",
     "libext_task_tool.so"),
    ("task84t", "extension: task creation (84) + cycle-counter time "
     "function (83)", "libext_tasktime_tool.so"),
]
# bench/tools/bench_tool.c's variants (-DBENCH_TOOL=N)
TOOLS = {"nocb": 0, "dispatch": 1, "ext_loop": 2, "ext_chunk": 3,
         "ext_chunktime": 4, "task_std": 5, "ext_task": 6,
         "ext_tasktime": 7}
CFLAGS = ["-std=c11", "-O2", "-fopenmp", "-Wall", "-Wextra"]
OMP_LINK = [f"-L{LLVM}/lib", f"-Wl,-rpath,{LLVM}/lib"]
PLUGIN = os.path.join(BUILD, "clang-plugin", "libgrainchunk.so")
SHIM_DIR = os.path.join(BUILD, "runtime-shim")
SHIM_LINK = [f"-L{SHIM_DIR}", "-Wl,--push-state,--no-as-needed",
             "-lgrainchunk-rt", "-Wl,--pop-state", f"-Wl,-rpath,{SHIM_DIR}"]
BEGIN, END = "<!-- BEGIN GENERATED by bench/run.py -->", \
    "<!-- END GENERATED by bench/run.py -->"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def build_all():
    os.makedirs(OUT, exist_ok=True)
    for tool, variant in TOOLS.items():
        sh([CC, "-std=c11", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra",
            f"-I{ROOT}/include", f"-DBENCH_TOOL={variant}",
            os.path.join(ROOT, "bench", "tools", "bench_tool.c"),
            "-o", os.path.join(OUT, f"lib{tool}_tool.so")])
    os.makedirs(FLOOR_DIR, exist_ok=True)
    sh([CC, "-std=c11", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra",
        os.path.join(ROOT, "bench", "tools", "chunkfloor.c"), "-ldl",
        "-o", os.path.join(FLOOR_DIR, "libgrainchunk-rt.so.0")])
    for prog in ("schedbench", "chunkcost", "loopcost", "taskbench"):
        src = os.path.join(ROOT, "bench", f"{prog}.c")
        sh([CC, *CFLAGS, *OMP_LINK, src, "-o", exe(prog, "stock")])
        r = sh([CC, *CFLAGS, f"-fplugin={PLUGIN}", "-Rpass=grainchunk",
                *OMP_LINK, src, "-o", exe(prog, "grainchunk"), *SHIM_LINK])
        # taskbench has no static loops: nothing for the plugin to do
        if prog != "taskbench" and "loop instrumented" not in r.stderr:
            sys.exit(f"bench: the plugin instrumented nothing in {prog}.c")
        if prog in ("chunkcost", "loopcost"):
            sh([CC, *CFLAGS, *OMP_LINK, src, "-o", exe(prog, STOCKRT),
                *SHIM_LINK])


def exe(prog, build):
    return os.path.join(OUT, f"{prog}.{'grainchunk' if build == FLOOR else build}")


def run_env(tool, build=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "KMP_", "GRAINCHUNK_VERBOSE"))}
    env.update(OMP_NUM_THREADS=THREADS, OMP_PROC_BIND="close",
               OMP_PLACES="cores")
    if build == FLOOR:  # found before the RUNPATH's runtime library
        env["LD_LIBRARY_PATH"] = FLOOR_DIR
    if tool:
        env["OMP_TOOL_LIBRARIES"] = os.path.join(OUT, tool)
    return env


def tool_seen(stderr, tool, build):
    """What the tool saw: chunks for the dispatch tool, a dict for the
    extension and task tools (events, duration sum, registration answers);
    checks that a tool was really loaded and, where grainchunk's runtime
    library is in the program, that every registration was answered
    ompt_set_always (5)."""
    if tool is None:
        return None
    m = re.search(r"bench_tool: saw (\d+) loop chunks", stderr)
    if tool.startswith("libdispatch") and m:
        return int(m.group(1))
    if tool.startswith("libnocb") and "no callbacks registered" in stderr:
        return None
    m = re.search(r"bench_tool: (\S+) answers (\S+) loops (\d+) chunks "
                  r"(\d+) tasks (\d+) duration_sum (\S+)", stderr)
    if m and tool == f"lib{m.group(1)}_tool.so":
        answers = dict(a.split("=") for a in m.group(2).split(","))
        if build != "stock" and any(a != "5" for a in answers.values()):
            sys.exit(f"bench: {tool} in the {build} build was not answered "
                     f"ompt_set_always:\n{stderr}")
        return dict(events=int(m.group(3)) + int(m.group(4)) +
                    int(m.group(5)), dur=float(m.group(6)),
                    answers=m.group(2))
    sys.exit(f"bench: tool {tool} did not report:\n{stderr}")


def run_schedbench(build, tool, p, delay_len):
    r = sh([exe("schedbench", build), str(delay_len), str(p["iters"]),
            str(p["inner"]), str(p["outer"])], env=run_env(tool))
    tests = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "test":
            tests[f"{f[1]},{f[2]}"] = dict(ovh=float(f[3]), test=float(f[4]),
                                           ref=float(f[5]))
    return tests, tool_seen(r.stderr, tool, build)


def run_chunkcost(build, tool, p):
    r = sh([exe("chunkcost", build), str(p["cc_iters"]), str(p["cc_reps"])],
           env=run_env(tool, build))
    f = r.stdout.split()
    d = {f[i]: float(f[i + 1]) for i in range(1, len(f) - 1, 2)}
    return d, tool_seen(r.stderr, tool, build)


def generate_tu(path, loops, per_region=10):
    """A translation unit with `loops` schedule(static, N) loops."""
    out = ["/* generated by bench/run.py: compile-time benchmark input */"]
    for f in range(loops // per_region):
        out += [f"void region_{f}(double *a, const double *b, int n, int c) {{",
                "#pragma omp parallel", "  {"]
        for k in range(per_region):
            j = f * per_region + k
            chunk = "c" if j % 3 == 0 else str(1 << (j % 12))
            out += [f"#pragma omp for schedule(static, {chunk}) nowait",
                    "    for (int i = 0; i < n; i++)",
                    f"      a[i] = a[i] * {j % 7 + 1}.0 + b[(i + {j}) % n];"]
        out += ["  }", "}"]
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def generate_small(path, funcs):
    """`funcs` small functions, each one `parallel for schedule(static, 2^k)`
    loop updating an array (k = 0..7)."""
    out = []
    for f in range(funcs):
        out.append(f"void f{f}(double *a, int n) {{\n"
                   f"#pragma omp parallel for schedule(static, {1 << (f % 8)})\n"
                   f"  for (int i = 0; i < n; i++) a[i] = a[i] * 3 + {f};\n}}")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def generate_app(path, loops):
    """A mini-app-sized translation unit (synthetic; LULESH 2.0 has about 30
    `parallel for` loops in 3,800 lines): `loops` `parallel for` loops with
    the default schedule (static) and a dozen statements over several arrays
    each, as many serial functions of the same size, and a driver."""
    out = ["/* generated by bench/run.py: a mini-app-sized input */",
           "#include <math.h>",
           "typedef struct { double *x, *y, *z, *xd, *yd, *zd, *e, *p, *q,",
           "  *v; int *nodelist; int n; double dt; } Domain;"]
    for f in range(loops):
        k = f % 5 + 1
        body = [
            f"      double ax = d->x[i] * {k}.5, ay = d->y[i] - {k}.25;",
            "      double az = d->z[i] + ax * ay;",
            "      int m = d->nodelist[i];",
            "      double vol = fabs(ax * ay * az) + 1e-12;",
            "      double ev = d->e[m] / vol;",
            f"      if (ev > {k}.0) ev = sqrt(ev);",
            "      d->xd[i] += d->dt * (d->p[i] - d->q[i]) * ax;",
            "      d->yd[i] += d->dt * (d->p[i] + d->q[i]) * ay;",
            "      d->zd[i] -= d->dt * ev * az;",
            "      d->v[i] = vol < 1e-9 ? 1e-9 : vol;",
            f"      d->e[i] = d->e[i] * 0.{k} + ev;",
        ]
        out += [f"void kernel_{f}(Domain *d) {{", "  int n = d->n;",
                "#pragma omp parallel for firstprivate(n)",
                "  for (int i = 0; i < n; i++) {", *body, "  }", "}",
                f"void serial_{f}(Domain *d) {{", "  int n = d->n;",
                "  for (int i = 0; i < n; i++) {", *body, "  }", "}"]
    out += ["void step(Domain *d) {"]
    out += [f"  kernel_{f}(d);\n  serial_{f}(d);" for f in range(loops)]
    out += ["}"]
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def text_bytes(obj):
    """Size of the object's .text section (code only: not the read-only
    data `size`'s text column adds)."""
    for line in sh(["size", "-A", obj]).stdout.splitlines():
        f = line.split()
        if f and f[0] == ".text":
            return int(f[1])
    sys.exit(f"bench: no .text section in {obj}")


def object_figures(obj):
    """(.text bytes, __kmpc_for_static_init_* call sites) of an object."""
    text = text_bytes(obj)
    sites = sum(1 for line in sh(["objdump", "-dr", obj]).stdout.splitlines()
                if "__kmpc_for_static_init_" in line and "R_X86_64" in line)
    return text, sites


def compile_cost(p, log):
    """Code size and compile time, stock vs grainchunk, at -O2 and -O3."""
    inputs = [("manyloops", f"{p['loops']} schedule(static, N) loops "
               "(generated)", generate_tu, p["loops"]),
              ("small", f"{p['small_funcs']} small functions, one parallel "
               "for schedule(static, 2^k) each (generated)", generate_small,
               p["small_funcs"]),
              ("app", f"mini-app-sized: {p['app_loops']} parallel for loops "
               "+ as much serial code (generated)", generate_app,
               p["app_loops"])]
    rows = []
    for name, label, gen, n in inputs:
        src = os.path.join(OUT, f"{name}.c")
        gen(src, n)
        for opt in ("-O2", "-O3"):
            objs = {b: os.path.join(OUT, f"{name}{opt}.{b}.o") for b in BUILDS}
            cmds = {b: [CC, opt, "-fopenmp", "-c", src, "-o", objs[b]] +
                    ([f"-fplugin={PLUGIN}"] if b == "grainchunk" else [])
                    for b in BUILDS}
            times = {b: [] for b in BUILDS}
            for _ in range(p["compile_pairs"]):
                for b in BUILDS:  # A B, pair by pair
                    t0 = time.perf_counter()
                    sh(cmds[b])
                    times[b].append(time.perf_counter() - t0)
            # -Rpass turns on source locations (longer ident_t strings), so
            # this run writes its object elsewhere.
            inst = sh([CC, opt, "-fopenmp", "-c", src, "-o",
                       objs["grainchunk"] + ".rpass", f"-fplugin={PLUGIN}",
                       "-Rpass=grainchunk"]).stderr.count("loop instrumented")
            fig = {b: object_figures(objs[b]) for b in BUILDS}
            rows.append(dict(input=name, label=label, opt=opt, times=times,
                             text={b: fig[b][0] for b in BUILDS},
                             sites={b: fig[b][1] for b in BUILDS},
                             instrumented=inst))
            log(f"compile {name} {opt}: " + json.dumps(rows[-1]))
    return rows


def run_loopcost(build, tool, p):
    r = sh([exe("loopcost", build), str(p["lc_iters"]), str(p["lc_reps"])],
           env=run_env(tool))
    res = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 6 and f[4] == "ns_per_iter":
            res[f"{f[1]},{f[2]},{f[3]}"] = float(f[5])
    return res, tool_seen(r.stderr, tool, build)


def measure_loopcost(p, log):
    data = {s: {b: [] for b in lb} for s, _, _, _, lb in SCENARIOS}
    for r in range(p["lc_rounds"]):
        t0 = time.time()
        for s, _, tool, _, lb in SCENARIOS:
            for b in lb:  # A B (C), run by run
                res, _ = run_loopcost(b, tool, p)
                data[s][b].append(res)
        log(f"loopcost round {r + 1}/{p['lc_rounds']} "
            f"({time.time() - t0:.0f} s)")
    return data


def measure(p, log):
    delay_len = int(sh([exe("schedbench", "stock"), "--calibrate",
                        str(p["delay_ns"])], env=run_env(None)).stdout)
    log(f"delay length {delay_len} (about {p['delay_ns']} ns per call)")
    data = {s: {b: dict(sched=[], cc=[], seen_sched=[], seen_cc=[])
                for b in cb} for s, _, _, _, cb in SCENARIOS}
    for r in range(p["rounds"]):
        t0 = time.time()
        for s, _, tool, sb, cb in SCENARIOS:
            for b in cb:  # A B (C), run by run
                d = data[s][b]
                if b in sb:
                    tests, seen = run_schedbench(b, tool, p, delay_len)
                    d["sched"].append(tests)
                    d["seen_sched"].append(seen)
                cc, seen = run_chunkcost(b, tool, p)
                d["cc"].append(cc)
                d["seen_cc"].append(seen)
        log(f"round {r + 1}/{p['rounds']} ({time.time() - t0:.0f} s)")
    return delay_len, data


def run_taskbench(build, tool, p, delay_len):
    r = sh([exe("taskbench", build), str(delay_len), str(p["tb_iters"]),
            str(p["tb_outer"])], env=run_env(tool))
    tests = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "test":
            tests[f[1]] = dict(ovh=float(f[2]), test=float(f[3]),
                               ref=float(f[4]), ns_per_task=float(f[5]))
        elif f[0] == "taskbench":
            tasks = int(f[4])
    return tests, tool_seen(r.stderr, tool, build), tasks


def measure_taskbench(p, log):
    delay_len = int(sh([exe("schedbench", "stock"), "--calibrate",
                        str(p["tb_delay_ns"])], env=run_env(None)).stdout)
    log(f"taskbench delay length {delay_len} (about {p['tb_delay_ns']} ns)")
    data = {s: {b: dict(runs=[], seen=[]) for b in BUILDS}
            for s, _, _ in TASK_SCENARIOS}
    tasks = None
    for r in range(p["tb_rounds"]):
        t0 = time.time()
        for s, _, tool in TASK_SCENARIOS:
            for b in BUILDS:  # A B, run by run
                tests, seen, tasks = run_taskbench(b, tool, p, delay_len)
                data[s][b]["runs"].append(tests)
                data[s][b]["seen"].append(seen)
        log(f"taskbench round {r + 1}/{p['tb_rounds']} "
            f"({time.time() - t0:.0f} s)")
    return delay_len, tasks, data


def summarize_taskbench(data):
    """Per scenario and test: quartiles of the overhead (µs per region)
    and of ns per task, per build, and the mean event duration the tool was
    handed."""
    tests = list(data["none"]["stock"]["runs"][0].keys())
    out = {}
    for s, _, _ in TASK_SCENARIOS:
        rows = {}
        for t in tests:
            rows[t] = {b: dict(
                ovh=quartiles([run[t]["ovh"] for run in data[s][b]["runs"]]),
                ns=quartiles([run[t]["ns_per_task"]
                              for run in data[s][b]["runs"]]),
                ref=statistics.median(run[t]["ref"]
                                      for run in data[s][b]["runs"]))
                for b in BUILDS}
        out[s] = dict(rows=rows,
                      seen={b: seen_median(data[s][b]["seen"]) for b in BUILDS},
                      dur={b: seen_duration(data[s][b]["seen"])
                           for b in BUILDS},
                      answers={b: seen_answers(data[s][b]["seen"])
                               for b in BUILDS})
    return out


def quartiles(v):
    v = sorted(v)
    if len(v) < 4:
        return v[0], statistics.median(v), v[-1]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def ratio(a, b):
    return a / b if b > 0 and a >= 0 else float("nan")


def fmt_ratio(x):
    return "n/a" if x != x else f"{x:.2f}"


def summarize(p, data):
    """Per scenario: rows for every test, and the chunk-cost row."""
    test_keys = list(data["none"]["stock"]["sched"][0].keys())
    out = {}
    for s, _, _, sb, cb in SCENARIOS:
        rows = []
        for key in test_keys:
            name, chunk = key.split(",")
            st = {b: quartiles([run[key]["ovh"] for run in data[s][b]["sched"]])
                  for b in sb}
            ref = statistics.median(run[key]["ref"]
                                    for b in sb for run in data[s][b]["sched"])
            delta = st["grainchunk"][1] - st["stock"][1]
            # per chunk only where each thread runs >= 64 chunks; above
            # that the difference is mostly noise divided by a small count
            per_thr = p["iters"] // int(chunk) if name == "static" and \
                0 < int(chunk) <= p["iters"] // 64 else None
            rows.append(dict(test=key, name=name, chunk=int(chunk), stock=st["stock"],
                             gc=st["grainchunk"], per_thr=per_thr,
                             ratio=ratio(st["grainchunk"][1], st["stock"][1]),
                             delta=delta, delta_pct=100 * delta / ref, ref=ref,
                             per_chunk_ns=1000 * delta / per_thr if per_thr else None))
        cc = {b: {k: quartiles([run[k] for run in data[s][b]["cc"]])
                  for k in ("ns_per_chunk", "tsc_per_chunk")} for b in cb}
        seen = {b: (seen_median(data[s][b]["seen_sched"]),
                    seen_median(data[s][b]["seen_cc"])) for b in cb}
        out[s] = dict(rows=rows, cc=cc, seen=seen,
                      cc_dur={b: seen_duration(data[s][b]["seen_cc"])
                              for b in cb},
                      answers={b: seen_answers(data[s][b]["seen_cc"])
                               for b in cb})
    return out


def seen_median(seen):
    """Median number of events a tool saw per run (None: nothing to see)."""
    if not seen or seen[0] is None:
        return None
    return statistics.median(x["events"] if isinstance(x, dict) else x
                             for x in seen)


def seen_duration(seen):
    """Median over runs of the mean duration (tool clock ticks) per event."""
    if not seen or not isinstance(seen[0], dict):
        return None
    return statistics.median(x["dur"] / x["events"] if x["events"] else 0.0
                             for x in seen)


def seen_answers(seen):
    return seen[0]["answers"] if seen and isinstance(seen[0], dict) else None


def summarize_loopcost(data):
    keys = list(data["none"]["stock"][0].keys())
    return {s: {k: {b: quartiles([run[k] for run in data[s][b]])
                    for b in lb} for k in keys}
            for s, _, _, _, lb in SCENARIOS}


def versions():
    cpu = "?"
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    def q(cmd):
        try:
            return sh(cmd).stdout.strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            return "?"
    libomp = os.path.realpath(f"{LLVM}/lib/libomp.so")
    return dict(
        cpu=cpu, cores=os.cpu_count(), kernel=platform.release(),
        clang=q([CC, "--version"]).splitlines()[0],
        libomp=f"{os.path.basename(libomp)} (Debian package libomp-{V}-dev "
               f"{q(['dpkg-query', '-W', '-f=${Version}', f'libomp-{V}-dev'])})",
        commit=q(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]) +
        (" + uncommitted changes" if q(["git", "-C", ROOT, "status",
                                        "--porcelain", "--", "bench", "clang-plugin",
                                        "runtime-shim"]) else ""),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def spread(q):
    return f"{q[1]:.1f} [{q[0]:.1f}, {q[2]:.1f}]"


def report(mode, p, delay_len, summ, lcsumm, ctime, vers, svg_name,
           seconds, task, cmdline):
    L = []
    L.append(f"Run of {vers['date']}, mode `{mode}`, {seconds / 60:.1f} minutes; "
             f"grainchunk {vers['commit']}.\n")
    L.append(f"- Machine: {vers['cpu']}, {vers['cores']} cores (shared), "
             f"Linux {vers['kernel']}")
    L.append(f"- Compiler: {vers['clang']} (`{CC} {' '.join(CFLAGS)}`)")
    L.append(f"- Runtime: {vers['libomp']}")
    L.append(f"- OpenMP: OMP_NUM_THREADS={THREADS} OMP_PROC_BIND=close "
             "OMP_PLACES=cores")
    L.append(f"- schedbench: {p['iters']} iterations per thread of a delay of "
             f"length {delay_len} (about {p['delay_ns']} ns), {p['inner']} loops "
             f"per timing, {p['outer']} timings per run; "
             f"{p['rounds']} rounds of stock/grainchunk runs per scenario")
    L.append(f"- chunkcost: {p['cc_iters']} iterations of an empty "
             f"schedule(static, 1) loop, median of {p['cc_reps']} timings per run")
    tb_delay, tb_tasks, tsumm = task
    L.append(f"- taskbench: {p['tb_iters']} tasks per thread per region "
             f"({tb_tasks} per region), each a delay of length {tb_delay} "
             f"(about {p['tb_delay_ns']} ns), {p['tb_outer']} timings per "
             f"test per run; {p['tb_rounds']} rounds of stock/grainchunk runs "
             "per scenario")
    L.append(f"- loopcost: {p['lc_rounds']} rounds; compile time: "
             f"{p['compile_pairs']} pairs")
    L.append(f"- Command: `{cmdline}`; the benchmarks are built as")
    L.append(f"  - stock: `clang {' '.join(CFLAGS)} {' '.join(OMP_LINK)} X.c`")
    L.append(f"  - grainchunk: `clang {' '.join(CFLAGS)} "
             f"-fplugin=build/clang-plugin/libgrainchunk.so {' '.join(OMP_LINK)} "
             "X.c -Lbuild/runtime-shim -Wl,--push-state,--no-as-needed "
             "-lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,build/runtime-shim`")
    L.append(f"  - stock + runtime library (chunkcost and loopcost, extension "
             f"scenarios only): `clang {' '.join(CFLAGS)} {' '.join(OMP_LINK)} "
             "X.c -Lbuild/runtime-shim -Wl,--push-state,--no-as-needed "
             "-lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,build/runtime-shim`")
    L.append("  - grainchunk + floor library (chunkcost, dispatch scenario "
             "only): the grainchunk build run with "
             "`LD_LIBRARY_PATH=build/bench/floor`, which holds "
             "bench/tools/chunkfloor.c built as `libgrainchunk-rt.so.0` "
             f"(`clang -shared -fPIC -O2 chunkfloor.c -ldl`)")
    L.append("  - tools: `OMP_TOOL_LIBRARIES=build/bench/libTOOL_tool.so`, "
             "one per scenario, all built from bench/tools/bench_tool.c: "
             + ", ".join(f"`lib{t}_tool.so` (`-DBENCH_TOOL={v}`)"
                         for t, v in TOOLS.items()) + "\n")

    L.append("### Per-chunk cost (chunkcost)\n")
    L.append("Median over rounds of each run's median; ns and TSC ticks per "
             "chunk, per thread. Added = grainchunk − stock.\n")
    rows = []
    for s, label, *_ in SCENARIOS:
        if s in EXT_SCENARIOS:
            continue
        c = summ[s]["cc"]
        ns = {b: c[b]["ns_per_chunk"] for b in BUILDS}
        tk = {b: c[b]["tsc_per_chunk"] for b in BUILDS}
        seen = summ[s]["seen"]
        rows.append([label, spread3(ns["stock"]), spread3(ns["grainchunk"]),
                     f"{ns['grainchunk'][1] - ns['stock'][1]:+.2f}",
                     f"{tk['grainchunk'][1] - tk['stock'][1]:+.1f}",
                     seen_str(seen["stock"][1]), seen_str(seen["grainchunk"][1])])
    L.append(md_table(["scenario", "stock ns/chunk [IQR]", "grainchunk ns/chunk [IQR]",
                       "added ns/chunk", "added TSC ticks/chunk",
                       "chunks tool saw, stock", "grainchunk"], rows))
    d = summ["dispatch"]
    fl, gc, st = (d["cc"][b]["ns_per_chunk"][1] for b in (FLOOR, "grainchunk",
                                                          "stock"))
    flt, gct, stt = (d["cc"][b]["tsc_per_chunk"][1]
                     for b in (FLOOR, "grainchunk", "stock"))
    L.append(f"\nThe floor of the dispatch-callback path, measured in the same "
             f"rounds: the grainchunk build with `bench/tools/chunkfloor.c` in "
             f"place of the runtime library (per chunk, the program's call "
             f"into the library and the library's call of the tool's "
             f"callback, nothing else; the tool saw "
             f"{seen_str(d['seen'][FLOOR][1])} chunks, the runtime's own "
             f"first-chunk reports included): "
             f"{spread3(d['cc'][FLOOR]['ns_per_chunk'])} ns/chunk, "
             f"{fl - st:+.2f} ns ({flt - stt:+.1f} TSC ticks) over stock. "
             f"The runtime library adds {gc - fl:+.2f} ns ({gct - flt:+.1f} "
             f"ticks) to that floor.\n")
    executed = (p["cc_reps"] + 1) * p["cc_iters"]
    L.append(f"\nchunkcost executes {executed} chunks per run (warm-up "
             "included).\n")
    L.append(ext_chunk_table(summ))

    L.append("### Scheduling overhead (schedbench)\n")
    L.append("Overhead = loop time − reference time, µs per loop, median over "
             "rounds [interquartile range]. Ratio = grainchunk/stock of the "
             "medians (n/a where the stock median is ≤ 0, i.e. below what this "
             "machine resolves). Δ = grainchunk − stock in µs, as % of the "
             "reference time, and per chunk per thread (for chunk sizes that give each "
             "thread at least 64 chunks).\n")
    for s, label, *_ in SCENARIOS:
        seen = summ[s]["seen"]
        L.append(f"#### {label}\n")
        if seen["stock"][0] is not None:
            L.append(f"Chunks the tool saw per schedbench run: stock "
                     f"{seen['stock'][0]:.0f}, grainchunk {seen['grainchunk'][0]:.0f}.\n")
        rows = []
        for r in summ[s]["rows"]:
            test = f"{r['name']}, {r['chunk']}" if r["chunk"] else r["name"]
            rows.append([test, spread(r["stock"]), spread(r["gc"]),
                         fmt_ratio(r["ratio"]), f"{r['delta']:+.1f}",
                         f"{r['delta_pct']:+.2f}%",
                         "" if r["per_chunk_ns"] is None else f"{r['per_chunk_ns']:+.1f}"])
        L.append(md_table(["schedule", "stock µs", "grainchunk µs", "ratio",
                           "Δ µs", "Δ % of loop", "Δ ns/chunk"], rows) + "\n")
    L.append(thesis_sched_table(summ))

    L.append("### Loops with real bodies (loopcost)\n")
    L.append(f"`bench/loopcost.c`: one loop over {p['lc_iters']} iterations "
             "per timing, the best of "
             f"{p['lc_reps']} timings per run, median over {p['lc_rounds']} "
             "interleaved runs per build; ns per iteration (wall time of the "
             "loop / iterations, both threads working). Kernels: `update` "
             "`a[i] = a[i] * 3 + 1`, `reduce` `s += a[i] * b[i]` "
             "(reduction), `stencil` `b[i] = (a[i-1] + a[i] + a[i+1]) / 3`, "
             "`empty` an empty `asm volatile` body. Forms: `parallel for` "
             "(a team forked per loop) and `for` in one persistent region. "
             "Ratio = grainchunk / stock.\n")
    for s, label, *_ in SCENARIOS:
        if s in EXT_SCENARIOS:
            continue
        L.append(f"#### {label}\n")
        rows = []
        for key in lcsumm[s]:
            kern, form, chunk = key.split(",")
            st, gc = lcsumm[s][key]["stock"], lcsumm[s][key]["grainchunk"]
            rows.append([kern, form, chunk, spread3(st), spread3(gc),
                         fmt_ratio(ratio(gc[1], st[1]))])
        L.append(md_table(["kernel", "form", "chunk", "stock ns/iter [IQR]",
                           "grainchunk ns/iter [IQR]", "ratio"], rows) + "\n")

    L.append(ext_loopcost_tables(lcsumm))
    L.append(task_tables(p, tsumm))
    L.append("### Code size and compile time\n")
    L.append("Each input compiled with `clang OPT -fopenmp -c` stock and with "
             f"the plugin, {p['compile_pairs']} interleaved pairs, median "
             "wall seconds; bytes of the `.text` section (`size -A`) and "
             "call sites of "
             "`__kmpc_for_static_init_*` (relocations in `objdump -dr`) of "
             "the object.\n")
    rows = []
    for c in ctime:
        ms = statistics.median(c["times"]["stock"])
        mg = statistics.median(c["times"]["grainchunk"])
        rows.append([c["label"] + f" ({c['instrumented']} instrumented)",
                     c["opt"], str(c["text"]["stock"]),
                     str(c["text"]["grainchunk"]),
                     f"{c['text']['grainchunk'] / c['text']['stock']:.3f}",
                     f"{c['sites']['stock']} → {c['sites']['grainchunk']}",
                     f"{ms:.2f}", f"{mg:.2f}", f"{mg / ms:.2f}"])
    L.append(md_table(["input", "opt", "stock .text", "grainchunk .text",
                       ".text ratio", "init call sites", "stock s",
                       "grainchunk s", "compile ratio"], rows) + "\n")
    L.append(f"![overhead ratio and per-chunk cost]({svg_name})\n")
    return "\n".join(L)


def ext_chunk_table(summ):
    """chunkcost in the extension scenarios, against the no-tool and
    dispatch-callback baselines."""
    base = {"stock, no tool": summ["none"]["cc"]["stock"],
            "grainchunk, no tool": summ["none"]["cc"]["grainchunk"],
            "grainchunk, dispatch callback":
                summ["dispatch"]["cc"]["grainchunk"]}
    L = ["#### Extension events (chunkcost)\n",
         "The same empty `schedule(static, 1)` loop with the extension "
         "tools. A stock libomp refuses events 81-84 (the tool is told "
         "`ompt_set_error`, 0), so in the stock build these tools attach and "
         "get nothing; the comparison is with the baselines measured in the "
         "same rounds. `stock + runtime library`: stock Clang, linked with "
         "libgrainchunk-rt (no plugin): every chunk of the thread is "
         "reported when the init call returns. Added = this row − the "
         "baseline, ns per chunk per thread. Mean create_duration: the "
         "tool's sum of create_duration / chunks, in its clock's unit "
         "(rdtsc ticks).\n"]
    rows = []
    for s, label, *_ in SCENARIOS:
        if s not in EXT_SCENARIOS:
            continue
        for b in EXT_BUILDS:
            c = summ[s]["cc"][b]
            ns, tk = c["ns_per_chunk"], c["tsc_per_chunk"]
            dur = summ[s]["cc_dur"][b]
            rows.append([label, BUILD_LABELS[b], spread3(ns)] +
                        [f"{ns[1] - q['ns_per_chunk'][1]:+.2f}"
                         for q in base.values()] +
                        [f"{tk[1] - base['stock, no tool']['tsc_per_chunk'][1]:+.1f}",
                         seen_str(summ[s]["seen"][b][1]),
                         summ[s]["answers"][b] or "",
                         "" if dur is None or s != "ext82t" else f"{dur:.1f}"])
    L.append(md_table(["scenario", "build", "ns/chunk [IQR]"] +
                      [f"added vs {k}" for k in base] +
                      ["added TSC ticks vs stock, no tool",
                       "events the tool saw", "answers (event=answer)",
                       "mean create_duration (ticks)"], rows) + "\n")
    return "\n".join(L)


def thesis_sched_table(summ):
    """schedbench at small chunks: the chunk callback against the loop
    callback alone, the thesis's comparison (TR4E with the chunk callback
    against TR4, or TR4E with only the loop callback: +46% for c < 16)."""
    L = ["#### Extension events against the thesis (schedbench, grainchunk "
         "build)\n",
         "The thesis compares the scheduling overhead with the chunk "
         "callback against that with only the loop callback (+46% for chunk "
         "sizes below 16, within 1% above). Here: overhead in µs per loop "
         "(median over rounds) of the grainchunk build in each scenario; "
         "Δ = scenario − loop callback only, in µs, as % of the reference "
         "time, and per chunk per thread; increase = Δ / overhead with the "
         "loop callback only (n/a where that overhead is ≤ 0, i.e. below what "
         "this machine resolves).\n"]
    rows_by = {s: {r["test"]: r for r in summ[s]["rows"]}
               for s in ("none", "dispatch") + EXT_SCENARIOS}
    rows = []
    for key, r81 in rows_by["ext81"].items():
        if r81["name"] != "static" or not 0 < r81["chunk"] <= 64:
            continue
        row = [f"static, {r81['chunk']}",
               f"{rows_by['none'][key]['stock'][1]:.1f}",
               f"{rows_by['none'][key]['gc'][1]:.1f}",
               f"{rows_by['dispatch'][key]['gc'][1]:.1f}",
               f"{r81['gc'][1]:.1f}"]
        for s in ("ext82", "ext82t"):
            r = rows_by[s][key]
            d = r["gc"][1] - r81["gc"][1]
            row += [f"{r['gc'][1]:.1f}", f"{d:+.1f}",
                    f"{100 * d / r81['ref']:+.2f}%",
                    "" if not r["per_thr"] else f"{1000 * d / r['per_thr']:+.1f}",
                    "n/a" if r81["gc"][1] <= 0 else
                    f"{100 * d / r81['gc'][1]:+.0f}%"]
        rows.append(row)
    head = ["schedule", "stock, no tool", "no tool", "dispatch callback",
            "81 only"]
    for s in ("82", "82+83"):
        head += [f"{s}", f"Δ µs ({s} − 81)", "Δ % of loop", "Δ ns/chunk",
                 "increase"]
    L.append(md_table(head, rows) + "\n")
    return "\n".join(L)


def ext_loopcost_tables(lcsumm):
    """loopcost in the extension scenarios: grainchunk and stock + runtime
    library, against stock with no tool."""
    L = ["#### Extension events (loopcost)\n",
         "ns per iteration, median [IQR] over rounds. Stock with no tool is "
         "the baseline; the stock build with the extension tools is not run "
         "here (libomp refuses the events: the schedbench and chunkcost "
         "tables show that tool costs nothing). Added ns/chunk = (scenario − "
         "stock, no tool) × threads × chunk: the cost per chunk per thread (for chunks up to 8; above, the factor turns noise into large numbers).\n"]
    keys = list(lcsumm["none"].keys())
    for b in ("grainchunk", STOCKRT):
        rows = []
        for key in keys:
            kern, form, chunk = key.split(",")
            st = lcsumm["none"][key]["stock"]
            row = [kern, form, chunk, spread3(st)]
            for s in EXT_SCENARIOS:
                row.append(spread3(lcsumm[s][key][b]))
            for s in ("ext82", "ext82t"):  # above 8, noise x 2 x chunk
                row.append(f"{(lcsumm[s][key][b][1] - st[1]) * int(THREADS) * int(chunk):+.1f}"
                           if int(chunk) <= 8 else "")
            rows.append(row)
        L.append(f"{BUILD_LABELS[b]} build:\n")
        L.append(md_table(["kernel", "form", "chunk", "stock, no tool",
                           "81 only", "82", "82+83", "82: added ns/chunk",
                           "82+83: added ns/chunk"], rows) + "\n")
    return "\n".join(L)


def task_tables(p, tsumm):
    """taskbench: per scenario stock vs grainchunk, and the thesis's
    comparison."""
    L = ["### Task creation (taskbench)\n",
         "`bench/taskbench.c`, the EPCC Taskbench method: a reference region "
         "(each thread runs its share of delays, no tasks) against the same "
         "delays as one task each: `master` (one thread creates all tasks), "
         "`parallel` (every thread creates its share), `nested` (every "
         "thread creates tasks that each create 8), `taskloop` (the master "
         "runs `taskloop grainsize(1)`). Overhead = test − reference; ns/task "
         "= overhead / tasks per thread (wall time: the threads create and "
         "run tasks side by side); median over rounds of each run's median "
         "[IQR]. Δ = grainchunk − stock; Δ % = Δ / the stock overhead (the "
         "thesis's relative overhead).\n"]
    for s, label, _ in TASK_SCENARIOS:
        t = tsumm[s]
        L.append(f"#### {label}\n")
        notes = []
        for b in BUILDS:
            if t["seen"][b] is not None:
                notes.append(f"{b}: the tool saw {t['seen'][b]:.0f} tasks per "
                             f"run (answers {t['answers'][b]})" +
                             (f", mean event_duration {t['dur'][b]:.0f} ticks"
                              if s == "task84t" and t["dur"][b] else ""))
        if notes:
            L.append("; ".join(notes) + ".\n")
        rows = []
        for test, r in t["rows"].items():
            st, gc = r["stock"]["ns"], r["grainchunk"]["ns"]
            d = gc[1] - st[1]
            rows.append([test, spread(st), spread(gc), f"{d:+.1f}",
                         "n/a" if st[1] <= 0 else f"{100 * d / st[1]:+.1f}%"])
        L.append(md_table(["test", "stock ns/task [IQR]",
                           "grainchunk ns/task [IQR]", "Δ ns/task", "Δ %"],
                          rows) + "\n")
    L.append("#### Against the thesis (≤ 2.7% on task creation)\n")
    L.append("Δ % per test: grainchunk against stock in the same scenario; "
             "for event 84, also against stock with the standard task_create "
             "callback (the thesis's tool with a task-creation callback: "
             "TR4E delivers the duration in that event, grainchunk in 84). "
             "Added ns/task in parentheses.\n")
    tests = list(tsumm["none"]["rows"].keys())
    rows = []
    for test in tests:
        row = [test]
        for s, _, _ in TASK_SCENARIOS:
            r = tsumm[s]["rows"][test]
            row.append(rel(r["grainchunk"]["ns"][1], r["stock"]["ns"][1]))
        std = tsumm["taskstd"]["rows"][test]["stock"]["ns"][1]
        for s in ("task84", "task84t"):
            row.append(rel(tsumm[s]["rows"][test]["grainchunk"]["ns"][1], std))
        rows.append(row)
    L.append(md_table(["test"] + [lab for _, lab, _ in TASK_SCENARIOS] +
                      ["84 vs stock task_create", "84+83 vs stock task_create"],
                      rows) + "\n")
    return "\n".join(L)


def rel(x, base):
    pct = "n/a" if base <= 0 else f"{100 * (x - base) / base:+.1f}%"
    return f"{pct} ({x - base:+.0f})"


def spread3(q):
    return f"{q[1]:.3f} [{q[0]:.3f}, {q[2]:.3f}]"


def seen_str(x):
    return "" if x is None else f"{x:.0f}"


def print_summary(summ):
    for s, label, *_ in SCENARIOS:
        print(f"\n== {label}")
        print(f"{'schedule':<14}{'stock µs':>10}{'gc µs':>10}{'ratio':>8}{'Δ ns/chunk':>12}")
        for r in summ[s]["rows"]:
            pc = "" if r["per_chunk_ns"] is None else f"{r['per_chunk_ns']:+.1f}"
            print(f"{r['test']:<14}{r['stock'][1]:>10.1f}{r['gc'][1]:>10.1f}"
                  f"{fmt_ratio(r['ratio']):>8}{pc:>12}")
        c = summ[s]["cc"]
        print(f"chunkcost ns/chunk: stock {c['stock']['ns_per_chunk'][1]:.3f}, "
              f"grainchunk {c['grainchunk']['ns_per_chunk'][1]:.3f}"
              + (f", floor {c[FLOOR]['ns_per_chunk'][1]:.3f}" if FLOOR in c
                 else "") + "; seen "
              f"{summ[s]['seen']}")


def write_doc(path, generated):
    text = ""
    if os.path.exists(path):
        with open(path) as fh:
            text = fh.read()
    block = f"{BEGIN}\n{generated}\n{END}"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = "# Performance\n\n" + block + "\n"
    with open(path, "w") as fh:
        fh.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    default=bool(os.environ.get("BENCH_QUICK")))
    for k in ("rounds", "lc_rounds", "tb_rounds", "compile_pairs"):
        ap.add_argument("--" + k.replace("_", "-"), type=int,
                        help=f"override the mode's {k} (fewer rounds when "
                        "time is short; the report says how many)")
    args = ap.parse_args()
    mode = "quick" if args.quick else "full"
    p = dict(MODES[mode])
    for k in ("rounds", "lc_rounds", "tb_rounds", "compile_pairs"):
        if getattr(args, k) is not None:
            p[k] = getattr(args, k)
    cmdline = "bash scripts/bench.sh" + "".join(
        f" {a}" for a in sys.argv[1:])
    docs = os.path.join(ROOT, "docs") if mode == "full" else OUT
    t_start = time.time()

    def log(msg):
        print(f"bench [{time.time() - t_start:5.0f} s] {msg}", flush=True)

    build_all()
    log(f"built into {OUT}; compile-time benchmark ({p['loops']} loops)")
    ctime = compile_cost(p, log)
    lcdata = measure_loopcost(p, log)
    lcsumm = summarize_loopcost(lcdata)
    tb_delay, tb_tasks, tbdata = measure_taskbench(p, log)
    tsumm = summarize_taskbench(tbdata)
    delay_len, data = measure(p, log)
    summ = summarize(p, data)
    with open(os.path.join(OUT, f"raw-{mode}.json"), "w") as fh:
        json.dump(dict(params=p, delay_len=delay_len, data=data, ctime=ctime,
                       loopcost=lcdata, taskbench=tbdata,
                       taskbench_delay_len=tb_delay), fh)
    print_summary(summ)
    os.makedirs(docs, exist_ok=True)
    svg = os.path.join(docs, "performance.svg")
    plot.write_svg(svg, summ, [(s, label) for s, label, *_ in SCENARIOS])
    md = os.path.join(docs, "performance.md")
    write_doc(md, report(mode, p, delay_len, summ, lcsumm, ctime, versions(),
                         "performance.svg", time.time() - t_start,
                         (tb_delay, tb_tasks, tsumm), cmdline))
    log(f"wrote {md} and {svg}")


if __name__ == "__main__":
    main()
