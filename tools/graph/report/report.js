// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// report.html's script (embedded into the page at build time): reads the
// run's data (the JSON element gc-data) and draws the facts, the problems,
// the timeline (canvas) and the grain graph (SVG), and the problem views
// (the grains one problem type flags red, the others dimmed: the flags
// and counts are the analysis', in the data). Names from the program
// go on the page as text (textContent), never as markup. window.gcReport
// gives the page's state to the browser test (test/graph/check_report.py).
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('gc-data').textContent);
  const $ = (id) => document.getElementById(id);
  const SVGNS = 'http://www.w3.org/2000/svg';
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  // Loop and task site colours: the run's palette (Palette.h), the same
  // as grains.graphml's and timeline.svg's; none near red, which marks the
  // critical path and the problem grains. Task sites are hatched in the
  // legend.
  function loopColour(i) { return D.colours.loops[i] || '#999999'; }
  function siteColour(i) { return D.colours.sites[i] || '#999999'; }
  const RED = '#ff0000';
  // WCAG: relative luminance of '#rrggbb', and the contrast of two.
  function luminance(hex) {
    const v = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((c) => c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  // Text on a colour: black or white, whichever contrasts more.
  function textOn(hex) { return luminance(hex) > 0.179 ? '#000000' : '#ffffff'; }
  function fmtNs(ns) {
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' µs';
    return Math.round(ns) + ' ns';
  }
  const multi = D.procs.length > 1;
  // A process by its MPI rank where it has one, else its pid.
  const procName = (i) => D.procs[i].rank >= 0 ? 'rank ' + D.procs[i].rank : 'pid ' + D.procs[i].pid;

  // ---- The run's facts ----
  $('program').textContent = D.program || '(unknown program)';
  document.title = 'grainchunk report: ' + (D.program || '');
  const facts = $('facts');
  function fact(k, v) {
    const tr = el('tr');
    tr.append(el('td', '', k), el('td', '', v));
    facts.append(tr);
  }
  // Numbers as runs: "0–7, 9".
  function runs(v) {
    const out = [];
    for (let i = 0; i < v.length;) {
      let j = i;
      while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
      out.push(j > i ? v[i] + '–' + v[j] : String(v[i]));
      i = j + 1;
    }
    return out.join(', ');
  }
  if (!multi) {
    fact('processes', D.procs.map((p) => 'pid ' + p.pid + (p.rank >= 0 ? ' rank ' + p.rank : '') +
      (p.host ? ' on ' + p.host : '') + (p.complete ? '' : ' (recording incomplete)')).join('; '));
    fact('threads', D.procs.map((p) => String(p.threads)).join(', '));
  } else {
    // Many processes: one line here, a row each in the table of processes.
    const ranks = D.procs.filter((p) => p.rank >= 0).map((p) => p.rank).sort((a, b) => a - b);
    const hosts = [...new Set(D.procs.map((p) => p.host).filter((h) => h))];
    const th = D.procs.map((p) => p.threads);
    const lo = Math.min(...th), hi = Math.max(...th);
    const cut = D.procs.filter((p) => !p.complete).length;
    fact('processes', D.procs.length + ' processes' +
      (ranks.length ? ' (MPI rank' + (ranks.length > 1 ? 's ' : ' ') + runs(ranks) + ')' : '') +
      (hosts.length ? ' on ' + (hosts.length > 3 ? hosts.length + ' hosts' : hosts.join(', ')) : '') +
      '; ' + (lo === hi ? lo + ' thread' + (lo === 1 ? '' : 's') + ' each' : lo + ' to ' + hi + ' threads') +
      (cut ? '; ' + cut + ' recording' + (cut === 1 ? '' : 's') + ' incomplete' : '') +
      ' (the table of processes below)');
  }
  fact('grains', D.grains + ' (' + D.chunks + ' chunks, ' + D.tasks + ' tasks)' +
    (D.aggregated ? '; above ' + D.cap + ' grains the timeline shows ' +
      [D.chunks ? (D.block === 1 ? 'a bar per loop instance and thread'
        : D.block ? 'a bar per loop and thread over each ' + D.block + ' consecutive instances of the loop (a lane per loop)'
          : 'a bar per loop and thread over the whole run (a lane per loop)') : '',
      D.tasks ? 'bars per task creation site and thread' : '']
        .filter((x) => x).join(' and ') : ''));
  // The summary's figures, as it words and rounds them.
  if (!multi) fact('critical path', D.procs[0].cp);
  // Loops across ranks, most lost across first (the engine's figures).
  if (D.across.length) {
    $('across-section').hidden = false;
    const t = $('across'), head = el('tr');
    for (const h of ['loop', 'work per rank (ms)', 'imbalance across ranks', 'worst within a rank',
      'lost across ranks (ms)', 'lost within ranks (ms)']) head.append(el('th', '', h));
    t.append(head);
    for (const x of D.across) {
      const tr = el('tr');
      tr.append(el('td', '', x.loop),
        el('td', '', x.who.map((w, i) => w + '=' + x.work[i].toFixed(3)).join(' ')),
        el('td', '', x.imb === null ? 'NA' : x.imb.toFixed(2)),
        el('td', '', x.worst === null ? 'NA' : x.worst.toFixed(2)),
        el('td', '', x.across.toFixed(3)), el('td', '', x.within.toFixed(3)));
      t.append(tr);
    }
  }
  // Where the thread time went: the summary's lines, as it words them.
  if (!multi && D.procs[0].time.length) fact('thread time', D.procs[0].time.join(' · '));
  // Many processes: a row each (the summary's figures, in numbers: the
  // critical path and where the thread time went, as shares of it), in
  // the run's order; a header sorts by its column, again reverses. A row's
  // title holds the summary's lines for that process.
  if (multi) {
    $('procs-section').hidden = false;
    const t = $('procs');
    const share = (p, v) => p.bd.tt > 0 ? 100 * v / p.bd.tt : null;
    const cols = [
      ['process', (p) => p.rank >= 0 ? p.rank : p.pid, (p) => procName(D.procs.indexOf(p)) + (p.complete ? '' : ' (incomplete)')],
      ['host', (p) => p.host, (p) => p.host],
      ['threads', (p) => p.threads, (p) => String(p.threads)],
      ['grains', (p) => p.chunks + p.tasks, (p) => String(p.chunks + p.tasks)],
      ['span (ms)', (p) => p.span, (p) => p.acyclic ? (p.span / 1e6).toFixed(3) : 'NA'],
      ['work (ms)', (p) => p.work, (p) => (p.work / 1e6).toFixed(3)],
      ['parallelism', (p) => p.parallelism, (p) => p.parallelism === null ? 'NA' : String(p.parallelism)],
      ['serial, others idle (%)', (p) => share(p, p.bd.serial + p.bd.idle + p.bd.noTeam)],
      ['grains\' work (%)', (p) => share(p, p.bd.work)],
      ['waits (%)', (p) => share(p, p.bd.waits)],
      ['fork and join (%)', (p) => share(p, p.bd.fork)],
      ['own code (%)', (p) => share(p, p.bd.own)],
    ];
    const head = el('tr');
    const body = el('tbody');
    let order = D.procs.map((p, i) => i), by = -1;
    function fill() {
      body.replaceChildren();
      for (const i of order) {
        const p = D.procs[i], tr = el('tr');
        tr.title = ['critical path: ' + p.cp].concat(p.time).join('\n');
        cols.forEach(([, key, text], c) => {
          const v = key(p);
          tr.append(el('td', c >= 2 ? 'num' : '', text ? text(p) : v === null ? 'NA' : v.toFixed(1)));
        });
        body.append(tr);
      }
    }
    cols.forEach(([name, key], c) => {
      const h = el('th', '', name);
      h.addEventListener('click', () => {
        const val = (i) => key(D.procs[i]);
        const dir = by === c ? -1 : 1;
        order = order.slice().sort((a, b) => {
          const x = val(a), y = val(b);
          if (x === y) return a - b;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * dir;
        });
        by = by === c ? -1 : c;
        fill();
      });
      head.append(h);
    });
    t.append(el('thead'), body);
    t.firstChild.append(head);
    fill();
  }
  fact('loops, task sites', D.loops.length + ', ' + D.sites.length);
  for (const l of D.leftOut) {
    $('leftout').append(el('li', '', 'left out: ' + l.file + ': ' + l.what + ' (' + l.how + ')'));
  }

  // ---- The bars (grains, or aggregates) ----
  const B = D.bars, nb = B.row.length;
  // Differences from the bar before, as the writer made them.
  const start = new Float64Array(nb);
  for (const key of ['s', 'inst', 'lo', 'n']) {
    let acc = 0;
    const a = B[key];
    for (let i = 0; i < nb; i++) { acc += a[i]; a[i] = acc; }
  }
  for (let i = 0; i < nb; i++) { start[i] = B.s[i]; B.hi[i] += B.lo[i]; }
  if (!D.aggregated) B.count = new Array(nb).fill(1);
  const nrows = D.rows.length;
  const byRow = Array.from({ length: nrows }, () => []);
  for (let i = 0; i < nb; i++) byRow[B.row[i]].push(i);
  for (const r of byRow) r.sort((a, b) => start[a] - start[b]);
  let tMin = Infinity, tMax = -Infinity;
  for (let i = 0; i < nb; i++) { tMin = Math.min(tMin, start[i]); tMax = Math.max(tMax, start[i] + B.d[i]); }
  if (!(tMin < tMax)) { tMin = 0; tMax = 1; }
  // A little room at the end; none before zero (the run's first instant).
  const pad = (tMax - tMin) * 0.01;
  const full = { t0: Math.max(0, tMin - pad), t1: tMax + pad };
  const view = { t0: full.t0, t1: full.t1 };
  function rowName(r) {
    const [p, th] = D.rows[r];
    return (multi ? 'pid ' + D.procs[p].pid + ' ' : '') + 'thread ' + th;
  }
  function grainId(i) {
    const p = D.rows[B.row[i]][0], pre = D.rows[B.row[i]][2];
    if (D.aggregated) return null;
    return B.k[i] >= 0 ? pre + 'c' + D.rows[B.row[i]][1] + '.' + B.n[i] : pre + 't' + B.n[i];
  }
  function barText(i) {
    const lines = [];
    const k = B.k[i];
    if (D.aggregated) {
      if (k >= 0) {
        lines.push(B.count[i] + ' chunks of loop ' + D.loops[k] + (D.block === 1 ? ', instance L' + B.inst[i]
          : ', ' + (D.block ? 'a block of up to ' + D.block + ' consecutive instances' : 'all its instances') + ' from L' + B.inst[i]));
        lines.push('work ' + (B.n[i] >= 0 ? fmtNs(B.n[i]) : 'unknown'));
      } else {
        lines.push(B.count[i] + ' tasks of ' + D.sites[-1 - k]);
        lines.push('running ' + fmtNs(B.n[i]));
      }
    } else if (k >= 0) {
      lines.push('chunk ' + grainId(i) + ' of loop ' + D.loops[k] + ', instance L' + B.inst[i]);
      lines.push('iterations ' + B.lo[i] + '..' + B.hi[i] + ' (' + (B.hi[i] - B.lo[i] + 1) + ')');
    } else {
      lines.push('task ' + grainId(i) + ': ' + D.sites[-1 - k]);
    }
    lines.push(rowName(B.row[i]));
    lines.push('start ' + fmtNs(start[i]) + ', duration ' + ((B.c[i] & 2) ? 'unknown' : fmtNs(B.d[i])));
    if (B.c[i] & 1) lines.push('on the critical path');
    const flags = D.views.filter((v) => (B.pm[i] >> v.f) & 1).map((v) => v.name);
    if (flags.length) lines.push('problems: ' + flags.join(', '));
    return lines.join('\n');
  }

  // ---- Timeline ----
  const canvas = $('timeline'), ctx = canvas.getContext('2d');
  // Bars over blocks of consecutive instances (D.block not 1): a loop's
  // bar spans its block's instances, across other loops' on the same
  // thread, so each loop and task site of a row gets a lane of its own.
  const blocks = D.aggregated && D.block !== 1;
  const lane = new Int32Array(nb), LANE = 4;
  let lanes = 1;
  if (blocks)
    for (const r of byRow) {
      const keys = [...new Set(r.map((i) => B.k[i]))].sort((a, b) => a - b);
      const at = new Map(keys.map((k, j) => [k, j]));
      for (const i of r) lane[i] = at.get(B.k[i]);
      lanes = Math.max(lanes, keys.length);
    }
  const ROW = blocks ? Math.max(22, lanes * LANE + 4) : 22, TOP = 22, GUTTER = 120;
  // A bar's top (from its row's) and height.
  function barY(i) {
    if (blocks) return { y: 2 + lane[i] * LANE, h: LANE - 1 };
    return B.k[i] >= 0 ? { y: 2, h: ROW - 4 } : { y: 5, h: ROW - 10 };
  }
  let selectedBar = -1, selectedLoop = -1, selectedSite = -1;
  // The problem view: a flag (ProblemFlag), or -1 for none.
  let pview = -1;
  // Aggregated bars: per bar and flag, the grains it flags.
  const barFlagged = new Map();
  for (let j = 0; j + 2 < B.pc.length; j += 3) barFlagged.set(B.pc[j] * 8 + B.pc[j + 1], B.pc[j + 2]);
  function flaggedIn(i) {
    if (pview < 0 || !((B.pm[i] >> pview) & 1)) return 0;
    return D.aggregated ? (barFlagged.get(i * 8 + pview) || 0) : 1;
  }
  const state = { drawn: {} };
  function width() { return canvas.clientWidth || 800; }
  function xOf(t) { return GUTTER + (t - view.t0) * (width() - GUTTER) / (view.t1 - view.t0); }
  function tOf(x) { return view.t0 + (x - GUTTER) * (view.t1 - view.t0) / (width() - GUTTER); }
  function draw() {
    // No time before the run's first instant: shift the view right.
    if (view.t0 < 0) { view.t1 -= view.t0; view.t0 = 0; }
    const dpr = window.devicePixelRatio || 1, W = width(), H = TOP + nrows * ROW + 4;
    canvas.style.height = H + 'px';
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = '11px sans-serif';
    // Axis.
    const span = view.t1 - view.t0;
    const step = Math.pow(10, Math.floor(Math.log10(span / 6)));
    const mult = span / step > 30 ? 5 : span / step > 12 ? 2 : 1;
    const st = step * mult;
    ctx.fillStyle = '#555';
    ctx.strokeStyle = '#eee';
    // Tick labels right of their line; one that would pass the canvas'
    // right edge left of it instead (it is not cut), unless it would then
    // cover the label before it (then that line has none).
    const ticks = [];
    for (let t = Math.ceil(view.t0 / st) * st; t <= view.t1; t += st) {
      const x = xOf(t), text = fmtNs(t), tw = ctx.measureText(text).width;
      ctx.beginPath(); ctx.moveTo(x, TOP - 4); ctx.lineTo(x, H); ctx.stroke();
      const lx = x + 2 + tw <= W - 1 ? x + 2 : x - 2 - tw;
      const prev = ticks[ticks.length - 1];
      if (prev && lx < prev.x + prev.w + 4) continue;
      ctx.fillText(text, lx, 12);
      ticks.push({ text, x: lx, w: tw });
    }
    state.ticks = ticks;
    state.width = W;
    const labels = [];
    const drawn = {}, viewIds = new Set();
    let viewCount = 0;
    for (let r = 0; r < nrows; r++) {
      const y = TOP + r * ROW;
      ctx.fillStyle = r % 2 ? '#f6f6f6' : '#fff';
      ctx.fillRect(GUTTER, y, W - GUTTER, ROW);
      ctx.fillStyle = '#222';
      ctx.fillText(rowName(r), 4, y + 15);
      let count = 0;
      ctx.save();
      ctx.beginPath(); ctx.rect(GUTTER, y, W - GUTTER, ROW); ctx.clip();
      // A view's flagged bars drawn again over the row: a short one is
      // not hidden under the dimmed bars drawn after it.
      const onTop = [];
      for (const i of byRow[r]) {
        const s = start[i], e = s + B.d[i];
        if (e < view.t0 || s > view.t1) continue;
        const x0 = xOf(s), x1 = Math.max(xOf(e), x0 + 1);
        const k = B.k[i];
        const chunk = k >= 0;
        if (chunk) count += D.aggregated ? B.count[i] : 1;
        const fl = flaggedIn(i);
        if (fl) {
          if (D.aggregated) viewCount += fl;
          else viewIds.add(grainId(i));
        }
        const dim = (selectedLoop >= 0 && k !== selectedLoop) || (selectedSite >= 0 && k !== -1 - selectedSite) ||
          (pview >= 0 && !fl);
        ctx.globalAlpha = dim ? 0.2 : 1;
        const colour = fl ? RED : chunk ? loopColour(k) : siteColour(-1 - k);
        ctx.fillStyle = colour;
        const by = barY(i), h = by.h, yy = y + by.y;
        ctx.fillRect(x0, yy, x1 - x0, h);
        if (fl && pview >= 0) onTop.push([x0, yy, x1 - x0, h, i]);
        if (D.aggregated && !blocks) { ctx.strokeStyle = '#0006'; ctx.strokeRect(x0 + 0.5, yy + 0.5, x1 - x0 - 1, h - 1); }
        if (B.c[i] & 1) { ctx.fillStyle = '#d00000'; ctx.fillRect(x0, y + ROW - 3, x1 - x0, 2); }
        if (x1 - x0 > 70 && chunk && !blocks) {
          ctx.fillStyle = textOn(colour);
          ctx.fillText(D.loops[k].slice(0, Math.floor((x1 - x0 - 6) / 6)), x0 + 3, y + 15);
          if (!dim && labels.length < 200) labels.push([ctx.fillStyle, colour]);
        }
        if (i === selectedBar) {
          ctx.globalAlpha = 1; ctx.strokeStyle = '#0050ff'; ctx.lineWidth = 2;
          ctx.strokeRect(x0, yy, x1 - x0, h); ctx.lineWidth = 1;
        }
      }
      ctx.globalAlpha = 1;
      ctx.fillStyle = RED;
      for (const [x0, yy, w, h, i] of onTop) {
        ctx.fillRect(x0, yy, w, h);
        if (i === selectedBar) {
          ctx.strokeStyle = '#0050ff'; ctx.lineWidth = 2;
          ctx.strokeRect(x0, yy, w, h); ctx.lineWidth = 1;
        }
      }
      ctx.restore();
      ctx.globalAlpha = 1;
      drawn[D.rows[r][0] + ':' + D.rows[r][1]] = count;
    }
    state.drawn = drawn;
    state.labels = labels;
    canvas.dataset.drawn = JSON.stringify(drawn);
    // The grains the view highlights in the visible range.
    state.viewGrains = D.aggregated ? viewCount : viewIds.size;
    canvas.dataset.viewGrains = state.viewGrains;
    $('range').textContent = fmtNs(view.t0) + ' – ' + fmtNs(view.t1) + ' (' + fmtNs(view.t1 - view.t0) + ' shown)';
  }
  function barAt(x, y) {
    const r = Math.floor((y - TOP) / ROW);
    if (r < 0 || r >= nrows || x < GUTTER) return -1;
    const t = tOf(x), slack = 3 * (view.t1 - view.t0) / (width() - GUTTER);
    const ln = Math.floor((y - TOP - r * ROW - 2) / LANE);
    let best = -1, bestD = Infinity;
    for (const i of byRow[r]) {
      if (blocks && lane[i] !== ln) continue;
      const s = start[i];
      if (s - slack > t) break;
      if (s + B.d[i] + slack >= t && B.d[i] < bestD) { best = i; bestD = B.d[i]; }
    }
    return best;
  }
  let drag = null;
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const t = tOf(Math.max(ev.clientX - rect.left, GUTTER));
    const f = Math.exp(ev.deltaY * 0.002);
    const n0 = t - (t - view.t0) * f, n1 = t + (view.t1 - t) * f;
    if (n1 - n0 < 10) return;
    view.t0 = n0; view.t1 = n1;
    draw();
  }, { passive: false });
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, t0: view.t0, t1: view.t1, moved: false }; });
  window.addEventListener('mouseup', (ev) => {
    if (drag && !drag.moved) {
      const rect = canvas.getBoundingClientRect();
      if (ev.target === canvas) selectBar(barAt(ev.clientX - rect.left, ev.clientY - rect.top));
    }
    drag = null;
  });
  // A drag pans wherever the pointer goes once it started on the canvas
  // (past the canvas's edge too: the window's moves).
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    if (Math.abs(dx) > 2) drag.moved = true;
    const dt = dx * (drag.t1 - drag.t0) / (width() - GUTTER);
    view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt;
    draw();
  });
  canvas.addEventListener('mousemove', (ev) => {
    if (drag) return;
    const rect = canvas.getBoundingClientRect();
    const i = barAt(ev.clientX - rect.left, ev.clientY - rect.top);
    const tip = $('tip');
    if (i < 0) { tip.hidden = true; return; }
    tip.textContent = barText(i);
    tip.hidden = false;
    tip.style.left = Math.min(ev.clientX - rect.left + 12, width() - 320) + 'px';
    tip.style.top = (ev.clientY - rect.top + 14) + 'px';
  });
  canvas.addEventListener('mouseleave', () => { $('tip').hidden = true; });
  $('reset').addEventListener('click', () => { view.t0 = full.t0; view.t1 = full.t1; draw(); });
  // The details line: one line (it wraps at most once; its box keeps its
  // height, the legend below does not move), never empty.
  const HINT = 'Hover over a grain for its figures; click to select it.';
  function details(text) { $('details').textContent = text || HINT; }
  function selectBar(i) {
    selectedBar = i;
    details(i >= 0 ? barText(i).split('\n').join('; ') : '');
    draw();
  }
  function zoomTo(s, e) {
    if (!(s <= e)) return;
    const p = Math.max((e - s) * 0.05, 50);
    view.t0 = s - p; view.t1 = e + p;
  }
  // A loop's instances, most thread time lost first (as the engine
  // measured it: team x span - work), the first 200: [instance, start,
  // end, lost] in ns.
  function instancesOf(k) {
    const x = D.instances[k];
    return x ? x.top.map((v) => ({ inst: v[0], s: v[1], e: v[2], lost: v[3] })) : [];
  }
  const instanceCount = (k) => (D.instances[k] ? D.instances[k].n : 0);
  // Stepping through the selected loop's instances (stepAt -1: all).
  let steps = [], stepAt = -1;
  function showStep() {
    const box = $('step');
    box.style.visibility = selectedLoop >= 0 && steps.length ? 'visible' : 'hidden';
    if (stepAt < 0 || !steps.length) { $('step-info').textContent = 'all ' + instanceCount(selectedLoop) + ' instances'; return; }
    const x = steps[stepAt];
    $('step-info').textContent = 'instance L' + x.inst + ': ' + (stepAt + 1) + ' of ' + instanceCount(selectedLoop) +
      ' by thread time outside its chunks (' + fmtNs(x.lost) + ')';
  }
  function step(j) {
    if (!steps.length) return;
    stepAt = Math.min(Math.max(j, 0), steps.length - 1);
    const x = steps[stepAt];
    zoomTo(x.s, x.e);
    showStep();
    draw();
  }
  function markProblem(li) {
    for (const x of document.querySelectorAll('#problems li')) x.classList.toggle('selected', x === li);
  }
  // A loop: its chunks, the others dimmed; worst: zoom to its instance
  // that lost the most thread time (the steps go on from there), else to
  // the whole loop.
  function selectLoop(k, worst) {
    selectedLoop = k;
    selectedSite = -1;
    steps = k >= 0 ? instancesOf(k) : [];
    stepAt = -1;
    let s = Infinity, e = -Infinity, n = 0;
    for (let i = 0; i < nb; i++) if (B.k[i] === k) { s = Math.min(s, start[i]); e = Math.max(e, start[i] + B.d[i]); n += B.count[i]; }
    if (k >= 0 && s < e) zoomTo(s, e);
    details(k >= 0 ? 'selected: the ' + n + ' chunks of loop ' + D.loops[k] + ' (the others dimmed)' : '');
    markProblem(k >= 0 ? document.querySelector('#problems li[data-loop="' + k + '"]') : null);
    if (worst && steps.length) step(0); else { showStep(); draw(); }
  }
  // A task creation site: its tasks, the others dimmed, zoomed to their
  // span.
  function selectSite(j) {
    selectedSite = j;
    selectedLoop = -1;
    steps = []; stepAt = -1;
    let s = Infinity, e = -Infinity, n = 0;
    const ids = new Set();
    for (let i = 0; i < nb; i++) if (B.k[i] === -1 - j) {
      s = Math.min(s, start[i]); e = Math.max(e, start[i] + B.d[i]); n += B.count[i];
      ids.add(B.n[i]);
    }
    if (!D.aggregated) n = ids.size;
    if (j >= 0 && s <= e) zoomTo(s, e);
    details(j >= 0 ? 'selected: the ' + n + ' tasks of ' + D.sites[j] + ' (the others dimmed)' : '');
    markProblem(j >= 0 ? document.querySelector('#problems li[data-site="' + j + '"]') : null);
    showStep();
    draw();
  }
  $('prev').addEventListener('click', () => step(stepAt - 1));
  $('next').addEventListener('click', () => step(stepAt + 1));
  function selectGrain(id) {
    for (let i = 0; i < nb; i++) if (grainId(i) === id) {
      const d = Math.max(B.d[i], 1) * 20;
      view.t0 = start[i] - d; view.t1 = start[i] + B.d[i] + d;
      selectBar(i);
      return true;
    }
    return false;
  }

  // ---- Legend ----
  const legend = $('legend');
  D.loops.forEach((name, k) => {
    const it = el('div', 'item loop');
    const sw = el('span', 'swatch'); sw.style.background = loopColour(k);
    it.append(sw, el('span', 'name', name));
    it.addEventListener('click', () => selectLoop(selectedLoop === k ? -1 : k));
    legend.append(it);
  });
  D.sites.forEach((name, k) => {
    const it = el('div', 'item task');
    const sw = el('span', 'swatch'); sw.style.backgroundColor = siteColour(k);
    it.append(sw, el('span', 'name', name));
    it.addEventListener('click', () => selectSite(selectedSite === k ? -1 : k));
    legend.append(it);
  });

  // ---- Problems ----
  const plist = $('problems');
  if (!D.problems.length) plist.append(el('li', 'none', 'No loop or task creation site lost thread time.'));
  // The top SHOWN (as the summary), the rest behind "show all".
  const SHOWN = 5;
  D.problems.forEach((p, at) => {
    const li = el('li', 'problem');
    const k = p.loop ? D.loops.indexOf(p.loop) : -1, j = p.site ? D.sites.indexOf(p.site) : -1;
    li.dataset.loop = k;
    li.dataset.site = j;
    li.hidden = at >= SHOWN;
    li.append(el('div', 'title', p.title), el('div', 'detail', p.detail), el('div', 'suggest', 'try: ' + p.suggest));
    if (p.outliers.length && !D.aggregated) {
      const o = el('div', 'outliers', 'outlier chunks: ');
      p.outliers.forEach((id) => {
        const a = el('a', 'grain', id);
        a.href = '#';
        a.addEventListener('click', (ev) => {
          ev.preventDefault(); ev.stopPropagation();
          selectGrain(id);
          $('timeline-section').scrollIntoView({ block: 'start' });
        });
        o.append(a, ' ');
      });
      li.append(o);
    }
    li.addEventListener('click', () => {
      if (k >= 0) selectLoop(k, true); else if (j >= 0) selectSite(j);
      $('timeline-section').scrollIntoView({ block: 'start' });
    });
    plist.append(li);
  });
  if (D.problems.length > SHOWN) {
    const more = el('button', '', 'show all ' + D.problems.length);
    more.type = 'button';
    more.id = 'more-problems';
    more.addEventListener('click', () => {
      const all = more.textContent.startsWith('show all');
      [...plist.querySelectorAll('li.problem')].forEach((li, at) => { li.hidden = !all && at >= SHOWN; });
      more.textContent = all ? 'show the top ' + SHOWN : 'show all ' + D.problems.length;
    });
    plist.after(more);
  }

  // ---- Grain graph ----
  // The engine's coarse graph per process (CoarseGraph.h): start, end,
  // forks, joins and groups of grains, one DAG from start to end; a group
  // of at most 64 known grains expands into them (its edges go to each).
  // The critical path is the edges marked c: one path from start to end.
  const G = D.graph, gsvg = $('graph');
  const expanded = new Set();
  let gview = null;
  const membersOf = new Map();
  G.members.forEach((m, j) => { if (!membersOf.has(m.g)) membersOf.set(m.g, []); membersOf.get(m.g).push(j); });
  function graphModel() {
    const nodes = new Map(), edges = new Map();
    G.groups.forEach((g, i) => {
      if (expanded.has(i) && membersOf.has(i)) {
        for (const j of membersOf.get(i)) nodes.set('m' + j, { key: 'm' + j, g: i, m: j, p: g.p, d: G.members[j] });
      } else {
        nodes.set('g' + i, { key: 'g' + i, g: i, m: -1, p: g.p, d: g });
      }
    });
    // A group's end of an edge: the group, or its members (the path's edge
    // to the member on the path).
    const ends = (i) => expanded.has(i) && membersOf.has(i) ? membersOf.get(i).map((j) => ({ k: 'm' + j, c: G.members[j].c })) : [{ k: 'g' + i, c: 1 }];
    for (const [a, b, c] of G.gedges)
      for (const x of ends(a)) for (const y of ends(b)) {
        const key = x.k + '>' + y.k;
        if (!edges.has(key)) edges.set(key, { a: x.k, b: y.k, c: c && x.c && y.c ? 1 : 0 });
      }
    return { nodes, edges: [...edges.values()] };
  }
  // Layers by depth: a node one below the deepest of its predecessors, so
  // start is at the top and every edge runs down; processes side by side
  // in rank order.
  function layout(model) {
    const succ = new Map(), indeg = new Map(), preds = new Map();
    for (const k of model.nodes.keys()) { succ.set(k, []); preds.set(k, []); indeg.set(k, 0); }
    for (const e of model.edges) {
      if (!succ.has(e.a) || !succ.has(e.b)) continue;
      succ.get(e.a).push(e.b); preds.get(e.b).push(e.a); indeg.set(e.b, indeg.get(e.b) + 1);
    }
    const layer = new Map(), queue = [];
    for (const [k, d] of indeg) if (d === 0) queue.push(k);
    for (let q = 0; q < queue.length; q++) {
      const k = queue[q];
      let l = 0;
      for (const p of preds.get(k)) l = Math.max(l, layer.get(p) + 1);
      layer.set(k, l);
      for (const s of succ.get(k)) { indeg.set(s, indeg.get(s) - 1); if (indeg.get(s) === 0) queue.push(s); }
    }
    // (The engine's graph has no cycle; should one come, its nodes go
    // below the rest.)
    let deepest = 0;
    for (const l of layer.values()) deepest = Math.max(deepest, l);
    for (const k of model.nodes.keys()) if (!layer.has(k)) layer.set(k, ++deepest);
    // An edge over several layers passes a waypoint in each layer between,
    // ordered with the nodes: it runs beside them, not through them (at
    // most MAXWAY waypoints; beyond, edges go straight).
    const lpreds = new Map(), via = new Map(), wproc = new Map(), MAXWAY = 20000;
    for (const k of model.nodes.keys()) lpreds.set(k, []);
    let ways = 0;
    model.edges.forEach((e, j) => {
      if (!lpreds.has(e.a) || !lpreds.has(e.b)) return;
      let prev = e.a;
      const ws = [], la = layer.get(e.a), lb = layer.get(e.b);
      if (lb - la > 1 && ways + lb - la - 1 <= MAXWAY)
        for (let l = la + 1; l < lb; l++, ways++) {
          const w = 'w' + j + ':' + l;
          lpreds.set(w, [prev]); layer.set(w, l); wproc.set(w, model.nodes.get(e.a).p); ws.push(w);
          prev = w;
        }
      lpreds.get(e.b).push(prev);
      via.set(j, ws);
    });
    const hw = (k) => model.nodes.has(k) ? halfWidth(model.nodes.get(k)) : 3;
    const procOrder = D.procs.map((p, i) => i).sort((x, y) => (D.procs[x].rank - D.procs[y].rank) || (x - y));
    const pos = new Map(), H = 60, GAP = 14, heads = [], top = multi ? 24 : 0;
    let left = 20, height = 0;
    for (const p of procOrder) {
      const layers = [];
      for (const [k, n] of model.nodes) if (n.p === p) (layers[layer.get(k)] = layers[layer.get(k)] || []).push(k);
      for (const [w, wp] of wproc) if (wp === p) layers[layer.get(w)].push(w);
      if (!layers.length) continue;
      const idx = new Map();
      layers.forEach((ks, l) => {
        if (!ks) return;
        if (l > 0) {
          const bc = (k) => { const ps = lpreds.get(k).filter((x) => idx.has(x)); return ps.length ? ps.reduce((s, x) => s + idx.get(x), 0) / ps.length : 0; };
          const at = new Map(ks.map((k) => [k, bc(k)]));
          ks.sort((a, b) => at.get(a) - at.get(b));
        }
        ks.forEach((k, i) => idx.set(k, i));
      });
      // Each layer left to right at the nodes' own widths, centred.
      let half = 0;
      for (const ks of layers) {
        if (!ks) continue;
        let x = 0;
        for (const k of ks) { const w = hw(k); pos.set(k, { x: x + w, y: layer.get(k) * H + 30 + top }); x += 2 * w + GAP; }
        for (const k of ks) pos.get(k).x -= x / 2;
        half = Math.max(half, x / 2);
      }
      for (const ks of layers) if (ks) for (const k of ks) pos.get(k).x += left + half;
      if (multi) heads.push({ p, x: left + half });
      left += 2 * half + 40;
      height = Math.max(height, layers.length * H + 60 + top);
    }
    return { pos, width: left, height, heads, via };
  }
  // A node's half width: grains and groups by their work (log scale).
  function nodeSize(n) {
    const w = n.d.w > 0 ? 10 + 6 * Math.log10(1 + n.d.w / 1000) : 10;
    return Math.min(w, 50);
  }
  function halfWidth(n) {
    const t = n.m >= 0 ? G.groups[n.g].t : n.d.t;
    if (t === 'chunk' || t === 'task') return nodeSize(n) * (n.m < 0 && n.d.n > 1 ? 1.6 : 1);
    return t === 'start' || t === 'end' ? 9 : 6;
  }
  function groupFlagged(d, f) {
    const pf = d.pf || [];
    for (let j = 0; j + 1 < pf.length; j += 2) if (pf[j] === f) return pf[j + 1];
    return 0;
  }
  // Labels are drawn at LABEL_PX on screen at least: where the view makes
  // them smaller they are hidden (the node's tooltip keeps the text), and
  // shown again on zooming in.
  const LABEL_UNITS = 10, LABEL_PX = 9;
  function setViewBox() {
    gsvg.setAttribute('viewBox', gview.x + ' ' + gview.y + ' ' + gview.w + ' ' + gview.h);
    const r = gsvg.getBoundingClientRect();
    const pxPerUnit = Math.min((r.width || 800) / gview.w, (r.height || 400) / gview.h);
    const readable = LABEL_UNITS * pxPerUnit >= LABEL_PX;
    gsvg.classList.toggle('small-labels', !readable);
    state.graphLabelPx = LABEL_UNITS * pxPerUnit;
    state.graphLabels = readable;
  }
  function drawGraph(keepView, fitAll) {
    const model = graphModel(), L = layout(model);
    let viewNodes = 0;
    while (gsvg.firstChild) gsvg.removeChild(gsvg.firstChild);
    const ge = svg('g', { id: 'edges' }), gn = svg('g', { id: 'nodes' }), gc = svg('g', { id: 'crit-edges' });
    gsvg.append(ge, gc, gn);
    model.edges.forEach((e, j) => {
      const a = L.pos.get(e.a), b = L.pos.get(e.b);
      if (!a || !b) return;
      // Through its waypoints, each step a curve leaving and arriving
      // vertically.
      const pts = [a, ...(L.via.get(j) || []).map((w) => L.pos.get(w)), b];
      let d = 'M' + a.x + ',' + a.y;
      for (let i = 1; i < pts.length; i++) {
        const p = pts[i - 1], q = pts[i], my = (p.y + q.y) / 2;
        d += ' C' + p.x + ',' + my + ' ' + q.x + ',' + my + ' ' + q.x + ',' + q.y;
      }
      const path = svg('path', { class: 'edge' + (e.c ? ' crit' : ''), d });
      path.dataset.a = e.a; path.dataset.b = e.b;
      (e.c ? gc : ge).append(path);
    });
    // Several processes: each one's graph headed by its rank (or pid).
    for (const h of L.heads) {
      const tx = svg('text', { class: 'proc', 'text-anchor': 'middle', x: h.x, y: 14 });
      tx.textContent = procName(h.p);
      gn.append(tx);
    }
    for (const n of model.nodes.values()) {
      const p = L.pos.get(n.key), d = n.d, g = G.groups[n.g];
      const t = n.m >= 0 ? g.t : d.t;
      // crit: holds a grain of the critical path; path: the drawn path
      // goes through it.
      const onPath = n.m < 0 ? d.cp : d.c && G.groups[n.g].cp;
      const grp = svg('g', { class: 'node ' + t + (d.c ? ' crit' : '') + (onPath ? ' path' : '') + (n.m < 0 && d.x ? ' expandable' : ''), transform: 'translate(' + p.x + ',' + p.y + ')' });
      if (d.id) grp.dataset.id = d.id;
      if (d.ci) grp.dataset.critIds = d.ci.join(' ');
      grp.dataset.key = n.key;
      grp.dataset.p = n.p;
      let shape;
      // In a problem view: the grains it flags (a group's count of them).
      const fl = pview < 0 ? 0 : n.m >= 0 ? (d.pm >> pview) & 1 : groupFlagged(d, pview);
      if (fl) { grp.classList.add('flagged'); grp.dataset.flagged = fl; viewNodes += fl; }
      if (pview >= 0 && !fl) grp.setAttribute('opacity', 0.2);
      const colour = fl ? RED : g.k >= 0 ? (t === 'chunk' ? loopColour(g.k) : siteColour(g.k)) : '#bbb';
      if (t === 'chunk') {
        const w = halfWidth(n);
        shape = svg('rect', { class: 'shape', x: -w, y: -10, width: 2 * w, height: 20, rx: 3, fill: colour });
      } else if (t === 'task') {
        const w = halfWidth(n);
        shape = svg('ellipse', { class: 'shape', rx: w, ry: 11, fill: colour });
      } else if (t === 'start' || t === 'end') {
        shape = svg('rect', { class: 'shape', x: -9, y: -9, width: 18, height: 18, fill: '#444' });
      } else {
        shape = svg('circle', { class: 'shape', r: 6, fill: t === 'fork' ? '#777' : '#fff' });
      }
      grp.append(shape);
      const title = svg('title', {});
      title.textContent = (d.l || t) + (d.w > 0 ? '\nwork ' + fmtNs(d.w) : '') + (d.c ? '\non the critical path' + (d.ci ? ': ' + d.ci.join(', ') : '') : '') +
        (fl ? '\n' + (n.m < 0 && d.n > 1 ? fl + ' of ' + d.n + ' grains have ' : 'has ') + viewOf(pview).name : '') + (n.m < 0 && d.x ? '\nclick to expand' : '');
      grp.append(title);
      if (n.m < 0 && d.n > 1) {
        const tx = svg('text', { 'text-anchor': 'middle', y: 4 });
        tx.style.fill = textOn(colour);
        tx.textContent = fl ? fl + '/' + d.n : '×' + d.n;
        grp.append(tx);
      }
      grp.addEventListener('click', (ev) => {
        ev.stopPropagation();
        $('graph-details').textContent = (d.l || t) + (d.w > 0 ? '; work ' + fmtNs(d.w) : '') + (d.c ? '; on the critical path' : '');
        if (n.m < 0 && d.x) { expanded.add(n.g); drawGraph(true); return; }
        if (d.id) selectGrain(d.id);
      });
      // Double click: collapse the group this member is in.
      grp.addEventListener('dblclick', () => {
        if (n.m < 0) return;
        expanded.delete(n.g);
        drawGraph(true);
      });
      gn.append(grp);
    }
    // A new view: the top left of the graph at one unit per pixel (drag
    // or wheel for the rest). Fit: the whole graph if that is readable
    // (at most MAXU units per pixel), else as much of it from the top as
    // MAXU units per pixel show (wheel out for more).
    const MAXU = 3;
    if (!keepView || !gview) {
      const r = gsvg.getBoundingClientRect(), bw = r.width || 800, bh = r.height || 400, aspect = bh / bw;
      const lw = Math.max(L.width, 200), lh = Math.max(L.height, 200);
      let w;
      if (fitAll) w = Math.min(Math.max(lw, lh / aspect), MAXU * bw);
      else w = bw; // one unit per pixel: the labels readable

      gview = { x: Math.min((L.width - w) / 2, 0), y: 0, w, h: w * aspect };
      state.graphFit = { lw: L.width, lh: L.height, bw, bh };
    }
    setViewBox();
    state.graphNodes = model.nodes.size;
    state.svgElements = gsvg.getElementsByTagName('*').length;
    // The grains the view highlights in the graph (groups by their count).
    state.graphViewGrains = viewNodes;
  }
  let gdrag = null;
  gsvg.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const r = gsvg.getBoundingClientRect();
    const fx = (ev.clientX - r.left) / r.width, fy = (ev.clientY - r.top) / r.height;
    const f = Math.exp(ev.deltaY * 0.002);
    const nw = gview.w * f, nh = gview.h * f;
    gview.x += (gview.w - nw) * fx; gview.y += (gview.h - nh) * fy; gview.w = nw; gview.h = nh;
    setViewBox();
  }, { passive: false });
  gsvg.addEventListener('mousedown', (ev) => { gdrag = { x: ev.clientX, y: ev.clientY, vx: gview.x, vy: gview.y }; });
  window.addEventListener('mouseup', () => { gdrag = null; });
  window.addEventListener('mousemove', (ev) => { // past the graph's edge too
    if (!gdrag) return;
    const r = gsvg.getBoundingClientRect(), s = Math.max(gview.w / r.width, gview.h / r.height);
    gview.x = gdrag.vx - (ev.clientX - gdrag.x) * s; gview.y = gdrag.vy - (ev.clientY - gdrag.y) * s;
    setViewBox();
  });
  $('expand-all').addEventListener('click', () => { G.groups.forEach((g, i) => { if (g.x) expanded.add(i); }); drawGraph(false); });
  $('collapse-all').addEventListener('click', () => { expanded.clear(); drawGraph(false); });
  $('fit').addEventListener('click', () => drawGraph(false, true));
  $('critpath').textContent = D.procs.map((p, i) => [p, i]).sort((x, y) => (x[0].rank - y[0].rank) || (x[1] - y[1]))
    .map(([p, i]) => (multi ? procName(i) + ': ' : '') + p.cp).join('; ');

  // Where bar i is drawn, in the window's coordinates (for the test).
  function barBox(i) {
    const r = canvas.getBoundingClientRect();
    const x0 = xOf(start[i]), x1 = Math.max(xOf(start[i] + B.d[i]), x0 + 1);
    const by = barY(i);
    return { x: r.left + (x0 + x1) / 2, y: r.top + TOP + B.row[i] * ROW + by.y + by.h / 2, w: x1 - x0, h: by.h, x0: r.left + x0, x1: r.left + x1 };
  }
  // ---- Problem views ----
  function viewOf(f) { return D.views.find((v) => v.f === f); }
  const vsel = $('view');
  vsel.append(el('option', '', 'none'));
  vsel.lastChild.value = '-1';
  for (const v of D.views) {
    const o = el('option', '', v.name + ' (' + v.n + ' grain' + (v.n === 1 ? '' : 's') + ')');
    o.value = String(v.f);
    vsel.append(o);
  }
  function setView(f) {
    pview = viewOf(f) ? f : -1;
    if (selectedLoop >= 0) selectLoop(-1); // one selection at a time
    if (selectedSite >= 0) selectSite(-1);
    vsel.value = String(pview);
    $('view-info').textContent = pview >= 0 ? viewOf(pview).line : '';
    draw();
    drawGraph(true);
  }
  vsel.addEventListener('change', () => setView(Number(vsel.value)));

  window.gcReport = { data: D, state, view, selectLoop, selectSite, selectGrain, draw, barBox, loopColour, siteColour, setView,
    instancesOf, luminance, full };
  draw();
  drawGraph(false);
  window.addEventListener('resize', draw);
})();
