package pi

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/plotting"
)

// ratePerBatchReport: box and violin plots of the rate per batch, one
// section per panel.
func ratePerBatchReport(ctx *plotting.Context) (*plotting.Page, error) {
	s := newShape(ctx, "")
	page := &plotting.Page{
		Title: ReportRatePerBatch,
		Summary: fmt.Sprintf("The rate of every successful run (one value per run, GFLOPS from its median time), grouped by %s. "+
			"Runs whose settings size the work differently are drawn in separate panels.", s.batchLabel()),
	}
	if !s.hasRate() {
		page.Empty = s.emptyReason(ctx, "a rate")
		page.Notes = s.notes
		return page, nil
	}
	for _, panel := range s.panels {
		var figs []*plotting.Figure
		for _, violin := range []bool{false, true} {
			f, err := s.distributionFigure(panel, violin)
			if err != nil {
				return nil, err
			}
			if f != nil {
				figs = append(figs, f)
			}
		}
		if len(figs) == 0 {
			page.Notes = append(page.Notes, fmt.Sprintf("%s: no run has a rate (the import PI measures time only).", panelTitle(panel)))
			continue
		}
		page.Sections = append(page.Sections, plotting.Section{Title: sectionTitle(panel), Figures: figs})
	}
	page.Notes = append(page.Notes, s.skippedNotes()...)
	return page, nil
}

