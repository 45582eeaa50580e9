package charts

import (
	"embed"
	"html/template"
	"io/fs"
	"math"
	"strings"
	"sync"
)

//go:embed uplot/uPlot.iife.min.js uplot/uPlot.min.css uplot/LICENSE uplot/VERSION charts.js charts.css
var files embed.FS

// FS is the embedded files: uplot/uPlot.iife.min.js, uplot/uPlot.min.css,
// uplot/LICENSE, charts.js and charts.css. The explorer serves them.
func FS() fs.FS { return files }

// Chart is one interactive chart, as a page carries it (JSON) for
// charts.js to draw.
type Chart struct {
	// ID names the chart in window.seshatCharts (tests, the curious).
	ID     string   `json:"id"`
	Title  string   `json:"title,omitempty"`
	X      Axis     `json:"x"`
	Y      Axis     `json:"y"`
	Height int      `json:"height,omitempty"`
	Series []Series `json:"series"`
	// Marks are vertical lines at x: change points and verdicts.
	Marks []Mark `json:"marks,omitempty"`
	// Normalise, when above 1 and every series has a Level, draws each
	// series as its change in percent against its own level when the
	// levels differ by more than this factor (the axis and a note say
	// so); 0 never does.
	Normalise float64 `json:"normalise,omitempty"`
}

// The kinds of an x axis.
const (
	// XTime: x values are Unix seconds.
	XTime = "time"
	// XIndex: x values are positions (builds side by side), named by
	// Axis.Ticks.
	XIndex = "index"
)

// Axis is an axis of a chart.
type Axis struct {
	Kind  string `json:"kind,omitempty"` // XTime or XIndex (x only)
	Label string `json:"label,omitempty"`
	Unit  string `json:"unit,omitempty"`
	// Ticks name the integer positions of an XIndex axis, in order.
	Ticks []string `json:"ticks,omitempty"`
}

// Series is one line or set of dots of a chart.
type Series struct {
	Name  string `json:"name"`
	Color string `json:"color,omitempty"`
	// Line joins the points; without it they are dots only.
	Line bool `json:"line,omitempty"`
	// Dash draws the line dashed.
	Dash bool `json:"dash,omitempty"`
	// Level is the series' usual value (Chart.Normalise), in the unit of
	// its points.
	Level  *float64 `json:"level,omitempty"`
	Points []Point  `json:"points"`
}

// Point is one point of a series, with what a hover shows of it.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Lo and Hi, when set, are a range drawn as a bar through the point
	// (the range of a build's runs).
	Lo     *float64 `json:"lo,omitempty"`
	Hi     *float64 `json:"hi,omitempty"`
	Build  string   `json:"build,omitempty"`
	Commit string   `json:"commit,omitempty"`
	Ref    string   `json:"ref,omitempty"`
	CI     string   `json:"ci,omitempty"`
	CIURL  string   `json:"ci_url,omitempty"`
	Runs   int      `json:"runs,omitempty"`
	Time   string   `json:"time,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// The kinds of a mark; charts.js colours them.
const (
	MarkChange      = "change"
	MarkRegression  = "regression"
	MarkImprovement = "improvement"
	MarkSuspect     = "suspect"
	MarkOther       = "other"
)

// VerdictMark is the mark of a stored verdict's status (lts.Verdict.Status):
// regression, improvement, suspect, or other for an acknowledged finding;
// "" for a status no chart marks (ok, noisy...). The explorer's series
// pages and the static KPI history pages mark verdicts by it.
func VerdictMark(status string) string {
	switch status {
	case "regression":
		return MarkRegression
	case "improvement":
		return MarkImprovement
	case "suspect":
		return MarkSuspect
	case "acknowledged":
		return MarkOther
	}
	return ""
}

// Mark is a vertical line at X: a change point or a verdict at its build.
type Mark struct {
	X     float64 `json:"x"`
	Kind  string  `json:"kind"`
	Label string  `json:"label"`
}

// Finite reports whether v can be drawn (JSON has no NaN or infinity).
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Range returns a pointer to v, or nil when v cannot be drawn: a Point's Lo
// or Hi.
func Range(v float64) *float64 {
	if !Finite(v) {
		return nil
	}
	return &v
}

// Drawable returns the chart with the points that cannot be drawn (NaN,
// infinite) left out, and the series left with no point (a legend entry
// for nothing: the history of an A/B result without a store), and nil
// when no point is left.
func (c *Chart) Drawable() *Chart {
	if c == nil {
		return nil
	}
	out := *c
	out.Series = nil
	n := 0
	for _, s := range c.Series {
		kept := s
		kept.Points = nil
		for _, p := range s.Points {
			if Finite(p.X) && Finite(p.Y) {
				kept.Points = append(kept.Points, p)
			}
		}
		if len(kept.Points) == 0 {
			continue
		}
		n += len(kept.Points)
		out.Series = append(out.Series, kept)
	}
	if n == 0 {
		return nil
	}
	var marks []Mark
	for _, m := range c.Marks {
		if Finite(m.X) {
			marks = append(marks, m)
		}
	}
	out.Marks = marks
	return &out
}

// Inline is the <style> and <script> elements a static page carries once to
// draw its charts: uPlot and charts.js, whole, so that the page needs no
// other file and fetches nothing.
func Inline() template.HTML { return inline() }

// inline is built once, when a page first asks (not at every start of
// seshat, each run's `seshat pi` included: 0.4 MB): the files are
// embedded. TestInlineHasNoEndTag checks that none of them ends the
// element it is inlined in early.
var inline = sync.OnceValue(func() template.HTML {
	read := func(name string) string {
		b, _ := files.ReadFile(name) // embedded: cannot fail
		return string(b)
	}
	var b strings.Builder
	b.WriteString("<style>\n" + read("uplot/uPlot.min.css") + "\n" + read("charts.css") + "</style>\n")
	b.WriteString("<script>\n/* uPlot " + strings.TrimSpace(read("uplot/VERSION")) + " (MIT licence: internal/charts/uplot/LICENSE) */\n" +
		read("uplot/uPlot.iife.min.js") + "\n</script>\n")
	b.WriteString("<script>\n" + read("charts.js") + "</script>\n")
	return template.HTML(b.String()) //nolint:gosec // embedded files, checked by TestInlineHasNoEndTag
})
