package plotting

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
	"github.com/seshat-bench/seshat/store"
)

// HistoryNotConfigured is what a KPI history page says without --history.
const HistoryNotConfigured = "History is not configured: give --history (a store URL such as sqlite:.seshat/lts.db, " +
	"or a file of LTS payloads written by seshat parse --output-lts) to draw each KPI of these runs over time."

// seriesPerFigure bounds the lines of one history figure.
const seriesPerFigure = 6

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
	// Ignored are the labels that change along one history (versions):
	// they do not split series.
	Ignored []string
}

// KPIHistory builds the page of each KPI of the entries' series over time,
// read from ctx.History, with the change points the default method finds
// marked. Without a history the page says how to give one.
func KPIHistory(ctx *Context, h KPIHistorySpec) (*Page, error) {
	page := &Page{Title: h.Title}
	if ctx.History == nil {
		page.Empty = HistoryNotConfigured
		return page, nil
	}
	page.Summary = fmt.Sprintf(h.Summary, ctx.History.String(), analyze.DefaultDetector)
	// The series of the successful runs at hand, and label values that
	// narrow the store query.
	wanted := map[string]bool{}
	query := lts.Query{Workload: h.Workload, Labels: models.Filter{}}
	for _, e := range ctx.Entries {
		if !e.Complete || e.ExitCode == nil || *e.ExitCode != 0 {
			continue
		}
		labels := h.Labels(e)
		for _, k := range h.QueryKeys {
			if v := labels[k]; v != "" && !slices.Contains(query.Labels[k], v) {
				query.Labels[k] = append(query.Labels[k], v)
			}
		}
		for _, k := range h.Ignored {
			delete(labels, k)
		}
		wanted[LabelKey(labels)] = true
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
	all := GroupSeries(records, h.Ignored)
	var kept []KPISeries
	for _, s := range all {
		if wanted[s.Key] {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		page.Empty = fmt.Sprintf("%s holds %d KPI values, none of them in the series of these %d runs.", ctx.History.String(), values, len(wanted))
		return page, nil
	}
	m, err := analyze.New(analyze.DefaultDetector, analyze.Params{})
	if err != nil {
		return nil, err
	}
	det := m.(analyze.Detector)
	cpTable := &Table{Caption: "Change points", Columns: []string{"KPI", "series", "time", "before", "after", "change", "p-value"}}
	for _, def := range h.Catalog.Definitions() {
		var ss []KPISeries
		for _, s := range kept {
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
		page.Sections = append(page.Sections, Section{Title: "Change points", Tables: []*Table{cpTable}})
	} else {
		page.Notes = append(page.Notes, fmt.Sprintf("%s finds no change point in these series.", analyze.DefaultDetector))
	}
	return page, nil
}

// seriesNames names each series by the labels that differ among them.
func seriesNames(ss []KPISeries) []string {
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
func historyFigure(def kpi.Definition, ss []KPISeries, names []string, det analyze.Detector, cpTable *Table, part, parts int) (*Figure, []string, error) {
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
			cpTable.AddRow(Text(def.Name), Text(names[i]),
				Text(s.Records[c.Index].Time.Format(time.RFC3339)),
				Text(def.Display(c.MeanBefore)), Text(def.Display(c.MeanAfter)),
				Num("%+.2f%%", c.ForwardChangePercent()), Num("%.2g", c.PValue))
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
	p, err := Time(df, TimeSpec{Title: title, YLabel: unit, Series: "series", Time: "unix_time",
		Value: def.Name + "_" + unitSlug(unit), Mark: "change_point", Order: names[:len(ss)], TimeFormat: format})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", title, err)
	}
	return &Figure{
		Name:       Slug("history_" + def.Name + "_" + fmt.Sprint(part+1)),
		Title:      title,
		Alt:        fmt.Sprintf("%s in %s over time for %d series, change points marked with red triangles.", def.Name, unit, len(ss)),
		Caption:    fmt.Sprintf("%s, %s (%s). Red triangles mark change points.", def.Name, unit, def.Direction),
		Data:       df,
		Plot:       p,
		Width:      10 * Inch,
		LegendRows: len(ss) + legendMark(slices.Contains(marks, true)),
	}, warns, nil
}

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
