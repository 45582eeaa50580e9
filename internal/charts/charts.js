// charts.js draws Seshat's interactive charts with uPlot: the pages of
// `seshat serve`, of `seshat visualize` and the regression report. A chart
// is the JSON of a charts.Chart (Go): series of points, each point with
// the build it stands for, and marks (change points, verdicts) at builds.
// Hover shows a point's values, build, commit, ref, CI link and runs, and
// the marks at it; a drag zooms, a double-click zooms out; a click on a
// legend entry hides its series. A time axis is in UTC, its labels
// ISO dates and times. A chart whose series have levels (Series.level) and
// a factor (Chart.normalise) draws each series as its change in percent
// against its own level when their levels differ by more than the factor,
// and says so. Every string is set as text, never as markup. Static pages carry each chart as a div.seshat-chart holding a
// script element of type application/json (the chart), followed by an
// img.chart-fallback (the SVG) that is hidden when this script runs; each
// chart is drawn when it comes near the view (drawAll).
(function () {
  "use strict";
  if (typeof uPlot === "undefined") {
    return;
  }
  const palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  const markColor = { change: "#c01c28", regression: "#c62828", improvement: "#2e7d32", suspect: "#7b1fa2", other: "#555555" };
  const markName = { change: "change point", regression: "regression", improvement: "improvement", suspect: "suspect", other: "verdict" };
  // For the tests and the curious: the charts, by id.
  window.seshatCharts = window.seshatCharts || {};

  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) {
      return "–";
    }
    return Number(v.toPrecision(4)).toString();
  }

  // ticks writes the values of an axis with as many decimals as their step
  // needs, large ones with an SI prefix (67.1M, not 67,100,000): the
  // labels fit the axis and no two read the same.
  // fitLabel returns text, or a shortening of it no wider than room px in
  // font: words are dropped from the end of its text, a closing "(unit)"
  // kept, and "…" marks the cut. The full title stays in the figure's
  // caption and its SVG.
  function fitLabel(text, font, room) {
    if (!text) {
      return text;
    }
    const c = fitLabel.ctx || (fitLabel.ctx = document.createElement("canvas").getContext("2d"));
    c.font = font;
    if (c.measureText(text).width <= room) {
      return text;
    }
    const m = /^(.*?)(\s*\([^()]*\))$/.exec(text);
    const words = (m ? m[1] : text).split(/\s+/);
    const tail = m ? " " + m[2].trim() : "";
    while (words.length > 1) {
      words.pop();
      const t = words.join(" ") + "…" + tail;
      if (c.measureText(t).width <= room) {
        return t;
      }
    }
    return words[0] + "…" + tail;
  }

  function ticks(splits) {
    if (splits.length === 0) {
      return [];
    }
    const big = Math.max(...splits.map(Math.abs));
    const [div, suffix] = big >= 1e9 ? [1e9, "G"] : big >= 1e6 ? [1e6, "M"] : big >= 1e4 ? [1e3, "k"] : [1, ""];
    const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) / div : 0;
    const decimals = step > 0 ? Math.min(8, Math.max(0, -Math.floor(Math.log10(step) + 1e-9))) : 0;
    return splits.map((v) => (v / div).toFixed(decimals) + suffix);
  }

  function line(parent, cls, text, color) {
    const el = document.createElement("div");
    el.className = cls;
    el.textContent = text;
    if (color) {
      el.style.color = color;
    }
    parent.appendChild(el);
    return el;
  }

  let sharedTip = null;
  function tooltip() {
    if (!sharedTip) {
      sharedTip = document.createElement("div");
      sharedTip.className = "seshat-tip";
      sharedTip.hidden = true;
      document.body.appendChild(sharedTip);
    }
    return sharedTip;
  }

  // align puts the series on one x array (the union of their x values),
  // null where a series has no point, and keeps each point for the tooltip.
  function align(spec) {
    const xs = Array.from(new Set(spec.series.flatMap((s) => s.points.map((p) => p.x)))).sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const data = [xs];
    const meta = [];
    spec.series.forEach((s) => {
      const ys = new Array(xs.length).fill(null);
      const ps = new Array(xs.length).fill(null);
      s.points.forEach((p) => {
        const i = at.get(p.x);
        ys[i] = p.y;
        ps[i] = p;
      });
      data.push(ys);
      meta.push(ps);
    });
    return [data, meta];
  }

  // timeValues write a time axis' ticks in UTC, ISO style: the date (or
  // year) under the first label and where it changes. Columns: tick
  // increment, default, then on a change of year, month, day, hour,
  // minute, second; the last is uPlot's mode (1: the first that changed).
  const timeValues = [
    [3600 * 24 * 365, "{YYYY}", null, null, null, null, null, null, 1],
    [3600 * 24 * 28, "{YYYY}-{MM}", null, null, null, null, null, null, 1],
    [3600 * 24, "{MM}-{DD}", "\n{YYYY}", null, null, null, null, null, 1],
    [3600, "{HH}:{mm}", "\n{YYYY}-{MM}-{DD}", null, "\n{YYYY}-{MM}-{DD}", null, null, null, 1],
    [60, "{HH}:{mm}", "\n{YYYY}-{MM}-{DD}", null, "\n{YYYY}-{MM}-{DD}", null, null, null, 1],
    [1, ":{ss}", "\n{YYYY}-{MM}-{DD} {HH}:{mm}", null, "\n{YYYY}-{MM}-{DD} {HH}:{mm}", null, "\n{HH}:{mm}", null, 1],
  ];
  const utc = (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");

  // normalise returns spec with each series drawn as its change in percent
  // against its own level (s.level) when spec.normalise is a factor and the
  // levels differ by more than it; else spec itself. A point's hover keeps
  // its value in the KPI's unit. Series lacking a level, or levels not
  // above 0, leave the chart as it is.
  function normalise(spec) {
    const factor = spec.normalise;
    const levels = spec.series.map((s) => s.level);
    if (!factor || levels.length < 2 || !levels.every((l) => typeof l === "number" && l > 0)) {
      return spec;
    }
    if (Math.max(...levels) / Math.min(...levels) <= factor) {
      return spec;
    }
    const unit = spec.y.unit ? " " + spec.y.unit : "";
    const pct = (v, level) => (v / level - 1) * 100;
    return Object.assign({}, spec, {
      normalised: true,
      y: { label: "change in % against each series' level", unit: "%" },
      series: spec.series.map((s) =>
        Object.assign({}, s, {
          name: s.line ? s.name + " (level " + fmt(s.level) + unit + ")" : s.name,
          points: s.points.map((p) => {
            const q = Object.assign({}, p, { y: pct(p.y, s.level), note: "= " + fmt(p.y) + unit + (p.note ? " " + p.note : "") });
            if (p.lo !== undefined && p.hi !== undefined) {
              q.lo = pct(p.lo, s.level);
              q.hi = pct(p.hi, s.level);
            }
            return q;
          }),
        })
      ),
    });
  }

  // decorate draws, under the points, each point's range (lo–hi) and the
  // marks: a dashed line at the mark's x with a triangle on top.
  function decorate(spec, meta) {
    return (u) => {
      const ctx = u.ctx;
      ctx.save();
      spec.series.forEach((s, si) => {
        if (!u.series[si + 1].show) {
          return;
        }
        ctx.strokeStyle = s.color || palette[si % palette.length];
        ctx.lineWidth = 1.5 * devicePixelRatio;
        meta[si].forEach((p) => {
          if (!p || p.lo === undefined || p.hi === undefined) {
            return;
          }
          const x = u.valToPos(p.x, "x", true);
          ctx.beginPath();
          ctx.moveTo(x, u.valToPos(p.lo, "y", true));
          ctx.lineTo(x, u.valToPos(p.hi, "y", true));
          ctx.stroke();
        });
      });
      const top = u.bbox.top;
      const bottom = u.bbox.top + u.bbox.height;
      if (spec.normalised) {
        // 0%: each series at its own level.
        const y0 = u.valToPos(0, "y", true);
        if (y0 >= top && y0 <= bottom) {
          ctx.strokeStyle = "#6b7280";
          ctx.lineWidth = devicePixelRatio;
          ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
          ctx.beginPath();
          ctx.moveTo(u.bbox.left, y0);
          ctx.lineTo(u.bbox.left + u.bbox.width, y0);
          ctx.stroke();
          ctx.setLineDash([]);
        }
      }
      (spec.marks || []).forEach((m) => {
        const x = u.valToPos(m.x, "x", true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) {
          return;
        }
        const c = markColor[m.kind] || markColor.other;
        ctx.strokeStyle = c;
        ctx.fillStyle = c;
        ctx.lineWidth = devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, bottom);
        ctx.stroke();
        ctx.setLineDash([]);
        const d = 5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x - d, top);
        ctx.lineTo(x + d, top);
        ctx.lineTo(x, top + 1.6 * d);
        ctx.closePath();
        ctx.fill();
      });
      ctx.restore();
    };
  }

  // marksNear are the marks at x: within half a build on a build axis.
  function marksNear(spec, x) {
    const tol = spec.x.kind === "time" ? 0 : 0.5;
    return (spec.marks || []).filter((m) => Math.abs(m.x - x) <= tol);
  }

  function showTip(u, spec, meta, tip) {
    const idx = u.cursor.idx;
    if (idx === null || idx === undefined || u.cursor.left < 0) {
      tip.hidden = true;
      return;
    }
    let info = null;
    spec.series.forEach((s, si) => {
      if (!info && u.series[si + 1].show && meta[si][idx]) {
        info = meta[si][idx];
      }
    });
    if (!info) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren();
    if (info.build) {
      line(tip, "tip-build", "build " + info.build);
    }
    if (info.commit) {
      line(tip, "tip-commit", "commit " + info.commit);
    }
    if (info.ref) {
      line(tip, "tip-ref", "ref " + info.ref);
    }
    if (info.ci || info.ci_url) {
      line(tip, "tip-ci", "CI " + [info.ci, info.ci_url].filter(Boolean).join(" "));
    }
    if (info.runs || info.time) {
      const parts = [];
      if (info.runs) {
        parts.push(info.runs + (info.runs === 1 ? " run" : " runs"));
      }
      if (info.time) {
        parts.push((info.runs ? "first " : "") + info.time.replace("T", " "));
      }
      line(tip, "tip-runs", parts.join(", "));
    }
    const unit = spec.y.unit ? " " + spec.y.unit : "";
    spec.series.forEach((s, si) => {
      const p = meta[si][idx];
      if (!p || !u.series[si + 1].show) {
        return;
      }
      let text = s.name + " " + fmt(p.y) + unit;
      if (p.lo !== undefined && p.hi !== undefined && p.lo !== p.hi) {
        text += " (runs " + fmt(p.lo) + "–" + fmt(p.hi) + ")";
      }
      if (p.note) {
        text += " " + p.note;
      }
      line(tip, "tip-value", text, s.color || palette[si % palette.length]);
    });
    marksNear(spec, u.data[0][idx]).forEach((m) => {
      line(tip, "tip-mark tip-" + m.kind, (markName[m.kind] || m.kind) + (m.label ? ": " + m.label : ""), markColor[m.kind]);
    });
    const rect = u.over.getBoundingClientRect();
    tip.hidden = false;
    const left = rect.left + window.scrollX + u.cursor.left + 14;
    const room = document.documentElement.clientWidth - tip.offsetWidth - 8;
    tip.style.left = Math.max(0, Math.min(left, room)) + "px";
    tip.style.top = rect.top + window.scrollY + u.cursor.top + 14 + "px";
  }

  // draw draws spec in container; options.tooltip is the element the
  // hover fills (a shared one by default), options.onClick(point) is
  // called on a click that is not a drag.
  function draw(container, spec, options) {
    options = options || {};
    const tip = options.tooltip || tooltip();
    spec = normalise(spec);
    const [data, meta] = align(spec);
    const axisFont = "12px system-ui, sans-serif";
    const index = spec.x.kind !== "time";
    const n = data[0].length;
    const xAxis = { font: axisFont, label: spec.x.label || undefined, labelFont: axisFont, labelSize: spec.x.label ? 20 : 0 };
    if (!index) {
      Object.assign(xAxis, { size: 48, space: 70, values: timeValues });
    }
    if (index) {
      const tickNames = spec.x.ticks || [];
      Object.assign(xAxis, {
        size: 48,
        space: 110,
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
        values: (u, splits) =>
          splits.map((v) => {
            const name = Number.isInteger(v) ? tickNames[v] : undefined;
            return name === undefined ? "" : name;
          }),
      });
    }
    const last = index ? Math.max((spec.x.ticks || []).length, n ? data[0][n - 1] + 1 : 1) : 0;
    const width = Math.max(240, options.width || container.clientWidth || 600);
    const height = spec.height || 300;
    const yAxisSize = 64;
    // Each axis title is drawn along its axis, centred on the plot: one
    // longer than the plot is shortened to fit (the axes' sizes and
    // uPlot's padding taken off the chart's size).
    xAxis.label = fitLabel(xAxis.label, axisFont, width - yAxisSize - 20 - 24);
    const yLabel = fitLabel(spec.y.label || spec.y.unit, axisFont, height - xAxis.size - xAxis.labelSize - 24);
    const opts = {
      width: width,
      height: height,
      scales: {
        x: index
          ? {
              time: false,
              // Whole builds: the range starts and ends half a build
              // around them, zoomed or not.
              range: (u, lo, hi) => [Math.max(-0.5, Math.round(lo) - 0.5), Math.min(last - 0.5, Math.round(hi) + 0.5)],
            }
          : { time: true },
        // The runs' ranges (lo–hi) drawn under the points of the series
        // shown are inside the scale too: one reaching past every value
        // (an A/B side's runs beside one other point) was drawn across
        // the axis and the legend.
        y: {
          range: (u, min, max) => {
            meta.forEach((ps, si) => {
              const shown = u.series[si + 1];
              if (shown && !shown.show) {
                return;
              }
              ps.forEach((p) => {
                if (p && p.lo !== undefined && p.hi !== undefined) {
                  min = min === null ? p.lo : Math.min(min, p.lo);
                  max = max === null ? p.hi : Math.max(max, p.hi);
                }
              });
            });
            return min === null || max === null ? [min, max] : uPlot.rangeNum(min, max, 0.1, true);
          },
        },
      },
      tzDate: utc,
      cursor: { drag: { x: true, y: false }, points: { size: 9 } },
      // The tooltip shows the values: a live legend would change width
      // under the mouse on its way from the chart to a legend entry.
      legend: { live: false },
      series: [{ label: spec.x.label || "x" }].concat(
        spec.series.map((s, si) => {
          const c = s.color || palette[si % palette.length];
          return {
            label: s.name,
            stroke: c,
            width: s.line ? 2 : 0,
            dash: s.dash ? [6, 4] : undefined,
            spanGaps: true,
            paths: s.line ? undefined : () => null,
            points: { show: true, size: s.line ? 6 : 5, fill: c, stroke: c },
          };
        })
      ),
      axes: [xAxis, { font: axisFont, size: yAxisSize, label: yLabel, labelFont: axisFont, labelSize: 20, values: (u, splits) => ticks(splits) }],
      hooks: {
        drawAxes: [decorate(spec, meta)],
        setCursor: [(u) => showTip(u, spec, meta, tip)],
      },
    };
    // The chart is made outside the page and put into it once uPlot has
    // drawn it (its first commit, a microtask; the hook "ready"): a
    // canvas in the page resolves each font it is given against the
    // canvas element's style, which makes the browser compute the style
    // of the canvas' part of the page, chart by chart (in a part it
    // skips, content-visibility: auto, all of that part); outside the
    // page, the fonts (in px) need no style, and the page's style and
    // layout are computed once, after the charts drawn together. Until
    // then u.root is not in the page: a script that asks
    // window.seshatCharts for a chart not drawn yet finds it there, drawn,
    // once its microtasks have run, as it found its canvas drawn before.
    let anchor = null; // the note and key below go after the chart
    opts.hooks.ready = [(u) => container.insertBefore(u.root, anchor)];
    const u = new uPlot(opts, data, (u, init) => init());
    if (spec.id) {
      window.seshatCharts[spec.id] = u;
    }
    u.over.addEventListener("mouseleave", () => {
      tip.hidden = true;
    });
    if (options.onClick) {
      let down = null;
      u.over.addEventListener("mousedown", (e) => {
        down = [e.clientX, e.clientY];
      });
      u.over.addEventListener("click", (e) => {
        const moved = down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3;
        const idx = u.cursor.idx;
        if (moved || idx === null || idx === undefined) {
          return;
        }
        const p = meta.map((m) => m[idx]).find(Boolean);
        if (p) {
          options.onClick(p);
        }
      });
    }
    if (spec.normalised) {
      anchor = anchor || line(container, "seshat-note", "Normalised: the series' levels differ more than " + spec.normalise + "×, so each is drawn as its change in % against its own level (named in the legend); the dashed line is 0%.");
    }
    const kinds = Array.from(new Set((spec.marks || []).map((m) => m.kind)));
    if (kinds.length > 0) {
      const key = document.createElement("div");
      key.className = "seshat-marks";
      kinds.forEach((k) => {
        const el = document.createElement("span");
        el.className = "seshat-mark mark-" + k;
        el.style.borderColor = markColor[k] || markColor.other;
        el.textContent = markName[k] || k;
        key.appendChild(el);
      });
      container.appendChild(key);
      anchor = anchor || key;
    }
    window.addEventListener("resize", () => {
      u.setSize({ width: Math.max(240, container.clientWidth || 600), height: opts.height });
    });
    return u;
  }

  // drawAll draws the charts a static page carries, hiding each one's
  // <img> fallback and keeping its place for the chart. The charts in the
  // window, or within a window's height of it, are drawn at once; the
  // others as they come near (IntersectionObserver), when the page is
  // printed, or when a script asks window.seshatCharts for one: a long
  // report opens in the time of the charts in sight, not of all.
  // Reading a chart's place or width lays the page out, so the page is
  // read before it is changed, in one layout, and only where it is laid
  // out anyway: a chart in a part of the page the browser skips
  // (content-visibility: auto, far from the window; a closed <details>)
  // is not read, as reading it would lay that part out (the report's
  // 50 findings: most of the time of opening it). The observer reports
  // such a chart's width when it comes near. drawAll(true) draws them all.
  const pending = new Set();
  let observer = null;
  // rendered: whether the browser lays el out now (checkVisibility reads
  // styles, not the layout).
  function rendered(el) {
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({ contentVisibilityAuto: true });
    }
    return el.getClientRects().length > 0;
  }
  // measure reads the widths of the charts cs not measured yet, all in
  // one layout, before any of them is drawn. A chart in a part of the page
  // the browser skips (content-visibility: auto) is not laid out: reading
  // its width would lay that part out, and reading its style would
  // compute that part's style, part by part (most of the time of drawing
  // the 50 charts of a report at once); a chart is a block filling its
  // parent (a div with no margin), so its width is its parent's,
  // inside the padding, when the parent is laid out (the skipped part's
  // root: the report's <details class="result">).
  function measure(cs) {
    cs.forEach((c) => {
      if (!c.width) {
        c.width = skippedWidth(c.el) || c.el.clientWidth;
      }
    });
  }
  // skippedWidth is the width of the chart el when the browser skips it
  // and lays out its parent, else 0.
  function skippedWidth(el) {
    const p = el.parentElement;
    if (!p || rendered(el) || !rendered(p)) {
      return 0;
    }
    const ps = getComputedStyle(p);
    return Math.max(0, p.clientWidth - parseFloat(ps.paddingLeft) - parseFloat(ps.paddingRight));
  }
  function drawOne(c) {
    if (!pending.delete(c)) {
      return window.seshatCharts[c.spec.id];
    }
    if (observer) {
      observer.unobserve(c.el);
    }
    if (c.spec.id) {
      delete window.seshatCharts[c.spec.id]; // the getter below
    }
    c.el.dataset.drawn = "1";
    return draw(c.el, c.spec, { width: c.width || c.el.clientWidth });
  }
  function drawAll(all) {
    const found = [];
    document.querySelectorAll("div.seshat-chart").forEach((el) => {
      const src = el.querySelector('script[type="application/json"]');
      if (!src || el.dataset.drawn || el.dataset.pending) {
        return;
      }
      el.dataset.pending = "1";
      const fallback = el.parentElement && el.parentElement.querySelector("img.chart-fallback");
      found.push({ el: el, spec: JSON.parse(src.textContent), fallback: fallback });
    });
    // Each chart's place is kept (its height) and its fallback hidden
    // first, so that the page has its length before the charts are
    // drawn, and does not jump as they are.
    found.forEach((c) => {
      c.el.style.minHeight = (c.spec.height || 300) + "px";
      if (c.fallback) {
        c.fallback.style.display = "none";
      }
    });
    const ahead = 2 * window.innerHeight;
    const near = found.filter((c) => rendered(c.el));
    // Places and widths in one layout (see above).
    const tops = new Map(near.map((c) => [c, c.el.getBoundingClientRect().top]));
    measure(near);
    const now = [];
    found.forEach((c) => {
      pending.add(c);
      if (all || typeof IntersectionObserver === "undefined" || (tops.has(c) && tops.get(c) < ahead)) {
        now.push(c);
        return;
      }
      if (c.spec.id && !(c.spec.id in window.seshatCharts)) {
        // Asked for one, a script may well ask for the others: their
        // widths are read at once, in one layout.
        const get = () => {
          measure(Array.from(pending));
          return drawOne(c);
        };
        Object.defineProperty(window.seshatCharts, c.spec.id, { configurable: true, enumerable: true, get: get });
      }
      if (!observer) {
        observer = new IntersectionObserver(
          (entries) => {
            // The observer has laid the charts out: their widths are
            // its, read before one is drawn.
            const come = [];
            entries.forEach((e) => {
              if (!e.isIntersecting) {
                return;
              }
              pending.forEach((c) => {
                if (c.el === e.target) {
                  c.width = c.width || Math.floor(e.boundingClientRect.width);
                  come.push(c);
                }
              });
            });
            come.forEach(drawOne);
          },
          { rootMargin: "100% 0px" }
        );
      }
      observer.observe(c.el);
    });
    if (all) {
      measure(Array.from(pending));
    }
    now.forEach(drawOne);
    if (all) {
      Array.from(pending).forEach(drawOne);
    }
  }
  window.addEventListener("beforeprint", () => drawAll(true));
  // The widths read for the charts not drawn yet are the window's before.
  window.addEventListener("resize", () => pending.forEach((c) => delete c.width));

  window.SeshatCharts = { draw: draw, ticks: ticks, fmt: fmt, drawAll: drawAll, normalise: normalise };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => drawAll());
  } else {
    drawAll();
  }
})();
