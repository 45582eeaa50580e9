package plotting

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The drawing functions are the second phase of a figure: each reads the
// named columns of a DataFrame and returns a plot. They never compute
// statistics a reader has not been shown: the DataFrame holds what is drawn.

// column returns a column's values, or an error naming the missing column.
func column(df dataframe.DataFrame, name string) ([]string, error) {
	if df.Err != nil {
		return nil, df.Err
	}
	if !slices.Contains(df.Names(), name) {
		return nil, fmt.Errorf("figure data has no column %q (columns: %v)", name, df.Names())
	}
	return df.Col(name).Records(), nil
}

func floatColumn(df dataframe.DataFrame, name string) ([]float64, error) {
	if _, err := column(df, name); err != nil {
		return nil, err
	}
	return df.Col(name).Float(), nil
}

// groupOrder returns the given order, or the groups in order of appearance.
func groupOrder(order, values []string) []string {
	if order != nil {
		return order
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// DistSpec describes a distribution figure: one box or violin per group.
type DistSpec struct {
	Title, YLabel string
	Group, Value  string   // columns
	Groups        []string // order of the groups; nil: order of appearance
	Violin        bool
}

// maxDrawnPoints bounds the runs drawn as dots over a box or violin: beyond
// it the dots hide the shape and bloat the SVG.
const maxDrawnPoints = 60

// Distribution draws the values of each group as a box plot (Tukey's) or a
// violin (a Gaussian kernel density estimate mirrored around the group's
// position, with the interquartile range and the median inside), and the
// values themselves as dots when they are few.
func Distribution(df dataframe.DataFrame, s DistSpec) (*plot.Plot, error) {
	groups, err := column(df, s.Group)
	if err != nil {
		return nil, err
	}
	values, err := floatColumn(df, s.Value)
	if err != nil {
		return nil, err
	}
	byGroup := map[string][]float64{}
	for i, g := range groups {
		if v := values[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			byGroup[g] = append(byGroup[g], v)
		}
	}
	p := newPlot(s.Title, "", s.YLabel)
	var names []string
	for i, g := range groupOrder(s.Groups, groups) {
		vs := byGroup[g]
		names = append(names, fmt.Sprintf("%s (n=%d)", g, len(vs)))
		if len(vs) == 0 {
			continue
		}
		x := float64(i)
		c := Color(i)
		if s.Violin {
			if err := addViolin(p, x, vs, c); err != nil {
				return nil, err
			}
		} else {
			b, err := plotter.NewBoxPlot(vg.Points(46), x, plotter.Values(vs))
			if err != nil {
				return nil, err
			}
			b.FillColor = withAlpha(c, 0x59)
			b.BoxStyle.Color, b.MedianStyle.Color, b.WhiskerStyle.Color = inkColor, inkColor, inkColor
			b.MedianStyle.Width = vg.Points(1.6)
			b.GlyphStyle.Color = inkColor
			p.Add(b)
		}
		if len(vs) <= maxDrawnPoints {
			if err := addDots(p, x, vs, c); err != nil {
				return nil, err
			}
		}
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	return p, nil
}

// addDots draws values as dots spread evenly across a narrow strip (a fixed
// jitter: the same data draws the same picture).
func addDots(p *plot.Plot, x float64, vs []float64, c color.NRGBA) error {
	xys := make(plotter.XYs, len(vs))
	for i, v := range vs {
		off := 0.0
		if len(vs) > 1 {
			off = 0.16 * (float64(i)/float64(len(vs)-1) - 0.5)
		}
		xys[i] = plotter.XY{X: x + off, Y: v}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: darker(c), Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	p.Add(sc)
	return nil
}

// violinHalfWidth is the widest half of a violin in x units (groups are 1 apart).
const violinHalfWidth = 0.38

// addViolin draws the KDE outline of vs as a polygon around x, the
// interquartile range as a thick line and the median as a white dot. A
// sample with fewer than two distinct values has no density: it is drawn as
// a flat bar at its value.
func addViolin(p *plot.Plot, x float64, vs []float64, c color.NRGBA) error {
	sum := Summarize(vs)
	k, ok := EstimateDensity(vs, 96)
	if !ok {
		l, err := plotter.NewLine(plotter.XYs{{X: x - violinHalfWidth, Y: sum.Median}, {X: x + violinHalfWidth, Y: sum.Median}})
		if err != nil {
			return err
		}
		l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(3)}
		p.Add(l)
		return nil
	}
	peak := slices.Max(k.Density)
	ring := make(plotter.XYs, 0, 2*len(k.X))
	for i := range k.X {
		ring = append(ring, plotter.XY{X: x + violinHalfWidth*k.Density[i]/peak, Y: k.X[i]})
	}
	for i := len(k.X) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: x - violinHalfWidth*k.Density[i]/peak, Y: k.X[i]})
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	poly.Color = withAlpha(c, 0x73)
	poly.LineStyle = draw.LineStyle{Color: darker(c), Width: vg.Points(1)}
	iqr, err := plotter.NewLine(plotter.XYs{{X: x, Y: sum.P25}, {X: x, Y: sum.P75}})
	if err != nil {
		return err
	}
	iqr.LineStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(4)}
	med, err := plotter.NewScatter(plotter.XYs{{X: x, Y: sum.Median}})
	if err != nil {
		return err
	}
	med.GlyphStyle = draw.GlyphStyle{Color: white, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
	p.Add(poly, iqr, med)
	return nil
}

// BandSpec describes lines with a band: per group, the Y column drawn as a
// line against X, and the band between the Lo and Hi columns.
type BandSpec struct {
	Title, XLabel, YLabel string
	Group, X, Y, Lo, Hi   string // columns
	Groups                []string
	// XCategories, when set, names the x positions 0..n-1 (a setting that is
	// not a number).
	XCategories []string
	LogX, LogY  bool
}

// Band draws, for each group, a line through (X, Y) with points and a
// translucent band between Lo and Hi. Rows must be sorted by X within each
// group.
func Band(df dataframe.DataFrame, s BandSpec) (*plot.Plot, error) {
	groups, err := column(df, s.Group)
	if err != nil {
		return nil, err
	}
	cols := map[string][]float64{}
	for _, name := range []string{s.X, s.Y, s.Lo, s.Hi} {
		if cols[name], err = floatColumn(df, name); err != nil {
			return nil, err
		}
	}
	xs, ys, los, his := cols[s.X], cols[s.Y], cols[s.Lo], cols[s.Hi]
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	var allX []float64
	for gi, g := range groupOrder(s.Groups, groups) {
		var line, lower, upper plotter.XYs
		for i := range groups {
			if groups[i] != g || !finite(xs[i]) || !finite(ys[i]) {
				continue
			}
			line = append(line, plotter.XY{X: xs[i], Y: ys[i]})
			lower = append(lower, plotter.XY{X: xs[i], Y: los[i]})
			upper = append(upper, plotter.XY{X: xs[i], Y: his[i]})
			allX = append(allX, xs[i])
		}
		if len(line) == 0 {
			continue
		}
		c := Color(gi)
		if len(line) > 1 {
			ring := append(slices.Clone(lower), reversed(upper)...)
			band, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, err
			}
			band.Color = withAlpha(c, 0x40)
			band.LineStyle.Width = 0
			p.Add(band)
		} else {
			bar, err := plotter.NewYErrorBars(yErrors{xy: line[0], lo: lower[0].Y, hi: upper[0].Y})
			if err != nil {
				return nil, err
			}
			bar.LineStyle = draw.LineStyle{Color: withAlpha(c, 0x99), Width: vg.Points(6)}
			bar.CapWidth = 0
			p.Add(bar)
		}
		l, pts, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.8)}
		pts.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}
		p.Add(l, pts)
		p.Legend.Add(g, l, pts)
	}
	setXTicks(p, allX, s.XCategories, s.LogX)
	if s.LogY {
		setLogY(p)
	}
	p.Legend.Left = true
	return p, nil
}

