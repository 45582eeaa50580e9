package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/analyze/regression"
	"github.com/seshat-bench/seshat/plotting"
)

// Status colours, shared by the table rows, the sparklines and the figures.
var statusColor = map[analyze.Status]color.RGBA{
	analyze.StatusOK:              {0x3b, 0x6e, 0xa8, 0xff},
	analyze.StatusRegression:      {0xc6, 0x28, 0x28, 0xff},
	analyze.StatusImprovement:     {0x2e, 0x7d, 0x32, 0xff},
	regression.StatusAcknowledged: {0xe6, 0x7e, 0x00, 0xff},
	analyze.StatusNoisy:           {0xb2, 0x8a, 0x00, 0xff},
	analyze.StatusSuspect:         {0x7b, 0x1f, 0xa2, 0xff},
	analyze.StatusNoHistory:       {0x75, 0x75, 0x75, 0xff},
	analyze.StatusNotAnalyzed:     {0x75, 0x75, 0x75, 0xff},
}

var historyColor = color.RGBA{0x55, 0x55, 0x55, 0xff}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// Colours of the figure's marks.
var (
	runColor     = color.RGBA{0x9a, 0xa1, 0xab, 0xff}
	segmentColor = color.RGBA{0xe8, 0xf1, 0xfb, 0xff}
	floorColor   = color.NRGBA{0x9d, 0xb5, 0xd0, 0x66}
	refColor     = color.RGBA{0x33, 0x33, 0x33, 0xff}
	changeColor  = color.RGBA{0xc0, 0x1c, 0x28, 0xff}
)

// FigureWidth and FigureHeight are the size of a figure's plot, without
// its legend below.
const (
	FigureWidth  = 8 * vg.Inch
	FigureHeight = 3.2 * vg.Inch
)

// tickName names a build under its tick: its id, its short commit on a
// second line.
func tickName(pt analyze.Point) string { return plotting.BuildTick(pt.Commit, pt.Build, pt.Label) }

// drawnHistory is the history builds of r a figure draws (those with a
// value), and the tick names of them and the current build, last.
func drawnHistory(r *regression.KPIResult) ([]analyze.Point, []string) {
	if s := drawnSides(r); s != nil {
		// A/B with no store's history: the baseline side, then this one.
		return []analyze.Point{s.BaselinePoint}, []string{s.Baseline, s.Current}
	}
	var history []analyze.Point
	for _, pt := range r.History {
		if finite(pt.Value) {
			history = append(history, pt)
		}
	}
	labels := make([]string, 0, len(history)+1)
	for _, pt := range history {
		labels = append(labels, tickName(pt))
	}
	labels = append(labels, tickName(r.Current))
	return history, plotting.DistinctLabels(labels)
}

// drawnSides is an A/B result's two sides when its figures and tables show
// them, with no store's history given as context; nil otherwise.
func drawnSides(r *regression.KPIResult) *regression.Sides {
	if len(r.History) > 0 {
		return nil
	}
	return r.Sides
}

// drawn is how a figure names what it draws: the x axis title, the
// history's points and the current point (Name, with its Value): build by
// build, or the two sides of an A/B drawn without history (drawnHistory),
// each at its level.
type drawn struct {
	XTitle, History, Current string
	Point                    analyze.Point
}

func drawnNames(r *regression.KPIResult) drawn {
	if s := drawnSides(r); s != nil {
		pt := r.Current
		pt.Value = r.CurrentValue()
		return drawn{XTitle: "side of the A/B, each at its level (the geometric mean of its runs' samples)",
			History: "baseline " + s.Baseline + " (its runs and level)", Current: s.Current, Point: pt}
	}
	return drawn{XTitle: "build (id, short commit), oldest first; the last is the current build",
		History: "history build (median of its runs)", Current: "current build", Point: r.Current}
}

