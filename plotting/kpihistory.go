package plotting

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/plot/vg"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/store"
)

// HistoryNotConfigured is what a KPI history page says without --history.
const HistoryNotConfigured = "History is not configured: give --history (a store URL such as sqlite:.seshat/lts.db, " +
	"or a file of LTS payloads written by seshat parse --output-lts) to draw each KPI of these runs over time."

// seriesPerFigure bounds the lines of one history figure.
const seriesPerFigure = 6

// historyFigureWidth is the width of a KPI history figure.
const historyFigureWidth = 10 * Inch

// KPIHistorySpec says how a workload's runs find their history.
type KPIHistorySpec struct {
	Title, Summary string
	// Workload and Catalog are the workload's; every KPI of the catalog
	// found in the history gets a section.
	Workload string
	Catalog  *kpi.Catalog
	// Labels returns the KPI labels of a successful run, as its payload
	// carries them.
	Labels func(*store.Entry) map[string]string
	// QueryKeys are labels whose values narrow the store query.
	QueryKeys []string
	// ComparisonKeys and IgnoredKeys are the workload's regression keys:
	// the labels that change along one history (versions) and those that
	// never split one. They cut series and points as regression does.
	ComparisonKeys, IgnoredKeys []string
}

// KPIHistory builds the page of each KPI of the entries' series over time,
// as ctx.History groups them, with the change points it finds marked.
// Without a history the page says how to give one.
func KPIHistory(ctx *Context, h KPIHistorySpec) (*Page, error) {
	page := &Page{Title: h.Title}
	if ctx.History == nil {
		page.Empty = HistoryNotConfigured
		return page, nil
	}
	page.Summary = fmt.Sprintf(h.Summary, ctx.History.String(), ctx.History.Detector())
	// The labels of the successful runs at hand, and label values that
	// narrow the store query.
	q := HistoryQuery{Workload: h.Workload, Labels: models.Filter{}, ComparisonKeys: h.ComparisonKeys, IgnoredKeys: h.IgnoredKeys}
	for _, e := range ctx.Entries {
		if !e.Complete || e.ExitCode == nil || *e.ExitCode != 0 {
			continue
		}
		labels := h.Labels(e)
		for _, k := range h.QueryKeys {
			if v := labels[k]; v != "" && !slices.Contains(q.Labels[k], v) {
				q.Labels[k] = append(q.Labels[k], v)
			}
		}
		q.Current = append(q.Current, labels)
	}
	if len(q.Current) == 0 {
		page.Empty = fmt.Sprintf("None of the %d entries is a successful run: there is no series to look up.", len(ctx.Entries))
		return page, nil
	}
	for _, k := range slices.Collect(maps.Keys(q.Labels)) {
		slices.Sort(q.Labels[k])
	}
	data, err := ctx.History.History(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", ctx.History.String(), err)
	}
	if len(data.Series) == 0 {
		page.Empty = fmt.Sprintf("%s holds %d KPI values, none of them in the series of these %d runs.", ctx.History.String(), data.Values, data.Wanted)
		return page, nil
	}
	axis := ctx.HistoryAxis
	if axis == "" {
		axis = AxisTime
	}
	cpTable := &Table{Caption: "Change points", Columns: []string{"KPI", "series", "build", "commit", "time", "before", "after", "change", "p-value"}}
	for _, def := range h.Catalog.Definitions() {
		var ss []HistorySeries
		for _, s := range data.Series {
			if s.KPI == def.Name {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		names := seriesNames(ss)
		sec := Section{Title: def.Name, Text: def.Help}
		for from := 0; from < len(ss); from += seriesPerFigure {
			chunk := ss[from:min(from+seriesPerFigure, len(ss))]
			f, warns, err := historyFigure(def, chunk, names[from:], cpTable, from/seriesPerFigure, (len(ss)+seriesPerFigure-1)/seriesPerFigure, axis)
			if err != nil {
				return nil, err
			}
			sec.Figures = append(sec.Figures, f)
			page.Notes = append(page.Notes, warns...)
		}
		page.Sections = append(page.Sections, sec)
	}
	if len(cpTable.Rows) > 0 {
		page.Sections = append(page.Sections, Section{Title: "Change points", Tables: []*Table{cpTable}})
	} else {
		page.Notes = append(page.Notes, fmt.Sprintf("%s finds no change point in these series.", ctx.History.Detector()))
	}
	return page, nil
}

// seriesNames names each series by the labels that differ among them,
// leaving out a label a series has no value for.
func seriesNames(ss []HistorySeries) []string {
	var differ []string
	for _, s := range ss {
		for k, v := range s.Labels {
			if ss[0].Labels[k] != v && !slices.Contains(differ, k) {
				differ = append(differ, k)
			}
		}
		for k := range ss[0].Labels {
			if _, ok := s.Labels[k]; !ok && !slices.Contains(differ, k) {
				differ = append(differ, k)
			}
		}
	}
	slices.Sort(differ)
	out := make([]string, len(ss))
	for i, s := range ss {
		var parts []string
		for _, k := range differ {
			if v := s.Labels[k]; v != "" {
				parts = append(parts, k+"="+v)
			}
		}
		out[i] = strings.Join(parts, ", ")
		if len(differ) == 0 {
			out[i] = "all runs"
		} else if out[i] == "" {
			out[i] = "(" + strings.Join(differ, ", ") + " unset)"
		}
	}
	return out
}

// The x axes of the KPI history figures (visualize --history-axis).
const (
	// AxisTime puts each build at the time of its first run.
	AxisTime = "time"
	// AxisBuild puts the builds side by side in time order, named by
	// their short commit.
	AxisBuild = "build"
)

// HistoryAxes lists the x axes a KPI history figure can have, the default
// first.
func HistoryAxes() []string { return []string{AxisTime, AxisBuild} }

// normaliseRatio: series of one figure whose latest levels differ by more
// than this factor are drawn relative to their own level, so that a
// change of the smaller one is not flattened by the scale of the larger.
const normaliseRatio = 1.5

// historyFigure draws up to seriesPerFigure series of one KPI, one point
// per build with the range of its runs, and their change points, adding
// those to cpTable. Series whose levels differ by more than
// normaliseRatio are drawn as their change against their own latest level.
func historyFigure(def kpi.Definition, ss []HistorySeries, names []string, cpTable *Table, part, parts int, axis string) (*Figure, []string, error) {
	divisor := def.Divisor
	if divisor == 0 {
		divisor = 1
	}
	unit := def.DisplayUnit
	if unit == "" {
		unit = def.Unit
	}
	builds := make([][]HistoryBuild, len(ss))
	marked := make([]map[int]bool, len(ss))
	judged := make([]map[int]Verdict, len(ss))
	levels := make([]float64, len(ss))
	var warns []string
	for i, s := range ss {
		builds[i] = s.Builds
		for _, w := range s.Warnings {
			warns = append(warns, fmt.Sprintf("%s, %s: %s", def.Name, names[i], w))
		}
		marked[i] = map[int]bool{}
		for _, c := range s.ChangePoints {
			marked[i][c.Index] = true
			b := builds[i][c.Index]
			id, short := BuildName(b.Commit, b.ID, b.Comparison)
			cpTable.AddRow(Text(def.Name), Text(names[i]), Text(id), Text(short),
				Text(b.Time.Format(time.RFC3339)),
				Text(def.Display(c.Before)), Text(def.Display(c.After)),
				Num("%+.2f%%", c.ChangePercent), Num("%.2g", c.PValue))
		}
		judged[i] = map[int]Verdict{}
		for _, v := range s.Verdicts {
			judged[i][v.Index] = v
		}
		levels[i] = s.Level
	}
	normalise := false
	if len(ss) > 1 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, l := range levels {
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
		normalise = lo > 0 && hi/lo > normaliseRatio
	}
	// On the build axis, every point of the figure's series (a build at
	// one comparison value) has one position, in the time order of its
	// first run, named by the build's id with its short commit below.
	position := map[string]int{}
	var axisLabels []string
	if axis == AxisBuild {
		var all []HistoryBuild
		for _, bs := range builds {
			all = append(all, bs...)
		}
		// The series' points come in the analysis's order (time,
		// comparison value, build id); their union keeps it.
		slices.SortStableFunc(all, func(a, b HistoryBuild) int {
			return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Comparison, b.Comparison), strings.Compare(a.ID, b.ID))
		})
		for _, b := range all {
			if _, ok := position[pointKey(b)]; !ok {
				position[pointKey(b)] = len(axisLabels)
				axisLabels = append(axisLabels, BuildTick(b.Commit, b.ID, b.Comparison))
			}
		}
		axisLabels = DistinctLabels(axisLabels)
	}
	valueCol := def.Name + "_" + unitSlug(unit)
	xCol := "unix_time"
	if axis == AxisBuild {
		xCol = "build_index"
	}
	plotted := valueCol
	if normalise {
		plotted = "change_percent"
	}
	var seriesCol, buildCol, commitCol, cmpCol, timeText, verdictCol, verdictText []string
	var xs, shown, absolute, lows, highs, runs []float64
	var marks []bool
	order := make([]string, len(ss))
	for i := range ss {
		order[i] = names[i]
		if normalise {
			order[i] = fmt.Sprintf("%s (latest %s)", names[i], def.Display(levels[i]))
		}
		scale := func(v float64) float64 {
			if normalise {
				return (v/levels[i] - 1) * 100
			}
			return v / divisor
		}
		for j, b := range builds[i] {
			seriesCol = append(seriesCol, order[i])
			buildCol = append(buildCol, b.ID)
			commitCol = append(commitCol, b.Commit)
			cmpCol = append(cmpCol, b.Comparison)
			timeText = append(timeText, b.Time.Format(time.RFC3339))
			x := float64(b.Time.Unix())
			if axis == AxisBuild {
				x = float64(position[pointKey(b)])
			}
			xs = append(xs, x)
			shown = append(shown, scale(b.Median))
			absolute = append(absolute, b.Median/divisor)
			lows = append(lows, scale(slices.Min(b.Runs)))
			highs = append(highs, scale(slices.Max(b.Runs)))
			runs = append(runs, float64(len(b.Runs)))
			marks = append(marks, marked[i][j])
			verdictCol = append(verdictCol, judged[i][j].Status)
			verdictText = append(verdictText, judged[i][j].Label)
		}
	}
	cols := []series.Series{
		series.New(seriesCol, series.String, "series"),
		series.New(buildCol, series.String, "build"),
		series.New(commitCol, series.String, "commit"),
		series.New(cmpCol, series.String, "comparison"),
		series.New(timeText, series.String, "time"),
		series.New(xs, series.Float, xCol),
		series.New(absolute, series.Float, valueCol),
	}
	if normalise {
		cols = append(cols, series.New(shown, series.Float, plotted))
	}
	cols = append(cols,
		series.New(runs, series.Float, "runs"),
		series.New(lows, series.Float, "runs_low"),
		series.New(highs, series.Float, "runs_high"),
		series.New(marks, series.Bool, "change_point"),
		series.New(verdictCol, series.String, "verdict"),
		series.New(verdictText, series.String, "verdict_label"))
	df := dataframe.New(cols...)
	title := def.Name
	if parts > 1 {
		title = fmt.Sprintf("%s (%d/%d)", def.Name, part+1, parts)
	}
	// The legend sits below the plot, right of a 36-point offset and the
	// entries' thumbnails; gonum gives every entry the height of the
	// tallest, so the rows are the entries times its lines.
	legendWidth := historyFigureWidth - vg.Points(36) - 0.75*Inch
	lines := 1
	for _, name := range order {
		lines = max(lines, len(WrapLegend(name, legendWidth)))
	}
	spec := TimeSpec{Title: title, YLabel: unit, Series: "series", Time: xCol, Value: plotted,
		Lo: "runs_low", Hi: "runs_high", Mark: "change_point", Order: order,
		XLabel: "time of each build's first run (UTC)", LegendWidth: legendWidth}
	what := "over time"
	if axis == AxisBuild {
		spec.XTicks = BuildTicks{Labels: axisLabels, Width: historyFigureWidth - Inch}
		spec.XLabel = "build (id, short commit), oldest first"
		what = "build by build"
	}
	if normalise {
		spec.YLabel = "change against the series' latest level (%)"
		spec.Baseline = true
	}
	p, err := Time(df, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", title, err)
	}
	chart, err := timeChart(df, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", title, err)
	}
	scaleText := unit
	if normalise {
		scaleText = "% of each series' latest level (in " + unit + " in the legend)"
	}
	caption := fmt.Sprintf("%s, %s (%s). One point per build: the median of its runs, the bar their range. Red triangles mark change points.",
		def.Name, unit, def.Direction)
	if normalise {
		caption = fmt.Sprintf("%s (%s), each series as its change in %% against its latest level (after its last change point), "+
			"named in the legend: their levels differ too much to share one scale. One point per build: the median of its runs, the bar their range. "+
			"Red triangles mark change points.", def.Name, def.Direction)
	}
	if slices.ContainsFunc(verdictCol, func(v string) bool { return v != "" }) {
		caption += " The interactive chart marks the verdicts that stored regression analyses gave at their builds; hover one for it."
	}
	return &Figure{
		Name:       Slug("history_" + def.Name + "_" + fmt.Sprint(part+1)),
		Title:      title,
		Alt:        fmt.Sprintf("%s in %s %s for %d series, change points marked with red triangles.", def.Name, scaleText, what, len(ss)),
		Caption:    caption,
		Data:       df,
		Plot:       p,
		Chart:      chart,
		Width:      historyFigureWidth,
		LegendRows: (len(ss) + legendMark(slices.Contains(marks, true))) * lines,
	}, warns, nil
}

// pointKey tells the points of a figure apart: a build at one comparison
// value.
func pointKey(b HistoryBuild) string { return b.ID + "\x00" + b.Comparison }

func unitSlug(u string) string {
	if u == "%" {
		return "percent"
	}
	return Slug(u)
}

func legendMark(b bool) int {
	if b {
		return 1
	}
	return 0
}
