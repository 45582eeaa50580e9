// Package compare puts two sets of runs side by side, as benchstat does:
// `seshat compare A B`.
//
// Data flows in three steps. Each side is a Source of LTS payloads (a
// results directory parsed and assembled, an LTS file, or the runs of one
// build in a store: StoreBuild, named build:ID). Build groups the
// KPI values of each side by entry: the payload's labels less its
// workload's comparison and ignored keys (what tells A from B, a version
// or a commit, is exactly what a comparison key names), so each entry x
// KPI has a sample of runs on each side. Each pair of samples is then
// summarised and tested with golang.org/x/perf/benchmath under
// AssumeNothing, as benchstat does by default: the median with its
// confidence interval (order statistics, the exact binomial interval at
// 95%), and the two-sided Mann-Whitney U test with its exact p-value for
// small samples; a change is reported only when p < alpha (0.05), else
// "~". When every run of both sides has per-iteration samples
// (Options.Samples) and each side two runs or more, the pair is tested on
// all of them instead, by analyze.HierBootstrap (a hierarchical bootstrap
// of runs and samples): each side's geometric mean with its interval, the
// ratio B/A with its interval and p (MethodHierarchical). A geomean row per KPI follows benchstat's: the geometric mean of the
// medians on each side, over the entries present on both.
//
// The Table is written as text, CSV, markdown or JSON (write.go).
package compare