// setXTicks labels the x axis at the values drawn (matrix sizes read better
// as 512, 1024 than as 500, 1000), on a log scale when asked.
func setXTicks(p *plot.Plot, xs []float64, categories []string, logX bool) {
	if categories != nil {
		p.NominalX(categories...)
		p.X.Min, p.X.Max = -0.4, float64(len(categories))-0.6
		return
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(xs)))
	if logX && len(distinct) > 0 && distinct[0] > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = distinct[0]/1.25, distinct[len(distinct)-1]*1.25
	}
	if len(distinct) > 0 && len(distinct) <= 12 {
		ticks := make(plot.ConstantTicks, len(distinct))
		for i, x := range distinct {
			ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 6, 64)}
		}
		p.X.Tick.Marker = ticks
	} else if logX {
		p.X.Tick.Marker = logTicks{}
	}
}

// setLogY puts the y axis on a log scale when the plotted range allows.
func setLogY(p *plot.Plot) {
	if !(p.Y.Min > 0) {
		return
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
}

// PointsSpec describes a dot-and-whisker figure: categories on the x axis,
// one dot per group within each category, whiskers from Lo to Hi and an
// optional second marker (Mean).
type PointsSpec struct {
	Title, XLabel, YLabel string
	Category, Group       string // columns
	Y, Lo, Hi, Mean       string // columns; Mean may be ""
	Categories, Groups    []string
}

// Points draws, for each category and group, the Y value as a dot with a
// whisker from Lo to Hi, and the Mean as a cross; groups within a category
// are side by side.
func Points(df dataframe.DataFrame, s PointsSpec) (*plot.Plot, error) {
	cats, err := column(df, s.Category)
	if err != nil {
		return nil, err
	}
	groups, err := column(df, s.Group)
	if err != nil {
		return nil, err
	}
	names := []string{s.Y, s.Lo, s.Hi}
	if s.Mean != "" {
		names = append(names, s.Mean)
	}
	cols := map[string][]float64{}
	for _, n := range names {
		if cols[n], err = floatColumn(df, n); err != nil {
			return nil, err
		}
	}
	catOrder := groupOrder(s.Categories, cats)
	grpOrder := groupOrder(s.Groups, groups)
	catIndex := map[string]int{}
	for i, c := range catOrder {
		catIndex[c] = i
	}
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	step := 0.7 / float64(max(len(grpOrder), 1))
	for gi, g := range grpOrder {
		var xys plotter.XYs
		var errs []lowHigh
		var means plotter.XYs
		for i := range cats {
			if groups[i] != g || !finite(cols[s.Y][i]) {
				continue
			}
			x := float64(catIndex[cats[i]]) + step*(float64(gi)-float64(len(grpOrder)-1)/2)
			y := cols[s.Y][i]
			xys = append(xys, plotter.XY{X: x, Y: y})
			errs = append(errs, lowHigh{y - cols[s.Lo][i], cols[s.Hi][i] - y})
			if s.Mean != "" && finite(cols[s.Mean][i]) {
				means = append(means, plotter.XY{X: x, Y: cols[s.Mean][i]})
			}
		}
		if len(xys) == 0 {
			continue
		}
		c := Color(gi)
		bars, err := plotter.NewYErrorBars(multiYErrors{xys, errs})
		if err != nil {
			return nil, err
		}
		bars.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.4)}
		bars.CapWidth = vg.Points(6)
		dots, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3.2), Shape: draw.CircleGlyph{}}
		p.Add(bars, dots)
		p.Legend.Add(g, dots)
		if len(means) > 0 {
			m, err := plotter.NewScatter(means)
			if err != nil {
				return nil, err
			}
			m.GlyphStyle = draw.GlyphStyle{Color: inkColor, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
			p.Add(m)
		}
	}
	// Category names such as "dtype=float32, matrix_size=1024" break after
	// their commas, so that neighbours do not overlap.
	labels := make([]string, len(catOrder))
	for i, c := range catOrder {
		labels[i] = strings.ReplaceAll(c, ", ", "\n")
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(catOrder))-0.5
	return p, nil
}

