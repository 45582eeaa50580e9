// Package charts holds the interactive charts every HTML page of Seshat
// draws: the pages of `seshat serve` (explorer), of `seshat visualize`
// (plotting) and the regression report (analyze/report). It is a leaf: it
// imports nothing of Seshat.
//
// It embeds uPlot (vendored under uplot/ at a pinned version with its
// licence; refresh.sh refreshes it from its npm package, nothing is fetched
// at build or run time) and charts.js, the one script that draws a Chart
// (the JSON a page carries) with uPlot: hover shows a point's value, build
// id, commit and CI link; a drag zooms, a double-click zooms out; a legend
// click hides a series; change points and verdicts are marked at their
// builds. Static pages inline the script (Inline), so they work from
// file:// inside a CI artifact with the network off; the explorer serves
// the same files (FS).
package charts
