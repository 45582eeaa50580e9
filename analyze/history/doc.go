// Package history is the one grouping of stored runs into per-build
// points: `seshat regression` judges them, `seshat visualize` draws them on
// its KPI history pages and `seshat serve` shows them, so the three agree
// on what a point is.
//
// The rule, stated once:
//
//   - A series is a workload and the labels of its runs minus the
//     comparison labels, the ignored labels and the MetaKeys (Rule.Series).
//     A workload's regression keys (regression.Keys.Rule) say which labels
//     those are; every verb uses its workload's keys.
//   - A point is the runs of a series that share a build
//     (lts.Record.BuildID: a run without a build is its own) and a
//     comparison value (Rule.Comparison: the comparison labels' values, the
//     value alone for one label, else label=value pairs), should one build
//     have run several. Its value is the median of its runs; its time the
//     start of its earliest run.
//   - Points are ordered by time, then comparison value, then build id.
//
// Data flows from lts.Records (a store's answer to a query) through Runs
// (a record with its comparison value) into Points; Group cuts a query's
// records into series first. Source answers the KPI history pages of
// package plotting: the points of each KPI series with their change points,
// as plain plotting structs, so that plotting draws what it is given and
// imports neither analyze nor lts.
package history