// IntervalSpec describes a forest plot: one row per comparison, a value with
// its interval, and a reference line.
type IntervalSpec struct {
	Title, XLabel    string
	Label, X, Lo, Hi string // columns
	Reference        float64
	LogX             bool
}

// Intervals draws each row's X as a dot with a horizontal interval from Lo
// to Hi (rows without an interval get the dot only), the first row on top,
// and a dashed vertical line at Reference.
func Intervals(df dataframe.DataFrame, s IntervalSpec) (*plot.Plot, error) {
	labels, err := column(df, s.Label)
	if err != nil {
		return nil, err
	}
	cols := map[string][]float64{}
	for _, n := range []string{s.X, s.Lo, s.Hi} {
		if cols[n], err = floatColumn(df, n); err != nil {
			return nil, err
		}
	}
	p := newPlot(s.Title, s.XLabel, "")
	n := len(labels)
	var xys, withCI plotter.XYs
	var errs []lowHigh
	lo, hi := s.Reference, s.Reference
	for i := range labels {
		x := cols[s.X][i]
		if !finite(x) {
			continue
		}
		y := float64(n - 1 - i)
		xys = append(xys, plotter.XY{X: x, Y: y})
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		if l, h := cols[s.Lo][i], cols[s.Hi][i]; finite(l) && finite(h) {
			withCI = append(withCI, plotter.XY{X: x, Y: y})
			errs = append(errs, lowHigh{x - l, h - x})
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
	}
	ref, err := plotter.NewLine(plotter.XYs{{X: s.Reference, Y: -0.5}, {X: s.Reference, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, err
	}
	ref.LineStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	p.Add(ref)
	if len(withCI) > 0 {
		bars, err := plotter.NewXErrorBars(multiXErrors{withCI, errs})
		if err != nil {
			return nil, err
		}
		bars.LineStyle = draw.LineStyle{Color: Color(0), Width: vg.Points(1.6)}
		bars.CapWidth = vg.Points(7)
		p.Add(bars)
	}
	if len(xys) > 0 {
		dots, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: Color(0), Radius: vg.Points(3.4), Shape: draw.CircleGlyph{}}
		p.Add(dots)
	}
	rev := slices.Clone(labels)
	slices.Reverse(rev)
	p.NominalY(rev...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = math.Abs(s.Reference)*0.1 + 0.1
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if s.LogX && lo > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
		p.X.Tick.Marker = logTicks{}
	}
	return p, nil
}

// TimeSpec describes lines over time (or builds) with marked points.
type TimeSpec struct {
	Title, XLabel, YLabel string
	Series                string // column naming the line of each row
	Time                  string // column of the x position: Unix seconds, or a build's index
	Value                 string // column
	// Lo and Hi, when set, are columns bounding each point (the range of
	// a build's runs), drawn as a bar where they differ.
	Lo, Hi string
	Mark   string // bool column: the rows marked (change points); may be ""
	Order  []string
	// XTicks labels the x axis; TimeTicks (calendar boundaries) when nil.
	XTicks plot.Ticker
	// Baseline draws a dashed line at y = 0 (values relative to a level).
	Baseline bool
	// LegendWidth, when set, wraps each legend entry to lines of that
	// width (WrapLegend).
	LegendWidth vg.Length
}

// Time draws each series as a line over time, rows in time order, with the
// marked rows as red triangles (in the legend as "change point").
func Time(df dataframe.DataFrame, s TimeSpec) (*plot.Plot, error) {
	series, err := column(df, s.Series)
	if err != nil {
		return nil, err
	}
	ts, err := floatColumn(df, s.Time)
	if err != nil {
		return nil, err
	}
	vs, err := floatColumn(df, s.Value)
	if err != nil {
		return nil, err
	}
	var los, his []float64
	if s.Lo != "" && s.Hi != "" {
		if los, err = floatColumn(df, s.Lo); err != nil {
			return nil, err
		}
		if his, err = floatColumn(df, s.Hi); err != nil {
			return nil, err
		}
	}
	var marks []string
	if s.Mark != "" {
		if marks, err = column(df, s.Mark); err != nil {
			return nil, err
		}
	}
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	p.Y.Tick.Marker = NumberTicks{Signed: s.Baseline}
	p.X.Tick.Marker = s.XTicks
	if s.XTicks == nil {
		p.X.Tick.Marker = TimeTicks{}
	}
	var marked, all plotter.XYs
	for gi, g := range groupOrder(s.Order, series) {
		var xys plotter.XYs
		var bars []lowHigh
		var barXYs plotter.XYs
		for i := range series {
			if series[i] != g || !finite(vs[i]) || !finite(ts[i]) {
				continue
			}
			xy := plotter.XY{X: ts[i], Y: vs[i]}
			xys = append(xys, xy)
			all = append(all, xy)
			if los != nil && finite(los[i]) && finite(his[i]) && his[i] > los[i] {
				barXYs = append(barXYs, xy)
				bars = append(bars, lowHigh{vs[i] - los[i], his[i] - vs[i]})
				all = append(all, plotter.XY{X: ts[i], Y: los[i]}, plotter.XY{X: ts[i], Y: his[i]})
			}
			if marks != nil && marks[i] == "true" {
				marked = append(marked, xy)
			}
		}
		if len(xys) == 0 {
			continue
		}
		c := Color(gi)
		if len(bars) > 0 {
			b, err := plotter.NewYErrorBars(multiYErrors{barXYs, bars})
			if err != nil {
				return nil, err
			}
			b.LineStyle = draw.LineStyle{Color: withAlpha(c, 0x80), Width: vg.Points(1.2)}
			b.CapWidth = 0
			p.Add(b)
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.4)}
		pts.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		p.Add(l, pts)
		name := g
		if s.LegendWidth > 0 {
			name = strings.Join(WrapLegend(g, s.LegendWidth), "\n")
		}
		p.Legend.Add(name, l, pts)
	}
	if s.Baseline && len(all) > 0 {
		xlo, xhi, _, _ := plotter.XYRange(all)
		base, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: 0}, {X: xhi, Y: 0}})
		if err != nil {
			return nil, err
		}
		base.LineStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(base)
	}
	if len(marked) > 0 {
		m, err := plotter.NewScatter(marked)
		if err != nil {
			return nil, err
		}
		m.GlyphStyle = draw.GlyphStyle{Color: markColor, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
		p.Add(m)
		p.Legend.Add("change point", m)
	}
	if len(all) > 0 {
		// Room at the ends, so that the first and last points (the
		// current build) are not cut by the frame.
		xlo, xhi, _, _ := plotter.XYRange(all)
		pad := (xhi - xlo) * 0.02
		switch {
		case s.XTicks != nil:
			// Builds are one apart; the last label, centred on the
			// last build, needs room on the right.
			pad = 0.5 + 0.03*(xhi-xlo)
		case pad == 0:
			pad = 3600
		}
		p.X.Min, p.X.Max = xlo-pad, xhi+pad
	}
	p.Legend.Left = true
	return p, nil
}

