// Package plotting turns parsed results into figures and HTML reports
// (`seshat visualize`).
//
// Data flows in two phases. A workload shapes its entries into a gota
// DataFrame (one row per run, or per group, with the columns the figure
// needs); a drawing function of this package turns the DataFrame into a
// gonum/plot figure. Every figure is written three times beside each other:
// SVG (shown in the pages), PNG and the DataFrame as CSV, so the numbers
// behind a picture can be checked or replotted.
//
// Workloads declare what they can draw in a Registry of reports and plots
// (names must be unique per workload; a duplicate panics when the workload
// registers). A plots.yaml file (TOPSAIL's shape) or `--generate` lines
// name what to draw: "report: Rate per batch", "plot: Rate box plot".
// Generate builds each requested page from the entries that match its
// filters and writes, for every plots.yaml id, a directory with the pages,
// their figures and a reports_index.html linking them.
//
// The KPI history page draws what a HistorySource gives it: series of
// per-build points with their change points, grouped once by the analysis
// (analyze/history.Source, the grouping `seshat regression` and `seshat
// serve` use), so this package imports neither analyze nor lts. Figures of
// history (the KPI history page here, the regression report's in
// analyze/report) share the tickers of axis.go: calendar time ticks, builds
// by id with the short commit below (BuildName), numbers without exponents;
// legends name the labels that differ between series and wrap to the
// figure's width (WrapLegend). NewPlot, Style and Figure.WriteSVG let pages
// outside this package look the same.
//
// Pages are html/template documents with inline CSS and no JavaScript.
// Missing data degrades: a report with nothing to draw says so on its page.
// Output is deterministic: sorted keys, fixed (embedded) fonts, seeded
// random numbers, nothing that depends on the clock or on map order.
package plotting