// newFigure draws the history of one entry x KPI, build by build (a
// history point is a build: the median of its runs), oldest first and the
// current build last, in the KPI's display unit: the runs behind each
// build, the latest stable segment the reference was measured on (shaded),
// the change points before it and the spikes left out, the reference and
// the floor band around it (reference ± the smallest change the gate
// counts), and the current build in the colour of its status. The legend
// sits below the plot.
func newFigure(e *regression.Entry, r *regression.KPIResult) (*plotting.Figure, error) {
	divisor, unit := r.DisplayScale()
	yLabel := r.KPI
	if unit != "" {
		yLabel += " (" + unit + ")"
	}
	history, labels := drawnHistory(r)
	names := drawnNames(r)
	cur := names.Point
	p := plotting.NewPlot(fmt.Sprintf("#%d %s: %s", e.ID, e.Name, r.KPI), names.XTitle, yLabel)
	n := len(history)
	labels[n] += "\n(current)"
	p.X.Tick.Marker = plotting.BuildTicks{Labels: labels, Width: FigureWidth - vg.Inch}
	y := func(v float64) float64 { return v / divisor }

	var builds, runs, spikes plotter.XYs
	var ys []float64
	base := r.Result.Baseline
	spike := map[int]bool{}
	if base != nil {
		for _, i := range base.Spikes {
			spike[i] = true
		}
	}
	for i, pt := range history {
		xy := plotter.XY{X: float64(i), Y: y(pt.Value)}
		builds = append(builds, xy)
		ys = append(ys, xy.Y)
		if spike[i] {
			spikes = append(spikes, xy)
		}
		for _, s := range pt.Samples {
			if finite(s) {
				runs = append(runs, plotter.XY{X: float64(i), Y: y(s)})
				ys = append(ys, y(s))
			}
		}
	}
	var current, currentRuns plotter.XYs
	if finite(cur.Value) {
		current = plotter.XYs{{X: float64(n), Y: y(cur.Value)}}
		ys = append(ys, current[0].Y)
		for _, s := range cur.Samples {
			if finite(s) {
				currentRuns = append(currentRuns, plotter.XY{X: float64(n), Y: y(s)})
				ys = append(ys, y(s))
			}
		}
	}
	// The reference over the latest stable segment and the current build:
	// its level, on its trend line when it has one.
	ref := r.Result.Reference
	segStart := 0
	if base != nil && base.Len > 0 {
		segStart = base.Start
	}
	level := func(x float64) float64 { return ref }
	if base != nil && base.TrendPercent != 0 && finite(base.Level) && finite(ref) && base.Level == ref {
		slope := base.TrendPercent / 100
		if base.Log {
			level = func(x float64) float64 { return ref * math.Pow(1+slope, x-float64(n)) }
		} else {
			level = func(x float64) float64 { return ref + slope*math.Abs(ref)*(x-float64(n)) }
		}
	}
	var refLine, bandLo, bandHi plotter.XYs
	if finite(ref) && n > 0 {
		for _, x := range []float64{float64(segStart), float64(n)} {
			v := y(level(x))
			refLine = append(refLine, plotter.XY{X: x, Y: v})
			ys = append(ys, v)
			if f := r.Result.Floor; finite(f) {
				lo, hi := v*(1-f/100), v*(1+f/100)
				if lo > hi {
					lo, hi = hi, lo
				}
				bandLo, bandHi = append(bandLo, plotter.XY{X: x, Y: lo}), append(bandHi, plotter.XY{X: x, Y: hi})
				ys = append(ys, lo, hi)
			}
		}
	}
	if len(ys) == 0 {
		return nil, errors.New("nothing to draw")
	}
	ylo, yhi := slices.Min(ys), slices.Max(ys)
	pad := (yhi - ylo) * 0.08
	if pad == 0 {
		pad = math.Max(math.Abs(yhi)*0.05, 1)
	}
	p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
	// Room on the right for the current build's label, centred on it.
	p.X.Min, p.X.Max = -0.6, float64(n)+0.6+0.06*float64(n+1)
	rows := 0
	add := func(name string, ts ...plot.Thumbnailer) {
		p.Legend.Add(name, ts...)
		rows++
	}
	if base != nil && n > 0 && base.Builds < n {
		x0, x1 := float64(segStart)-0.5, float64(base.Start+base.Len)-0.5
		shade, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: p.Y.Min}, {X: x1, Y: p.Y.Min}, {X: x1, Y: p.Y.Max}, {X: x0, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		shade.Color, shade.LineStyle.Width = segmentColor, 0
		p.Add(shade)
		add(fmt.Sprintf("latest stable segment (%d builds): the reference", base.Builds), shade)
	}
	if len(bandLo) == 2 {
		band, err := plotter.NewPolygon(append(slices.Clone(bandLo), bandHi[1], bandHi[0]))
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = floorColor, 0
		p.Add(band)
		add(fmt.Sprintf("floor: reference %s (smaller changes do not count)", floorText(r.Result.Floor)), band)
	}
	if base != nil && len(base.ChangePoints) > 0 {
		var first *plotter.Line
		for _, c := range base.ChangePoints {
			l, err := plotter.NewLine(plotter.XYs{{X: float64(c) - 0.5, Y: p.Y.Min}, {X: float64(c) - 0.5, Y: p.Y.Max}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = draw.LineStyle{Color: changeColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
			p.Add(l)
			if first == nil {
				first = l
			}
		}
		add("change point (a new level starts)", first)
	}
	if len(runs) > len(builds) {
		sc, err := plotter.NewScatter(runs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: runColor, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		add("runs", sc)
	}
	if len(builds) > 0 {
		line, pts, err := plotter.NewLinePoints(builds)
		if err != nil {
			return nil, err
		}
		line.Color, pts.Color = historyColor, historyColor
		pts.Shape, pts.Radius = draw.CircleGlyph{}, vg.Points(2.4)
		p.Add(line, pts)
		add(names.History, line, pts)
	}
	if len(spikes) > 0 {
		sc, err := plotter.NewScatter(spikes)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: changeColor, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
		p.Add(sc)
		add("spike, left out of the reference", sc)
	}
	if len(refLine) == 2 {
		l, err := plotter.NewLine(refLine)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: refColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		p.Add(l)
		add("reference "+r.Display(ref), l)
	}
	if len(current) > 0 {
		c := statusColor[r.Status]
		if len(currentRuns) > 1 {
			sc, err := plotter.NewScatter(currentRuns)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{c.R, c.G, c.B, 0x80}, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		sc, err := plotter.NewScatter(current)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		add(fmt.Sprintf("%s: %s, %s (%s)", names.Current, r.Display(r.CurrentValue()), delta(r.Result.DeltaPercent), r.Status), sc)
	}
	return &plotting.Figure{Name: fmt.Sprintf("entry-%d-%s", e.ID, r.KPI), Plot: p, Width: FigureWidth, Height: FigureHeight, LegendRows: rows}, nil
}

// writeFigure draws the figure of one entry x KPI as SVG.
func writeFigure(w io.Writer, e *regression.Entry, r *regression.KPIResult) error {
	f, err := newFigure(e, r)
	if err != nil {
		return err
	}
	return f.WriteSVG(w)
}

// floorText is the floor band as "±3.0%".
func floorText(v float64) string { return floor(v) }

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
