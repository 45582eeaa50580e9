// Package explorer is `seshat serve`: HTML pages and JSON endpoints over an
// LTS store (any lts.Store: SQLite, OpenSearch), served by one binary.
//
// Data flows from the store to three kinds of page, each with its JSON twin:
//
//   - the series index: every stored run read as an lts.Record, cut into
//     series (a workload and its labels minus the comparison, ignored and
//     meta keys of regression analysis, so a series here is a history
//     there) and builds (lts.Record.BuildID). It is kept in memory, read
//     before serving (Server.Preload) and again every Options.MaxAge in
//     the background (Server.Watch), the previous one served meanwhile
//     and kept when a read fails. The landing page (/) and
//     /api/series list the series, filtered by label (?label=value...),
//     with the label values and their counts and a sparkline of each
//     series' main KPI (its workload's first KPI) by build;
//   - a series' history (/series/{id}, /api/history?series=ID), read from
//     the store for each request: every KPI by build, the runs and the
//     median of each build, with the build's id, commit, ref and CI link.
//     The page draws it in the browser with internal/charts (uPlot and
//     the chart script the static pages share, served under
//     /assets/charts/), change points and stored verdicts marked;
//   - a build (/builds/{id}, /api/builds/{id}): its runs as their payloads
//     hold them (settings, hardware, usage, KPIs), each linked to its run
//     directory when one of Options.ResultsDirs holds it (/runs/{uuid}/),
//     else to its payload (/api/runs/{uuid});
//   - a comparison of two builds (/builds/{id}/compare?with=ID,
//     /api/compare?a=ID&b=ID): each build's runs as `seshat compare
//     build:ID` reads them (compare.StoreBuild), but only what the
//     comparison uses (their records, one query a build; whole payloads
//     only for the workloads whose results hold per-iteration samples,
//     Workload.Samples), cut into the series of the index, and each
//     series compared by compare.Build, so the medians, deltas and
//     p-values are the command's;
//   - the alerts (/alerts, /api/alerts): the regressions and improvements
//     that `seshat regression --store-results` stored (lts.VerdictStore),
//     newest first, with their triage; POST /api/alerts/{id}/triage, the
//     only write, needs Options.AllowTriage, a writable store, the same
//     origin and Options.Token when set (alerts.go).
//
// Every string that comes from the store is escaped where it is written:
// html/template for pages, encoding/json (HTML-safe) for the API, and the
// page scripts set text, never markup. Unknown series, builds, runs and
// labels are 404 naming them, malformed query parameters 400, and a store
// that fails 503 with its error, the server going on.
package explorer
