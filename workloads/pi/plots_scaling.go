package pi

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
)

// DefaultXKey is the setting the scaling report draws on the x axis.
const DefaultXKey = "matrix_size"

// xKeyOf picks the x key: --x-key, else matrix_size, else the first shape
// setting that varies. The second result says why there is none.
func xKeyOf(ctx *plotting.Context) (string, string) {
	if ctx.XKey != "" {
		if _, ok := ctx.Variables[ctx.XKey]; !ok {
			return "", fmt.Sprintf("The setting %s given as --x-key takes fewer than two values among these entries.", ctx.XKey)
		}
		return ctx.XKey, ""
	}
	if _, ok := ctx.Variables[DefaultXKey]; ok {
		return DefaultXKey, ""
	}
	for _, l := range shapeLabels {
		if _, ok := ctx.Variables[l.Name]; ok {
			return l.Name, ""
		}
	}
	return "", "No setting that sizes the work (matrix_size, batch, input sizes...) varies among these entries; choose one with --x-key."
}

// xAxis is how the x key's values are placed: by value when they are all
// numbers, else as ordered categories.
type xAxis struct {
	numeric    bool
	categories []string // ordered texts, for categories
	log        bool
}

func newXAxis(runs []measured) xAxis {
	var values []any
	numeric := true
	for _, r := range runs {
		values = append(values, r.x)
		if _, ok := number(r.x); !ok {
			numeric = false
		}
	}
	models.SortValues(values)
	a := xAxis{numeric: numeric}
	if numeric {
		lo, _ := number(values[0])
		hi, _ := number(values[len(values)-1])
		a.log = lo > 0 && hi/lo >= 8
		return a
	}
	for _, v := range values {
		if t := valueOrUnset(v); !slices.Contains(a.categories, t) {
			a.categories = append(a.categories, t)
		}
	}
	return a
}

func (a xAxis) position(v any) float64 {
	if a.numeric {
		f, _ := number(v)
		return f
	}
	return float64(slices.Index(a.categories, valueOrUnset(v)))
}

