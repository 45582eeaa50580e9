package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/plotting"
)

// newChart is the interactive twin of newFigure: the history builds (the
// median of their runs, the range of the runs), the reference over the
// latest stable segment, the current build in the colour of its status,
// the change points and the verdict marked at their builds. A hover names
// each build by id and short commit.
func newChart(e *regression.Entry, r *regression.KPIResult) *charts.Chart {
	divisor, unit := r.DisplayScale()
	y := func(v float64) float64 { return v / divisor }
	history, labels := drawnHistory(r)
	n := len(history)
	names := drawnNames(r)
	c := &charts.Chart{ID: anchor(e, r), Height: 280,
		X: charts.Axis{Kind: charts.XIndex, Label: strings.Replace(names.XTitle, "build (id, short commit)", "build", 1), Ticks: labels},
		Y: charts.Axis{Label: r.KPI, Unit: unit}}
	point := func(x int, pt analyze.Point) charts.Point {
		p := charts.Point{X: float64(x), Y: y(pt.Value), Runs: max(1, len(pt.Samples))}
		p.Build, p.Commit = plotting.BuildName(pt.Commit, pt.Build, pt.Label)
		if !pt.Time.IsZero() {
			p.Time = pt.Time.UTC().Format(time.RFC3339)
		}
		if len(pt.Samples) > 1 {
			lo, hi := pt.Samples[0], pt.Samples[0]
			for _, s := range pt.Samples {
				lo, hi = min(lo, s), max(hi, s)
			}
			p.Lo, p.Hi = charts.Range(y(lo)), charts.Range(y(hi))
		}
		return p
	}
	builds := charts.Series{Name: names.History, Color: hexColor(historyColor), Line: true}
	for i, pt := range history {
		builds.Points = append(builds.Points, point(i, pt))
	}
	current := charts.Series{Name: names.Current + " (" + string(r.Status) + ")", Color: hexColor(statusColor[r.Status])}
	if finite(names.Point.Value) {
		current.Points = append(current.Points, point(n, names.Point))
	}
	c.Series = []charts.Series{builds, current}
	if ref := r.Result.Reference; finite(ref) && n > 0 {
		start := 0
		if b := r.Result.Baseline; b != nil && b.Len > 0 {
			start = b.Start
		}
		note := ""
		if f := r.Result.Floor; finite(f) {
			note = "(floor " + floorText(f) + ")"
		}
		c.Series = append(c.Series, charts.Series{Name: "reference " + r.Display(ref), Color: hexColor(refColor), Line: true, Dash: true,
			Points: []charts.Point{{X: float64(start), Y: y(ref), Note: note}, {X: float64(n), Y: y(ref), Note: note}}})
	}
	if b := r.Result.Baseline; b != nil {
		for _, cp := range b.ChangePoints {
			if cp >= 0 && cp < n {
				c.Marks = append(c.Marks, charts.Mark{X: float64(cp), Kind: charts.MarkChange, Label: "a new level starts at " + labelLine(labels[cp])})
			}
		}
	}
	kind := ""
	switch r.Status {
	case analyze.StatusRegression:
		kind = charts.MarkRegression
	case analyze.StatusImprovement:
		kind = charts.MarkImprovement
	case analyze.StatusSuspect:
		kind = charts.MarkSuspect
	case regression.StatusAcknowledged:
		kind = charts.MarkOther
	}
	if kind != "" {
		c.Marks = append(c.Marks, charts.Mark{X: float64(n), Kind: kind,
			Label: fmt.Sprintf("%s %s against %s", r.Status, delta(r.Result.DeltaPercent), r.Display(r.Result.Reference))})
	}
	return c.Drawable()
}

// labelLine is a tick name on one line.
func labelLine(s string) string {
	out := []rune(s)
	for i, r := range out {
		if r == '\n' {
			out[i] = ' '
		}
	}
	return string(out)
}