// logTicks labels a log axis at 1, 2 and 5 times the powers of ten (gonum's
// LogTicks labels powers of ten only, too few on a short range), with
// unlabelled ticks between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// precTicks are gonum's default ticks labelled with as many decimals as
// their spacing needs (gonum's own labels can repeat on a narrow range:
// 0.9995, 1, 1).
type precTicks struct{}

func (precTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	var labelled []float64
	for _, t := range ticks {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	step := math.Inf(1)
	for i := 1; i < len(labelled); i++ {
		step = math.Min(step, labelled[i]-labelled[i-1])
	}
	decimals := 0
	if step > 0 && !math.IsInf(step, 0) {
		decimals = max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', decimals, 64)
		}
	}
	return ticks
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func reversed(xys plotter.XYs) plotter.XYs {
	out := slices.Clone(xys)
	slices.Reverse(out)
	return out
}

type lowHigh struct{ low, high float64 }

// yErrors is one point with an absolute interval, as YErrorBars wants it.
type yErrors struct {
	xy     plotter.XY
	lo, hi float64
}

func (e yErrors) Len() int                      { return 1 }
func (e yErrors) XY(int) (float64, float64)     { return e.xy.X, e.xy.Y }
func (e yErrors) YError(int) (float64, float64) { return e.xy.Y - e.lo, e.hi - e.xy.Y }

type multiYErrors struct {
	xys  plotter.XYs
	errs []lowHigh
}

func (m multiYErrors) Len() int                        { return len(m.xys) }
func (m multiYErrors) XY(i int) (float64, float64)     { return m.xys[i].X, m.xys[i].Y }
func (m multiYErrors) YError(i int) (float64, float64) { return m.errs[i].low, m.errs[i].high }

type multiXErrors struct {
	xys  plotter.XYs
	errs []lowHigh
}

func (m multiXErrors) Len() int                        { return len(m.xys) }
func (m multiXErrors) XY(i int) (float64, float64)     { return m.xys[i].X, m.xys[i].Y }
func (m multiXErrors) XError(i int) (float64, float64) { return m.errs[i].low, m.errs[i].high }