// number is a setting as a finite number, for an axis.
func number(v any) (float64, bool) {
	f, ok := models.Number(v)
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// scalingFrame aggregates a panel's runs per batch and x value: n, median,
// p25 and p75 of the metric, rows sorted by batch then x.
func (s *shape) scalingFrame(panel string, m metric, ax xAxis) dataframe.DataFrame {
	type cell struct {
		batch string
		x     float64
		text  string
		vs    []float64
	}
	var cells []*cell
	index := map[string]*cell{}
	for _, r := range s.runs {
		v := r.elapsed
		if m == metricRate {
			v = r.rate
		}
		if r.panel != panel || math.IsNaN(v) {
			continue
		}
		key := r.batch + "\x00" + valueOrUnset(r.x)
		c := index[key]
		if c == nil {
			c = &cell{batch: r.batch, x: ax.position(r.x), text: valueOrUnset(r.x)}
			index[key] = c
			cells = append(cells, c)
		}
		c.vs = append(c.vs, v)
	}
	slices.SortStableFunc(cells, func(a, b *cell) int {
		if ia, ib := slices.Index(s.batches, a.batch), slices.Index(s.batches, b.batch); ia != ib {
			return ia - ib
		}
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	var batches, texts []string
	var xs, med, p25, p75 []float64
	var n []int
	for _, c := range cells {
		sum := plotting.Summarize(c.vs)
		batches, texts = append(batches, c.batch), append(texts, c.text)
		xs, n = append(xs, c.x), append(n, sum.N)
		med, p25, p75 = append(med, sum.Median), append(p25, sum.P25), append(p75, sum.P75)
	}
	return dataframe.New(
		series.New(batches, series.String, s.batchLabel()),
		series.New(texts, series.String, s.xKey),
		series.New(xs, series.Float, "x"),
		series.New(n, series.Int, "n"),
		series.New(med, series.Float, m.column+"_median"),
		series.New(p25, series.Float, m.column+"_p25"),
		series.New(p75, series.Float, m.column+"_p75"),
	)
}

func (s *shape) scalingFigure(panel string, m metric, ax xAxis) (*plotting.Figure, error) {
	df := s.scalingFrame(panel, m, ax)
	if df.Nrow() == 0 {
		return nil, nil
	}
	title := fmt.Sprintf("%s against %s — %s", capitalize(m.label), s.xKey, panelTitle(panel))
	logY := false
	if m == metricElapsed {
		lo, hi := slicesMinMax(df.Col(m.column + "_p25").Float())
		logY = lo > 0 && hi/lo >= 20
	}
	batches := s.presentBatches(df)
	p, err := plotting.Band(df, plotting.BandSpec{
		Title: title, XLabel: s.xKey, YLabel: m.axis(),
		Group: s.batchLabel(), X: "x", Y: m.column + "_median", Lo: m.column + "_p25", Hi: m.column + "_p75",
		Groups: batches, XCategories: ax.categories, LogX: ax.log, LogY: logY,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	return &plotting.Figure{
		Name:       figureName(m.column, "vs", s.xKey, panel),
		Title:      title,
		Alt:        fmt.Sprintf("Median %s in %s against %s, one line per %s with a band from the 25th to the 75th percentile, %s.", m.label, m.unit, s.xKey, s.batchLabel(), panelTitle(panel)),
		Caption:    "Lines join the medians of the runs at each value; bands span p25–p75.",
		Data:       df,
		Plot:       p,
		LegendRows: len(batches),
	}, nil
}

func slicesMinMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if !math.IsNaN(x) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo, hi
}

// scaling builds the scaling page for the given metrics.
func scaling(ctx *plotting.Context, title string, metrics ...metric) (*plotting.Page, error) {
	xKey, why := xKeyOf(ctx)
	page := &plotting.Page{Title: title}
	if xKey == "" {
		page.Empty = why
		return page, nil
	}
	shared := newShape(ctx, xKey)
	s := &shape{}
	*s = *shared
	s.notes = slices.Clone(shared.notes)
	page.Summary = fmt.Sprintf("Median %s of the successful runs against %s, one line per %s, with the band between the 25th and 75th percentiles of the runs at each value.",
		metricNames(metrics), xKey, s.batchLabel())
	var withX []measured
	for _, r := range s.runs {
		if r.x != nil {
			withX = append(withX, r)
		}
	}
	if missing := len(s.runs) - len(withX); missing > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d runs have no %s setting and are left out.", missing, xKey))
	}
	s.runs = withX
	if len(s.runs) == 0 {
		page.Empty = s.emptyReason(ctx, "a measurement and a "+xKey)
		page.Notes = s.notes
		return page, nil
	}
	ax := newXAxis(s.runs)
	for _, panel := range s.panels {
		sec := plotting.Section{Title: sectionTitle(panel)}
		for _, m := range metrics {
			f, err := s.scalingFigure(panel, m, ax)
			if err != nil {
				return nil, err
			}
			if f != nil {
				sec.Figures = append(sec.Figures, f)
			}
		}
		if len(sec.Figures) > 0 {
			page.Sections = append(page.Sections, sec)
		}
	}
	if len(page.Sections) == 0 {
		page.Empty = s.emptyReason(ctx, "a "+metricNames(metrics))
	}
	page.Notes = append(page.Notes, s.skippedNotes()...)
	return page, nil
}

func metricNames(ms []metric) string {
	if len(ms) == 2 {
		return ms[0].label + " and " + ms[1].label
	}
	return ms[0].label
}

func scalingReport(ctx *plotting.Context) (*plotting.Page, error) {
	return scaling(ctx, ReportScaling, metricRate, metricElapsed)
}

func scalingPlot(m metric) func(*plotting.Context) (*plotting.Page, error) {
	title := PlotRateScaling
	if m == metricElapsed {
		title = PlotElapsedScaling
	}
	return func(ctx *plotting.Context) (*plotting.Page, error) { return scaling(ctx, title, m) }
}
