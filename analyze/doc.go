// Package analyze holds the statistics of regression analysis: methods that
// judge a KPI's current value against its history, and detectors that find
// change points in a plain series.
//
// A Method takes an Input (the history, oldest first, one Point per build;
// the current Point; the KPI's Direction) and returns a Result: a Status
// (ok, regression, improvement, noisy, no-history, not-analyzed with a
// reason), the change in percent against a reference, the method's p-value
// or score, the noise of the series against its latest stable segment
// (Reference, kept as Result.Baseline for figures), details a person can
// read, and Warnings (too few points, all values equal, samples too few to
// ever reach significance). A Gate then judges the results of one analysis
// together: a false discovery rate across them, a floor from the noise,
// noisy where no change of the size that matters could have been seen.
// Warnings are caveats beside the numbers, never errors. A Detector is a
// Method that also finds ChangePoints in a series (`seshat changepoints`),
// each with at least two points on either side (sequential.go: one value
// is a spike, not a level) and the statistics of its final segments.
//
// One file per method:
//
//   - segment.go: the current build against the latest stable segment of
//     its history (stable.go), the default.
//   - edivisive.go: Hunter's e-divisive means (the default detector);
//     change points by Q-hat in sliding windows, t-test significance, merge
//     of weak points.
//   - zscore.go: |z| of the current value over the history mean and sample
//     standard deviation.
//   - mannwhitney.go: the current batch of repeated runs against the previous
//     batch, two-sided Mann-Whitney U (exact for small samples without ties),
//     Hodges-Lehmann shift and 95% confidence interval.
//   - threshold.go: percentage change against the history mean or the
//     previous point.
//   - sequential.go: what the detectors share: zscore's and threshold's
//     walk over a series, the rule against single-point segments, the
//     warnings on a series.
//
// Everything is deterministic: the same input gives the same output. Means,
// deviations and distributions come from gonum (stat, stat/distuv).
// Choosing history, grouping records into points and acknowledging known
// regressions belong to the caller (`seshat regression`).
package analyze
