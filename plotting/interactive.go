package plotting

import (
	"fmt"
	"html/template"
	"slices"

	"github.com/go-gota/gota/dataframe"

	"github.com/seshat-bench/seshat/internal/charts"
)

// Interactive is the figure's chart as the page carries it (JSON) for
// internal/charts to draw, or nil when it has none or nothing in it can be
// drawn: the page then shows the SVG alone.
func (f *Figure) Interactive() *charts.Chart { return f.Chart.Drawable() }

// ChartScripts is the script and style that draw the page's charts, inlined
// (the page works from file:// with the network off), or nothing when no
// figure of the page has a chart.
func (v pageView) ChartScripts() template.HTML {
	if slices.ContainsFunc(v.Figures(), func(f *Figure) bool { return f.Interactive() != nil }) {
		return charts.Inline()
	}
	return ""
}

// timeChart is the interactive twin of a Time figure, read from the same
// data: one series per value of s.Series, its rows as points at s.Time
// with the range s.Lo–s.Hi, the rows of s.Mark as change points. The
// optional columns build, commit, runs and time say what a hover shows,
// and verdict (a stored verdict's status: regression, improvement,
// suspect, acknowledged; charts.VerdictMark) marks a verdict at the row's
// build, which verdict_label describes. A build axis (BuildTicks) names
// positions.
func timeChart(df dataframe.DataFrame, s TimeSpec) (*charts.Chart, error) {
	names, err := column(df, s.Series)
	if err != nil {
		return nil, err
	}
	xs, err := floatColumn(df, s.Time)
	if err != nil {
		return nil, err
	}
	ys, err := floatColumn(df, s.Value)
	if err != nil {
		return nil, err
	}
	optional := func(name string) []string {
		if slices.Contains(df.Names(), name) {
			return df.Col(name).Records()
		}
		return nil
	}
	get := func(col []string, i int) string {
		if col == nil {
			return ""
		}
		return col[i]
	}
	var los, his []float64
	if s.Lo != "" && s.Hi != "" && slices.Contains(df.Names(), s.Lo) && slices.Contains(df.Names(), s.Hi) {
		los, his = df.Col(s.Lo).Float(), df.Col(s.Hi).Float()
	}
	builds, commits, times := optional("build"), optional("commit"), optional("time")
	verdicts, verdictLabels := optional("verdict"), optional("verdict_label")
	var runs []float64
	if slices.Contains(df.Names(), "runs") {
		runs = df.Col("runs").Float()
	}
	var marked []string
	if s.Mark != "" {
		marked = optional(s.Mark)
	}
	c := &charts.Chart{X: charts.Axis{Kind: charts.XTime, Label: s.XLabel}, Y: charts.Axis{Label: s.YLabel}}
	if t, ok := s.XTicks.(BuildTicks); ok {
		c.X.Kind, c.X.Ticks = charts.XIndex, t.Labels
	}
	order := slices.Clone(s.Order)
	for _, n := range names {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	index := map[string]int{}
	for i, n := range order {
		index[n] = i
		c.Series = append(c.Series, charts.Series{Name: n, Color: hexColor(Color(i)), Line: true})
	}
	for i, n := range names {
		p := charts.Point{X: xs[i], Y: ys[i], Time: get(times, i)}
		if los != nil {
			p.Lo, p.Hi = charts.Range(los[i]), charts.Range(his[i])
		}
		if b := get(builds, i); b != "" {
			p.Build = b
			_, p.Commit = BuildName(get(commits, i), b, "")
		}
		if runs != nil && charts.Finite(runs[i]) {
			p.Runs = int(runs[i])
		}
		sr := &c.Series[index[n]]
		sr.Points = append(sr.Points, p)
		label := n
		if p.Build != "" {
			label += " at " + p.Build
		}
		if get(marked, i) == "true" {
			c.Marks = append(c.Marks, charts.Mark{X: xs[i], Kind: charts.MarkChange, Label: label})
		}
		if kind := charts.VerdictMark(get(verdicts, i)); kind != "" {
			text := label
			if l := get(verdictLabels, i); l != "" {
				text = l + " (" + label + ")"
			}
			c.Marks = append(c.Marks, charts.Mark{X: xs[i], Kind: kind, Label: text})
		}
	}
	return c, nil
}

func hexColor(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
