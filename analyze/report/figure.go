package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
)

// Status colours, shared by the table rows, the sparklines and the figures.
var statusColor = map[analyze.Status]color.RGBA{
	analyze.StatusOK:              {0x3b, 0x6e, 0xa8, 0xff},
	analyze.StatusRegression:      {0xc6, 0x28, 0x28, 0xff},
	analyze.StatusImprovement:     {0x2e, 0x7d, 0x32, 0xff},
	regression.StatusAcknowledged: {0xe6, 0x7e, 0x00, 0xff},
	analyze.StatusNoHistory:       {0x75, 0x75, 0x75, 0xff},
	analyze.StatusNotAnalyzed:     {0x75, 0x75, 0x75, 0xff},
}

var historyColor = color.RGBA{0x55, 0x55, 0x55, 0xff}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// writeFigure draws the history of one entry x KPI with its current point:
// one point per comparison value (the median of its runs) over time, the
// reference the method compared with, and the current point in the colour
// of its status. Without times (records without a start) the points are
// spread evenly.
func writeFigure(w io.Writer, e *regression.Entry, r *regression.KPIResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("#%d %s: %s", e.ID, e.Name, r.KPI)
	p.Y.Label.Text = r.KPI
	if r.Unit != "" {
		p.Y.Label.Text += " (" + r.Unit + ")"
	}
	points := append([]analyze.Point{}, r.History...)
	timed := true
	for _, pt := range append(points, r.Current) {
		if pt.Time.IsZero() {
			timed = false
		}
	}
	x := func(i int, pt analyze.Point) float64 {
		if timed {
			return float64(pt.Time.Unix())
		}
		return float64(i)
	}
	if timed {
		p.X.Tick.Marker = plot.TimeTicks{Format: "2006-01-02"}
		p.X.Label.Text = "time (one point per comparison value, at its first run)"
	} else {
		p.X.Label.Text = "history point"
	}
	hist := make(plotter.XYs, 0, len(points))
	var spread plotter.XYs
	for i, pt := range points {
		if !finite(pt.Value) {
			continue
		}
		hist = append(hist, plotter.XY{X: x(i, pt), Y: pt.Value})
		for _, s := range pt.Samples {
			if finite(s) {
				spread = append(spread, plotter.XY{X: x(i, pt), Y: s})
			}
		}
	}
	if len(spread) > len(hist) {
		sc, err := plotter.NewScatter(spread)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0xb0, 0xb0, 0xb0, 0xff}, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("runs", sc)
	}
	if len(hist) > 0 {
		line, pts, err := plotter.NewLinePoints(hist)
		if err != nil {
			return err
		}
		line.Color, pts.Color = historyColor, historyColor
		pts.Shape, pts.Radius = draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(line, pts)
		p.Legend.Add("history (median per comparison value)", line, pts)
	}
	if ref := r.Result.Reference; finite(ref) && len(hist) > 0 {
		lo, hi := hist[0].X, x(len(points), r.Current)
		refLine, err := plotter.NewLine(plotter.XYs{{X: lo, Y: ref}, {X: hi, Y: ref}})
		if err != nil {
			return err
		}
		refLine.Color, refLine.Dashes = color.RGBA{0x90, 0x90, 0x90, 0xff}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(refLine)
		p.Legend.Add("reference", refLine)
	}
	if finite(r.Current.Value) {
		cur, err := plotter.NewScatter(plotter.XYs{{X: x(len(points), r.Current), Y: r.Current.Value}})
		if err != nil {
			return err
		}
		cur.GlyphStyle = draw.GlyphStyle{Color: statusColor[r.Status], Radius: vg.Points(5), Shape: draw.CircleGlyph{}}
		p.Add(cur)
		p.Legend.Add(fmt.Sprintf("current (%s)", r.Status), cur)
	}
	// Room around the points (a glyph on the border is cut) and above
	// them for the legend.
	all := append(append(plotter.XYs{}, hist...), spread...)
	if finite(r.Current.Value) {
		all = append(all, plotter.XY{X: x(len(points), r.Current), Y: r.Current.Value})
	}
	if ref := r.Result.Reference; finite(ref) && len(all) > 0 {
		all = append(all, plotter.XY{X: all[0].X, Y: ref})
	}
	if len(all) == 0 {
		return errors.New("nothing to draw")
	}
	xlo, xhi, ylo, yhi := plotter.XYRange(all)
	pad := func(lo, hi, below, above float64) (float64, float64) {
		span := hi - lo
		if span == 0 {
			span = math.Max(math.Abs(hi)*0.1, 1)
		}
		return lo - below*span, hi + above*span
	}
	p.X.Min, p.X.Max = pad(xlo, xhi, 0.04, 0.04)
	p.Y.Min, p.Y.Max = pad(ylo, yhi, 0.1, 0.5)
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	wt, err := p.WriterTo(7*vg.Inch, 3*vg.Inch, "svg")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// sparkline is the data of the inline SVG of a table row: the history as
// a polyline and the current point as a dot, scaled to the box.
type sparkline struct {
	W, H   int
	Line   string
	CX, CY string
	Color  string
	Title  string
	Empty  bool
}

const sparkW, sparkH, sparkPad = 120, 26, 3.0

func newSparkline(r *regression.KPIResult) sparkline {
	s := sparkline{W: sparkW, H: sparkH, Color: hexColor(statusColor[r.Status])}
	var vals []float64
	for _, pt := range r.History {
		if finite(pt.Value) {
			vals = append(vals, pt.Value)
		}
	}
	cur := r.Current.Value
	all := vals
	if finite(cur) {
		all = append(append([]float64{}, vals...), cur)
	}
	if len(all) == 0 {
		s.Empty = true
		return s
	}
	lo, hi := all[0], all[0]
	for _, v := range all {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return sparkH / 2
		}
		return sparkPad + (hi-v)/(hi-lo)*(sparkH-2*sparkPad)
	}
	n := len(all)
	x := func(i int) float64 {
		if n == 1 {
			return sparkW / 2
		}
		return sparkPad + float64(i)*(sparkW-2*sparkPad)/float64(n-1)
	}
	var pts []string
	for i, v := range vals {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
	}
	s.Line = strings.Join(pts, " ")
	if finite(cur) {
		s.CX, s.CY = fmt.Sprintf("%.1f", x(n-1)), fmt.Sprintf("%.1f", y(cur))
	}
	s.Title = fmt.Sprintf("%d history point(s), current %s", len(vals), r.Display(cur))
	return s
}
