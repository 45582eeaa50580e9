// The history page of `seshat serve`: one uPlot chart per KPI, drawn from
// the JSON the page carries (<script id="history-data">, the answer of
// /api/history). Runs are dots, each build's median a line; the x axis is
// the builds in the order of their first run. Every string from the store
// is set as text (textContent), never as markup.
(function () {
  "use strict";
  const dataEl = document.getElementById("history-data");
  const charts = document.getElementById("charts");
  if (!dataEl || !charts || typeof uPlot === "undefined") {
    return;
  }
  const h = JSON.parse(dataEl.textContent);
  const builds = h.builds;
  const tip = document.getElementById("tooltip");
  // For the tests and the curious: the charts, by KPI name.
  window.seshatCharts = {};

  function buildName(b) {
    return b.short_commit ? b.id + " (" + b.short_commit + ")" : b.id;
  }

  function fmt(v) {
    if (v === null || v === undefined) {
      return "–";
    }
    return Number(v.toPrecision(4)).toString();
  }

  // ticks writes the values of an axis with as many decimals as their step
  // needs, large ones with an SI prefix (67.1M, not 67,100,000): the
  // labels fit the axis and no two read the same.
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

  // Runs of a build spread a little around it, so that they do not hide
  // each other; the build's median sits on it.
  function layout(k) {
    const perBuild = builds.map(() => []);
    k.runs.forEach((r) => perBuild[r.build].push(r));
    const points = [];
    perBuild.forEach((runs, b) => {
      const med = k.medians[b];
      const onMedian = med !== null ? { x: b, median: med, run: null, uuid: null } : null;
      if (onMedian) {
        points.push(onMedian);
      }
      runs.forEach((r, i) => {
        if (runs.length === 1 && onMedian) {
          onMedian.run = r.value;
          onMedian.uuid = r.test_uuid;
          return;
        }
        const x = runs.length > 1 ? b + (i / (runs.length - 1) - 0.5) * 0.4 : b;
        points.push({ x: x, median: null, run: r.value, uuid: r.test_uuid });
      });
    });
    points.sort((a, b) => a.x - b.x);
    return points;
  }

  function line(parent, cls, text) {
    const el = document.createElement("div");
    el.className = cls;
    el.textContent = text;
    parent.appendChild(el);
    return el;
  }

  function showTip(u, k, points) {
    const idx = u.cursor.idx;
    if (idx === null || idx === undefined || u.cursor.left < 0) {
      tip.hidden = true;
      return;
    }
    const p = points[idx];
    const b = builds[Math.round(p.x)];
    tip.replaceChildren();
    line(tip, "tip-build", "build " + b.id);
    if (b.commit) {
      line(tip, "tip-commit", "commit " + b.short_commit);
    }
    if (b.ref) {
      line(tip, "tip-ref", "ref " + b.ref);
    }
    if (b.ci_url || b.ci_run_id) {
      line(tip, "tip-ci", "CI " + [b.ci_engine, b.ci_run_id].filter(Boolean).join(" ") + (b.ci_url ? " " + b.ci_url : ""));
    }
    line(tip, "tip-runs", b.runs + (b.runs === 1 ? " run" : " runs") + ", first " + b.first_run.replace("T", " "));
    const med = k.medians[Math.round(p.x)];
    line(tip, "tip-median", "median " + fmt(med) + " " + k.unit);
    if (p.run !== null) {
      line(tip, "tip-run", "run " + fmt(p.run) + " " + k.unit + " (" + p.uuid.slice(0, 8) + ")");
    }
    const rect = u.over.getBoundingClientRect();
    tip.hidden = false;
    const left = rect.left + window.scrollX + u.cursor.left + 14;
    const room = document.documentElement.clientWidth - tip.offsetWidth - 8;
    tip.style.left = Math.min(left, room) + "px";
    tip.style.top = rect.top + window.scrollY + u.cursor.top + 14 + "px";
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

    const points = layout(k);
    const data = [points.map((p) => p.x), points.map((p) => p.median), points.map((p) => p.run)];
    const axisFont = "12px system-ui, sans-serif";
    const opts = {
      width: charts.clientWidth,
      height: 280,
      // Whole builds: the x range starts and ends half a build around
      // them, zoomed or not.
      scales: {
        x: {
          time: false,
          range: (u, lo, hi) => [Math.max(-0.5, Math.round(lo) - 0.5), Math.min(builds.length - 0.5, Math.round(hi) + 0.5)],
        },
      },
      cursor: { drag: { x: true, y: false }, points: { size: 9 } },
      // The tooltip shows the values: a live legend would change width
      // under the mouse on its way from the chart to a legend entry.
      legend: { live: false },
      series: [
        {
          label: "build",
          value: (u, v) => (v === null || v === undefined ? "–" : buildName(builds[Math.round(v)])),
        },
        {
          label: "build median",
          stroke: "#1d4ed8",
          width: 2,
          spanGaps: true,
          points: { show: true, size: 7, fill: "#1d4ed8" },
          value: (u, v) => fmt(v),
        },
        {
          label: "runs",
          stroke: "#64748b",
          paths: () => null,
          points: { show: true, size: 5, fill: "#94a3b8", stroke: "#64748b" },
          value: (u, v) => fmt(v),
        },
      ],
      axes: [
        {
          font: axisFont,
          size: 48,
          space: 110,
          incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
          values: (u, splits) =>
            splits.map((v) => {
              const b = Number.isInteger(v) ? builds[v] : undefined;
              if (!b) {
                return "";
              }
              const id = b.id.length > 16 ? b.id.slice(0, 15) + "…" : b.id;
              return b.short_commit ? id + "\n" + b.short_commit : id;
            }),
        },
        { font: axisFont, size: 64, label: k.unit, labelFont: axisFont, labelSize: 20, values: (u, splits) => ticks(splits) },
      ],
      hooks: {
        setCursor: [(u) => showTip(u, k, points)],
      },
    };
    const u = new uPlot(opts, data, plot);
    window.seshatCharts[k.name] = u;
    // A click (not a drag to zoom) opens the build under the cursor.
    let down = null;
    u.over.addEventListener("mousedown", (e) => {
      down = [e.clientX, e.clientY];
    });
    u.over.addEventListener("click", (e) => {
      const moved = down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 3;
      const idx = u.cursor.idx;
      if (!moved && idx !== null && idx !== undefined) {
        const b = builds[Math.round(points[idx].x)];
        window.location.href = "/builds/" + encodeURIComponent(b.id) + "?series=" + encodeURIComponent(h.series.id);
      }
    });
    u.over.addEventListener("mouseleave", () => {
      tip.hidden = true;
    });
    return u;
  }

  const all = h.kpis.map(chart);
  if (h.kpis.length === 0) {
    line(charts, "muted", "No KPI: the runs of this series all failed.");
  }
  window.addEventListener("resize", () => {
    all.forEach((u) => u.setSize({ width: charts.clientWidth, height: 280 }));
  });
})();
