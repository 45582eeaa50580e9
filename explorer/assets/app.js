// The history page of `seshat serve`: one chart per KPI, drawn by
// internal/charts (charts.js, the script the static pages share) from the
// JSON the page carries (<script id="history-data">, the answer of
// /api/history, and <script id="overlay-data">, the series overlaid).
// Runs are dots, each build's median a line, change points and stored
// verdicts marked; the x axis is the builds in the order of their first
// run, or time (each build at its first run, each run at its start), as
// the URL says (?axis=time). Overlaid series are their build medians, each
// drawn as its change in % against its own level when the levels differ
// by more than normaliseFactor. Every string from the store is set as
// text (textContent), never as markup.
(function () {
  "use strict";
  const dataEl = document.getElementById("history-data");
  const charts = document.getElementById("charts");
  if (!dataEl || !charts || typeof SeshatCharts === "undefined") {
    return;
  }
  const h = JSON.parse(dataEl.textContent);
  const overlayEl = document.getElementById("overlay-data");
  const ov = overlayEl ? JSON.parse(overlayEl.textContent) : null;
  const overlays = (ov && ov.overlays) || [];
  const timeAxis = charts.dataset.axis === "time";
  const tip = document.getElementById("tooltip");
  // The levels of the series overlaid may differ by this factor before
  // each is drawn against its own level (as seshat visualize does).
  const normaliseFactor = 1.5;
  const overlayColors = ["#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#9c755f", "#edc948"];

  // A change of the overlay picker shows the series picked at once.
  const pick = document.getElementById("overlay-pick");
  if (pick) {
    pick.addEventListener("change", () => pick.submit());
  }

  function line(parent, cls, text) {
    const el = document.createElement("div");
    el.className = cls;
    el.textContent = text;
    parent.appendChild(el);
    return el;
  }

  // The builds' places on a build axis: the builds of the series and its
  // overlays (a build at one comparison value), in the order of their
  // first run, each once.
  const buildKey = (b) => b.id + "\u0000" + (b.comparison || "");
  const axisBuilds = [];
  const position = new Map();
  [h].concat(overlays.map((o) => o.history)).forEach((hist) => {
    hist.builds.forEach((b) => {
      if (!position.has(buildKey(b))) {
        position.set(buildKey(b), -1);
        axisBuilds.push(b);
      }
    });
  });
  if (overlays.length > 0) {
    axisBuilds.sort((a, b) => Date.parse(a.first_run) - Date.parse(b.first_run));
  }
  axisBuilds.forEach((b, i) => position.set(buildKey(b), i));
  const seconds = (t) => Date.parse(t) / 1000;
  const buildX = (b) => (timeAxis ? seconds(b.first_run) : position.get(buildKey(b)));

  // point is a build's place on a chart, with what a hover shows of it.
  function point(x, y, b, series) {
    const p = { x: x, y: y, build: b.id, runs: b.runs, time: b.first_run, series: series };
    if (b.short_commit) {
      p.commit = b.short_commit;
    }
    if (b.ref) {
      p.ref = b.ref;
    }
    if (b.ci_engine || b.ci_run_id) {
      p.ci = [b.ci_engine, b.ci_run_id].filter(Boolean).join(" ");
    }
    if (b.ci_url) {
      p.ci_url = b.ci_url;
    }
    return p;
  }

  function medians(hist, k) {
    const out = [];
    hist.builds.forEach((b, i) => {
      if (k.medians[i] !== null) {
        out.push(point(buildX(b), k.medians[i], b, hist.series.id));
      }
    });
    return out;
  }

  // level is a KPI's usual value in a history: the median of its build
  // medians since its last change point (all of them without one).
  function level(k) {
    const cps = (k.marks || []).filter((m) => m.kind === "change").map((m) => m.build);
    const from = cps.length > 0 ? Math.max(...cps) : 0;
    const vs = k.medians.slice(from).filter((v) => v !== null).sort((a, b) => a - b);
    if (vs.length === 0) {
      return undefined;
    }
    const m = vs.length >> 1;
    return vs.length % 2 ? vs[m] : (vs[m - 1] + vs[m]) / 2;
  }

  // spec turns a KPI's history into the chart internal/charts draws: the
  // build medians joined by a line, the runs as dots (on a build axis
  // spread a little around their build so that they do not hide each
  // other, a build's only run on its median; on a time axis at their
  // start), the marks at their builds, and the overlays' medians.
  function spec(k) {
    const perBuild = h.builds.map(() => []);
    k.runs.forEach((r) => perBuild[r.build].push(r));
    const runs = [];
    perBuild.forEach((rs, b) => {
      const at = buildX(h.builds[b]);
      rs.forEach((r, i) => {
        let x = at;
        if (timeAxis) {
          x = seconds(r.time);
        } else if (rs.length > 1) {
          x = at + (i / (rs.length - 1) - 0.5) * 0.4;
        }
        const p = point(x, r.value, h.builds[b], h.series.id);
        p.note = "(" + r.test_uuid.slice(0, 8) + ")";
        runs.push(p);
      });
    });
    const own = level(k);
    const series = [
      { name: overlays.length > 0 ? "median " + ov.name : "build median", color: "#1d4ed8", line: true, level: own, points: medians(h, k) },
      { name: "runs", color: "#64748b", level: own, points: runs },
    ];
    overlays.forEach((o, i) => {
      const ok = o.history.kpis.find((x) => x.name === k.name);
      if (ok) {
        series.push({ name: "median " + o.name, color: overlayColors[i % overlayColors.length], line: true, level: level(ok), points: medians(o.history, ok) });
      }
    });
    return {
      id: k.name,
      x: timeAxis
        ? { kind: "time", label: "first run (UTC)" }
        : {
            kind: "index",
            ticks: axisBuilds.map((b) => {
              const id = b.id.length > 16 ? b.id.slice(0, 15) + "…" : b.id;
              return b.short_commit ? id + "\n" + b.short_commit : id;
            }),
          },
      y: { unit: k.unit },
      height: 280,
      normalise: series.length > 2 ? normaliseFactor : 0,
      series: series,
      marks: (k.marks || []).map((m) => ({ x: buildX(h.builds[m.build]), kind: m.kind, label: m.label })),
    };
  }

  function chart(k) {
    const section = document.createElement("section");
    section.className = "chart";
    section.dataset.kpi = k.name;
    const title = document.createElement("h3");
    title.textContent = k.name + (k.unit ? " (" + k.unit + ")" : "");
    const dir = document.createElement("span");
    dir.className = "muted";
    dir.textContent = k.lower_better ? " lower is better" : " higher is better";
    title.appendChild(dir);
    section.appendChild(title);
    if (k.help) {
      line(section, "help", k.help);
    }
    const plot = document.createElement("div");
    section.appendChild(plot);
    charts.appendChild(section);
    // A click (not a drag to zoom) opens the build under the cursor, in
    // the series of the point.
    return SeshatCharts.draw(plot, spec(k), {
      tooltip: tip,
      onClick: (p) => {
        window.location.href = "/builds/" + encodeURIComponent(p.build) + "?series=" + encodeURIComponent(p.series || h.series.id);
      },
    });
  }

  h.kpis.forEach(chart);
  if (h.kpis.length === 0) {
    line(charts, "muted", "No KPI: the runs of this series all failed.");
  }
})();