// ratePlot is the "Rate box plot" and "Rate violin plot" plots: the figures
// of the report without the rest.
func ratePlot(violin bool) func(*plotting.Context) (*plotting.Page, error) {
	return func(ctx *plotting.Context) (*plotting.Page, error) {
		page, err := ratePerBatchReport(ctx)
		if err != nil || page.Empty != "" {
			return page, err
		}
		page.Title, page.Summary = PlotRateBox, ""
		if violin {
			page.Title = PlotRateViolin
		}
		for i := range page.Sections {
			page.Sections[i].Figures = page.Sections[i].Figures[boolIndex(violin):][:1]
		}
		return page, nil
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sectionTitle(panel string) string {
	if panel == "" {
		return "All runs"
	}
	return panel
}

// withFinite keeps the rows of df whose column holds a finite number.
func withFinite(df dataframe.DataFrame, col string) dataframe.DataFrame {
	return df.Filter(dataframe.F{Colname: col, Comparator: series.CompFunc, Comparando: func(el series.Element) bool {
		v := el.Float()
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	}})
}

// presentBatches lists, in batch order, the batches with a value in df.
func (s *shape) presentBatches(df dataframe.DataFrame) []string {
	present := df.Col(s.batchLabel()).Records()
	return slices.DeleteFunc(slices.Clone(s.batches), func(b string) bool { return !slices.Contains(present, b) })
}

// distributionFigure draws the rates of one panel per batch; nil when the
// panel has no rate.
func (s *shape) distributionFigure(panel string, violin bool) (*plotting.Figure, error) {
	df := withFinite(s.runsFrame(panel), metricRate.column)
	if df.Nrow() == 0 {
		return nil, nil
	}
	batches := s.presentBatches(df)
	kind, name := "Box plots", "box"
	caption := "Boxes span p25–p75 with the median; whiskers reach the furthest run within 1.5 IQR of the box; dots are runs."
	if violin {
		kind, name = "Violin plots", "violin"
		caption = "Violins are Gaussian kernel density estimates of the runs' rates (Silverman's bandwidth), cut at the observed range; the bar spans p25–p75 and the white dot is the median."
	}
	title := fmt.Sprintf("Rate per %s — %s", s.batchLabel(), panelTitle(panel))
	p, err := plotting.Distribution(df, plotting.DistSpec{
		Title: title, YLabel: metricRate.axis(), Group: s.batchLabel(), Value: metricRate.column,
		Groups: batches, Violin: violin,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	return &plotting.Figure{
		Name:    figureName("rate", name, panel),
		Title:   title,
		Alt:     fmt.Sprintf("%s of the rate in GFLOPS of %d runs per %s (%s), %s.", kind, df.Nrow(), s.batchLabel(), strings.Join(batches, ", "), panelTitle(panel)),
		Caption: caption,
		Data:    df,
		Plot:    p,
	}, nil
}

// statsFrame is the per-batch statistics of a metric, one row per panel and
// batch with at least one value.
func (s *shape) statsFrame(m metric) dataframe.DataFrame {
	var panels, batches []string
	var n []int
	cols := map[string][]float64{}
	names := []string{"median", "mean", "std", "cv", "p5", "p25", "p75", "p95", "min", "max"}
	for _, panel := range s.panels {
		for _, batch := range s.batches {
			vs := s.values(panel, batch, m)
			if len(vs) == 0 {
				continue
			}
			sum := plotting.Summarize(vs)
			panels = append(panels, panelTitle(panel))
			batches = append(batches, batch)
			n = append(n, sum.N)
			for i, v := range []float64{sum.Median, sum.Mean, sum.Std, sum.CV, sum.P5, sum.P25, sum.P75, sum.P95, sum.Min, sum.Max} {
				cols[names[i]] = append(cols[names[i]], v)
			}
		}
	}
	out := []series.Series{
		series.New(panels, series.String, "panel"),
		series.New(batches, series.String, s.batchLabel()),
		series.New(n, series.Int, "n"),
	}
	for _, name := range names {
		out = append(out, series.New(cols[name], series.Float, m.column+"_"+name))
	}
	return dataframe.New(out...)
}

// statsTable renders a statistics frame.
func (s *shape) statsTable(df dataframe.DataFrame, m metric) *plotting.Table {
	t := &plotting.Table{
		Caption: fmt.Sprintf("%s (%s) per %s", capitalize(m.label), m.unit, s.batchLabel()),
		Columns: []string{"panel", s.batchLabel(), "n", "median", "mean", "std", "CV", "p5", "p95"},
	}
	if len(s.panels) == 1 && s.panels[0] == "" {
		t.Columns = t.Columns[1:]
	}
	panels := df.Col("panel").Records()
	batches := df.Col(s.batchLabel()).Records()
	n, _ := df.Col("n").Int()
	col := func(name string) []float64 { return df.Col(m.column + "_" + name).Float() }
	med, mean, std, cv, p5, p95 := col("median"), col("mean"), col("std"), col("cv"), col("p5"), col("p95")
	for i := range panels {
		var row []plotting.Cell
		if len(t.Columns) == 9 {
			row = append(row, plotting.Text(panels[i]))
		}
		row = append(row, plotting.Text(batches[i]), plotting.Int(n[i]),
			plotting.Num("%.4g", med[i]), plotting.Num("%.4g", mean[i]), plotting.Num("%.3g", std[i]),
			plotting.Num("%.2f%%", 100*cv[i]), plotting.Num("%.4g", p5[i]), plotting.Num("%.4g", p95[i]))
		t.AddRow(row...)
	}
	return t
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// statsFigure draws the median of each panel and batch with p5–p95
// whiskers and the mean.
func (s *shape) statsFigure(df dataframe.DataFrame, m metric) (*plotting.Figure, error) {
	title := fmt.Sprintf("Median %s per %s, p5–p95", m.label, s.batchLabel())
	cats := make([]string, len(s.panels))
	for i, p := range s.panels {
		cats[i] = panelTitle(p)
	}
	p, err := plotting.Points(df, plotting.PointsSpec{
		Title: title, YLabel: m.axis(), Category: "panel", Group: s.batchLabel(),
		Y: m.column + "_median", Lo: m.column + "_p5", Hi: m.column + "_p95", Mean: m.column + "_mean",
		Categories: cats, Groups: s.batches,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	return &plotting.Figure{
		Name:       figureName(m.column, "statistics"),
		Title:      title,
		Alt:        fmt.Sprintf("Median %s in %s of each %s with whiskers from the 5th to the 95th percentile and a cross at the mean, for %d panel(s).", m.label, m.unit, s.batchLabel(), len(cats)),
		Caption:    "Dots are medians, whiskers span p5–p95, crosses are means.",
		Data:       df,
		Plot:       p,
		Width:      min(max(6, 1.7*plotting.Length(len(cats))), 16) * plotting.Inch,
		LegendRows: len(s.batches),
	}, nil
}

// batchStatisticsReport: statistics tables of rate and elapsed time and a
// figure of the rate's (or, without rates, the elapsed time's).
func batchStatisticsReport(ctx *plotting.Context) (*plotting.Page, error) {
	s := newShape(ctx, "")
	page := &plotting.Page{
		Title: ReportBatchStatistics,
		Summary: fmt.Sprintf("Statistics of the successful runs of each %s: count, median, mean, sample standard deviation, "+
			"coefficient of variation (std/mean) and the 5th and 95th percentiles.", s.batchLabel()),
	}
	if len(s.runs) == 0 {
		page.Empty = s.emptyReason(ctx, "a measurement")
		page.Notes = s.notes
		return page, nil
	}
	main := metricElapsed
	if s.hasRate() {
		main = metricRate
	}
	df := s.statsFrame(main)
	fig, err := s.statsFigure(df, main)
	if err != nil {
		return nil, err
	}
	sec := plotting.Section{Title: "Statistics", Figures: []*plotting.Figure{fig}, Tables: []*plotting.Table{s.statsTable(df, main)}}
	if main == metricRate {
		sec.Tables = append(sec.Tables, s.statsTable(s.statsFrame(metricElapsed), metricElapsed))
	}
	page.Sections = []plotting.Section{sec}
	page.Notes = append(page.Notes, s.skippedNotes()...)
	if slices.ContainsFunc(s.runs, func(r measured) bool { return math.IsNaN(r.rate) }) && main == metricRate {
		page.Notes = append(page.Notes, "Runs without a rate (the import PI) count in the elapsed time table only.")
	}
	return page, nil
}

// rateStatisticsPlot is the figure of the statistics report.
func rateStatisticsPlot(ctx *plotting.Context) (*plotting.Page, error) {
	page, err := batchStatisticsReport(ctx)
	if err != nil || page.Empty != "" {
		return page, err
	}
	page.Title, page.Summary = PlotRateStatistics, ""
	for i := range page.Sections {
		page.Sections[i].Tables = nil
	}
	return page, nil
}
