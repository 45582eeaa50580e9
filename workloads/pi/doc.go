// Package pi is the built-in performance-indicator workload: Thoth-style
// microbenchmarks (matmul, conv1d, conv2d, import time, exec) and the parser
// of the run directories they produce.
//
// Parsing (parse.go, decode.go, results.go) follows the store's two phases.
// ParseOnce reads the artifact files of one run directory (.uuid,
// config.yaml, pi.json, hwinfo.json, usage.json and the tails of stdout.log
// and stderr.log) into a typed *Results, which the store caches as JSON and
// DecodeCached reads back. ParseAlways then sets what depends on where the
// results are read from (local path, published URLs) on every parse.
//
// Parsing is lenient: a missing or broken file leaves its field empty and a
// warning naming the file and, for JSON and YAML, the line or field. A type
// error in one JSON field keeps the rest of the document; NaN and Infinity
// (as Python writes them) are read as absent values; values no measurement
// can have (negative rates or times) are kept but warned about.
// ParserVersion must be bumped whenever the Results made from the same files
// change, so that caches are invalidated.
//
// Plots (plots*.go) implement workloads.PlotProvider: the reports of
// `seshat visualize`. Each first shapes the entries (newShape: successful
// runs grouped by batch and by panel, shared by the reports of one job) into
// gota DataFrames, then draws them with package plotting. See
// docs/visualize.md.
package pi
