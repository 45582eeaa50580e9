package pi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// historyIgnoredLabels change along one series' history: a new framework,
// BLAS, kernel or OS release is what the history is there to show.
var historyIgnoredLabels = []string{"framework_version", "blas", "kernel", "os", "cuda_version"}

// seriesPerFigure bounds the lines of one history figure.
const seriesPerFigure = 6

// HistoryNotConfigured is what the KPI history page says without --history.
const HistoryNotConfigured = "History is not configured: give --history (a store URL such as sqlite:.seshat/lts.db, " +
	"or a file of LTS payloads written by seshat parse --output-lts) to draw each KPI of these runs over time."

// currentLabels are the KPI labels a run's payload carries.
func currentLabels(e *store.Entry) map[string]string {
	labels := map[string]string{}
	r, _ := e.Results.(*Results)
	if r == nil {
		r = &Results{}
	}
	fillLabels(labels, e.Settings, r)
	labels[kpi.LabelWorkload] = Name
	labels[kpi.LabelSettingsVersion] = KPISettingsVersion
	return labels
}

func kpiHistoryReport(ctx *plotting.Context) (*plotting.Page, error) {
	page := &plotting.Page{Title: ReportKPIHistory}
	if ctx.History == nil {
		page.Empty = HistoryNotConfigured
		return page, nil
	}
	page.Summary = fmt.Sprintf("Each KPI of these runs' series over time, from %s, with the change points that %s finds marked. "+
		"A series is one set of labels (the PI, backend, shape, machine...); framework, BLAS, kernel and OS versions may change along it.",
		ctx.History.String(), analyze.DefaultMethod)
	// The series of the successful runs at hand, and label values that
	// narrow the store query.
	wanted := map[string]bool{}
	query := lts.Query{Workload: Name, Labels: models.Filter{}}
	for _, e := range ctx.Entries {
		if !e.Complete || e.ExitCode == nil || *e.ExitCode != 0 {
			continue
		}
		labels := currentLabels(e)
		for _, k := range []string{"pi", "backend"} {
			if v := labels[k]; v != "" && !slices.Contains(query.Labels[k], v) {
				query.Labels[k] = append(query.Labels[k], v)
			}
		}
		for _, k := range historyIgnoredLabels {
			delete(labels, k)
		}
		wanted[plotting.LabelKey(labels)] = true
	}
	if len(wanted) == 0 {
		page.Empty = fmt.Sprintf("None of the %d entries is a successful run: there is no series to look up.", len(ctx.Entries))
		return page, nil
	}
	for _, k := range slices.Collect(maps.Keys(query.Labels)) {
		slices.Sort(query.Labels[k])
	}
	var records []lts.Record
	values := 0
	for r, err := range ctx.History.Records(ctx, query) {
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", ctx.History.String(), err)
		}
		records = append(records, r)
		values += len(r.Values)
	}
	all := plotting.GroupSeries(records, historyIgnoredLabels)
	var kept []plotting.KPISeries
	for _, s := range all {
		if wanted[s.Key] {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		page.Empty = fmt.Sprintf("%s holds %d KPI values, none of them in the series of these %d runs.", ctx.History.String(), values, len(wanted))
		return page, nil
	}
	m, err := analyze.New(analyze.DefaultMethod, analyze.Params{})
	if err != nil {
		return nil, err
	}
	det := m.(analyze.Detector)
	cpTable := &plotting.Table{Caption: "Change points", Columns: []string{"KPI", "series", "time", "before", "after", "change", "p-value"}}
	for _, def := range catalog.Definitions() {
		var ss []plotting.KPISeries
		for _, s := range kept {
			if s.KPI == def.Name {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		names := seriesNames(ss)
		sec := plotting.Section{Title: def.Name, Text: def.Help}
		for from := 0; from < len(ss); from += seriesPerFigure {
			chunk := ss[from:min(from+seriesPerFigure, len(ss))]
			f, warns, err := historyFigure(def, chunk, names[from:], det, cpTable, from/seriesPerFigure, (len(ss)+seriesPerFigure-1)/seriesPerFigure)
			if err != nil {
				return nil, err
			}
			sec.Figures = append(sec.Figures, f)
			page.Notes = append(page.Notes, warns...)
		}
		page.Sections = append(page.Sections, sec)
	}
	if len(cpTable.Rows) > 0 {
		page.Sections = append(page.Sections, plotting.Section{Title: "Change points", Tables: []*plotting.Table{cpTable}})
	} else {
		page.Notes = append(page.Notes, fmt.Sprintf("%s finds no change point in these series.", analyze.DefaultMethod))
	}
	return page, nil
}

// seriesNames names each series by the labels that differ among them.
func seriesNames(ss []plotting.KPISeries) []string {
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
		if len(differ) == 0 {
			out[i] = "all runs"
			continue
		}
		parts := make([]string, len(differ))
		for j, k := range differ {
			parts[j] = k + "=" + s.Labels[k]
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// historyFigure draws up to seriesPerFigure series of one KPI with their
// change points, adding those to cpTable.
func historyFigure(def kpi.Definition, ss []plotting.KPISeries, names []string, det analyze.Detector, cpTable *plotting.Table, part, parts int) (*plotting.Figure, []string, error) {
	divisor := def.Divisor
	if divisor == 0 {
		divisor = 1
	}
	unit := def.DisplayUnit
	if unit == "" {
		unit = def.Unit
	}
	var seriesCol, timeText, uuids []string
	var times, values []float64
	var marks []bool
	var warns []string
	var first, last time.Time
	for i, s := range ss {
		raw := make([]float64, len(s.Records))
		for j := range s.Records {
			raw[j] = s.Value(j)
		}
		cps, ws := det.ChangePoints(raw)
		for _, w := range ws {
			warns = append(warns, fmt.Sprintf("%s, %s: %s", def.Name, names[i], w))
		}
		marked := map[int]bool{}
		for _, c := range cps {
			marked[c.Index] = true
			cpTable.AddRow(plotting.Text(def.Name), plotting.Text(names[i]),
				plotting.Text(s.Records[c.Index].Time.Format(time.RFC3339)),
				plotting.Text(def.Display(c.MeanBefore)), plotting.Text(def.Display(c.MeanAfter)),
				plotting.Num("%+.2f%%", c.ForwardChangePercent()), plotting.Num("%.2g", c.PValue))
		}
		for j, p := range s.Records {
			seriesCol = append(seriesCol, names[i])
			times = append(times, float64(p.Time.Unix()))
			timeText = append(timeText, p.Time.Format(time.RFC3339))
			values = append(values, s.Value(j)/divisor)
			uuids = append(uuids, p.TestUUID)
			marks = append(marks, marked[j])
			if first.IsZero() || p.Time.Before(first) {
				first = p.Time
			}
			if p.Time.After(last) {
				last = p.Time
			}
		}
	}
	df := dataframe.New(
		series.New(seriesCol, series.String, "series"),
		series.New(timeText, series.String, "time"),
		series.New(times, series.Float, "unix_time"),
		series.New(values, series.Float, def.Name+"_"+unitSlug(unit)),
		series.New(uuids, series.String, "test_uuid"),
		series.New(marks, series.Bool, "change_point"),
	)
	title := def.Name
	if parts > 1 {
		title = fmt.Sprintf("%s (%d/%d)", def.Name, part+1, parts)
	}
	format := "2006-01-02"
	if last.Sub(first) < 72*time.Hour {
		format = "01-02 15:04"
	}
	p, err := plotting.Time(df, plotting.TimeSpec{Title: title, YLabel: unit, Series: "series", Time: "unix_time",
		Value: def.Name + "_" + unitSlug(unit), Mark: "change_point", Order: names[:len(ss)], TimeFormat: format})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", title, err)
	}
	return &plotting.Figure{
		Name:       figureName("history", def.Name, fmt.Sprint(part+1)),
		Title:      title,
		Alt:        fmt.Sprintf("%s in %s over time for %d series, change points marked with red triangles.", def.Name, unit, len(ss)),
		Caption:    fmt.Sprintf("%s, %s (%s). Red triangles mark change points.", def.Name, unit, def.Direction),
		Data:       df,
		Plot:       p,
		Width:      10 * plotting.Inch,
		LegendRows: len(ss) + boolIndex(slices.Contains(marks, true)),
	}, warns, nil
}

func unitSlug(u string) string {
	if u == "%" {
		return "percent"
	}
	return plotting.Slug(u)
}
