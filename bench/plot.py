# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/plot.py - writes the benchmark plot as a hand-made SVG (standard
library only). Called by bench/run.py:

    plot.write_svg(path, summary, [(scenario_key, label), ...])

Two panels over the static chunk size (log2 axis): the ratio grainchunk/stock
of the median scheduling overhead, with the goals and the thesis's +46%
marked, and the difference grainchunk − stock as a percentage of the loop's
reference time (a stable denominator where the stock overhead is near zero).
"""
import math
from xml.sax.saxutils import escape

COLORS = ["#1b6ac9", "#d9731a", "#2e9e44", "#8e44ad", "#c0392b", "#7f8c8d"]
W, H = 760, 330  # one panel
MARGIN = dict(left=70, right=20, top=40, bottom=50)


def _panel(x0, y0, title, ylabel, series, ylo, yhi, hlines):
    """SVG elements of one panel; series: (label, color, [(chunk, y)])."""
    pw = W - MARGIN["left"] - MARGIN["right"]
    ph = H - MARGIN["top"] - MARGIN["bottom"]
    left, top = x0 + MARGIN["left"], y0 + MARGIN["top"]
    xmax = 12  # log2(4096)

    def px(c):
        return left + pw * math.log2(c) / xmax

    def py(v):
        v = min(max(v, ylo), yhi)
        return top + ph * (1 - (v - ylo) / (yhi - ylo))

    e = [f'<text x="{x0 + W / 2}" y="{y0 + 22}" text-anchor="middle" '
         f'font-size="15" font-weight="bold">{escape(title)}</text>',
         f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" '
         'stroke="#888"/>']
    for k in range(xmax + 1):
        x = px(2 ** k)
        e.append(f'<line x1="{x}" y1="{top + ph}" x2="{x}" y2="{top + ph + 5}" stroke="#888"/>')
        e.append(f'<text x="{x}" y="{top + ph + 18}" text-anchor="middle" '
                 f'font-size="11">{2 ** k}</text>')
    e.append(f'<text x="{left + pw / 2}" y="{top + ph + 38}" text-anchor="middle" '
             'font-size="12">chunk size c of schedule(static, c)</text>')
    for k in range(6):
        v = ylo + (yhi - ylo) * k / 5
        y = py(v)
        e.append(f'<line x1="{left}" y1="{y}" x2="{left + pw}" y2="{y}" stroke="#eee"/>')
        e.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" '
                 f'font-size="11">{v:g}</text>')
    e.append(f'<text x="{x0 + 16}" y="{top + ph / 2}" text-anchor="middle" '
             f'font-size="12" transform="rotate(-90 {x0 + 16} {top + ph / 2})">'
             f'{escape(ylabel)}</text>')
    for v, label, color in hlines:
        y = py(v)
        e.append(f'<line x1="{left}" y1="{y}" x2="{left + pw}" y2="{y}" '
                 f'stroke="{color}" stroke-dasharray="6 4"/>')
        e.append(f'<text x="{left + pw - 4}" y="{y - 4}" text-anchor="end" '
                 f'font-size="11" fill="{color}">{escape(label)}</text>')
    for i, (label, color, pts) in enumerate(series):
        pts = [(c, v) for c, v in pts if v == v]  # drop NaN
        if pts:
            path = " ".join(f"{px(c):.1f},{py(v):.1f}" for c, v in pts)
            e.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                     'stroke-width="2"/>')
        for c, v in pts:
            clipped = v < ylo or v > yhi
            e.append(f'<circle cx="{px(c):.1f}" cy="{py(v):.1f}" r="3.5" '
                     f'fill="{"white" if clipped else color}" stroke="{color}"/>')
        ly = top + 16 + 16 * i
        e.append(f'<line x1="{left + 10}" y1="{ly - 4}" x2="{left + 30}" '
                 f'y2="{ly - 4}" stroke="{color}" stroke-width="2"/>')
        e.append(f'<text x="{left + 36}" y="{ly}" font-size="12">{escape(label)}</text>')
    return e


def write_svg(path, summary, scenarios):
    ratio, delta = [], []
    for i, (key, label) in enumerate(scenarios):
        rows = [r for r in summary[key]["rows"]
                if r["name"] == "static" and r["chunk"] > 0]
        color = COLORS[i % len(COLORS)]
        ratio.append((label, color, [(r["chunk"], r["ratio"]) for r in rows]))
        delta.append((label, color, [(r["chunk"], r["delta_pct"]) for r in rows]))
    e = _panel(0, 0, "Scheduling overhead, grainchunk / stock (median)",
               "ratio (open circles: off scale)", ratio, 0, 4,
               [(1.0, "1 (equal)", "#555"), (1.05, "", "#2e9e44"),
                (1.46, "thesis: +46% at c < 16", "#c0392b")])
    top = max([v for _, _, pts in delta for _, v in pts if v == v] + [10])
    e += _panel(0, H, "Added time, grainchunk − stock, % of the loop",
                "% of reference time", delta, -5, 5 * math.ceil(top / 5),
                [(0, "", "#555"), (1, "1%", "#2e9e44")])
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{2 * H}" '
           f'viewBox="0 0 {W} {2 * H}" font-family="sans-serif">',
           f'<rect width="{W}" height="{2 * H}" fill="white"/>', *e, "</svg>"]
    with open(path, "w") as fh:
        fh.write("\n".join(svg) + "\n")
