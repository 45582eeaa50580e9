// Package report renders a regression.Report for the people and machines
// that read it: the HTML report (html/template, no JavaScript, with an
// inline SVG sparkline per entry x KPI and a gonum/plot figure of each
// finding), the JSON summary (matbench's counts), JUnit XML (one testcase
// per entry x KPI), a Markdown summary for a CI step, and the text table of
// stdout. Every writer is deterministic: the same report gives the same
// bytes.
package report
