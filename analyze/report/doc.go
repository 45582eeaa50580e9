// Package report renders a regression.Report for the people and machines
// that read it: the HTML report (html/template, no JavaScript, the
// stylesheet of the visualize pages, with an inline SVG sparkline per
// entry x KPI and a gonum/plot figure, drawn with package plotting, of each
// finding and noisy result), the JSON summary (matbench's counts), JUnit
// XML (one testcase per entry x KPI), a Markdown summary for a CI step, and
// the text table of stdout. WriteDir writes the report directory of
// `seshat regression`: all of them, and the figures, each file renamed
// into place whole.
//
// It writes the other reports of the command line too: the change points
// of `seshat changepoints` (FindChangePoints finds them in every series of
// a series file, in parallel; WriteChangePointsText and
// WriteChangePointsJSON write them) and the table of `seshat history`
// (WriteHistoryTable).
//
// OutcomeOf judges the report once (failed, passed with findings, passed,
// no data, with the exit status that goes with it) and every writer states
// that outcome in the same words; a result fails in junit.xml exactly when
// it fails the analysis. Every writer is deterministic: the same report
// gives the same bytes.
package report
