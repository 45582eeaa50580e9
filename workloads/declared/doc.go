// Package declared makes workloads out of files: a workload.yaml declares
// what a run directory holds and how to read it, and this package turns it
// into a workload registered beside the Go ones (pi), so every verb treats
// both alike.
//
// Data flows in three steps:
//
//  1. Load decodes and checks a workload file (spec.go). Every problem is a
//     *parsers.SyntaxError naming the file, the line and the dotted key
//     (kpis.throughput_rps.direction); all problems are reported at once.
//     Field rules are go-playground/validator tags; what tags cannot say
//     (a value naming an undeclared file, a JSONPath that does not parse,
//     a KPI catalog that package kpi refuses) is checked after them.
//  2. ParseOnce (extract.go) reads the declared files of one run directory
//     through the store's ParseContext (so the parse cache sees every file)
//     and extracts each value: an RFC 9535 JSONPath (github.com/theory/jsonpath)
//     into JSON or YAML, a column of a CSV file, or a regular expression over
//     a text file. The workload's parser version carries a hash of the file,
//     so editing workload.yaml re-parses every run of it.
//  3. The KPIProvider side (workload.go) turns the values into an LTS
//     payload: labels from settings or values, the values as typed results
//     (a struct type built from the declaration, so strict validation and
//     the JSON Schema know which values are required and of which type),
//     and the KPIs. Plots (plots.go) draw the declared reports with package
//     plotting; regression keys and, when declared, a command to run come
//     from the file too.
//
// Register adds a loaded workload to the workloads registry; loading the
// same file twice is a no-op, a different file with a taken name an error.
// Discover registers the workload.yaml found at the top of a results
// directory.
package declared
