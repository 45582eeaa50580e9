// The history page of `seshat serve`: one chart per KPI, drawn by
// internal/charts (charts.js, the script the static pages share) from the
// JSON the page carries (<script id="history-data">, the answer of
// /api/history). Runs are dots, each build's median a line, change points
// and stored verdicts marked; the x axis is the builds in the order of
// their first run. Every string from the store is set as text
// (textContent), never as markup.
(function () {
  "use strict";
  const dataEl = document.getElementById("history-data");
  const charts = document.getElementById("charts");
  if (!dataEl || !charts || typeof SeshatCharts === "undefined") {
    return;
  }
  const h = JSON.parse(dataEl.textContent);
  const builds = h.builds;
  const tip = document.getElementById("tooltip");

  function line(parent, cls, text) {
    const el = document.createElement("div");
    el.className = cls;
    el.textContent = text;
    parent.appendChild(el);
    return el;
  }

  // point is a build's place on a chart, with what a hover shows of it.
  function point(x, y, b) {
    const p = { x: x, y: y, build: b.id, runs: b.runs, time: b.first_run };
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

  // spec turns a KPI's history into the chart internal/charts draws: the
  // build medians joined by a line, the runs as dots spread a little
  // around their build so that they do not hide each other (a build's
  // only run sits on its median), the marks at their builds.
  function spec(k) {
    const perBuild = builds.map(() => []);
    k.runs.forEach((r) => perBuild[r.build].push(r));
    const medians = [];
    const runs = [];
    perBuild.forEach((rs, b) => {
      const med = k.medians[b];
      if (med !== null) {
        medians.push(point(b, med, builds[b]));
      }
      rs.forEach((r, i) => {
        const x = rs.length > 1 ? b + (i / (rs.length - 1) - 0.5) * 0.4 : b;
        const p = point(x, r.value, builds[b]);
        p.note = "(" + r.test_uuid.slice(0, 8) + ")";
        runs.push(p);
      });
    });
    return {
      id: k.name,
      x: {
        kind: "index",
        ticks: builds.map((b) => {
          const id = b.id.length > 16 ? b.id.slice(0, 15) + "…" : b.id;
          return b.short_commit ? id + "\n" + b.short_commit : id;
        }),
      },
      y: { unit: k.unit },
      height: 280,
      series: [
        { name: "build median", color: "#1d4ed8", line: true, points: medians },
        { name: "runs", color: "#64748b", points: runs },
      ],
      marks: (k.marks || []).map((m) => ({ x: m.build, kind: m.kind, label: m.label })),
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
    // A click (not a drag to zoom) opens the build under the cursor.
    return SeshatCharts.draw(plot, spec(k), {
      tooltip: tip,
      onClick: (p) => {
        window.location.href = "/builds/" + encodeURIComponent(p.build) + "?series=" + encodeURIComponent(h.series.id);
      },
    });
  }

  h.kpis.forEach(chart);
  if (h.kpis.length === 0) {
    line(charts, "muted", "No KPI: the runs of this series all failed.");
  }
})();
