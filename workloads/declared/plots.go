package declared

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// defaultPlots are the reports of a workload file without a plots section.
var defaultPlots = []*Plot{
	{Name: "KPI distribution", Kind: PlotDistribution},
	{Name: "KPI history", Kind: PlotHistory},
	{Name: "Error report", Kind: PlotErrors},
}

// newPlots registers the declared reports.
func (w *Workload) newPlots() *plotting.Registry {
	r := plotting.NewRegistry(w.spec.Name)
	plots := w.spec.Plots
	if len(plots) == 0 {
		plots = defaultPlots
	}
	for _, p := range plots {
		p := p
		desc := p.Description
		if desc == "" {
			desc = w.describe(p)
		}
		r.AddReport(p.Name, desc, func(ctx *plotting.Context) (*plotting.Page, error) { return w.build(ctx, p) })
	}
	return r
}

func (w *Workload) describe(p *Plot) string {
	switch p.Kind {
	case PlotDistribution:
		if p.Split != "" {
			return "Box plots of each KPI per batch, one box per value of the batch setting, one figure per value of " + p.Split + "."
		}
		return "Box plots of each KPI per batch, one box per value of the batch setting."
	case PlotScaling:
		return "Each KPI against " + orText(p.X, "the x setting") + ": median line and p25–p75 band per batch."
	case PlotHistory:
		return "Each KPI over time from the history store, change points marked."
	}
	return "Failed and incomplete runs, and runs with warnings."
}

func orText(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}

func (w *Workload) build(ctx *plotting.Context, p *Plot) (*plotting.Page, error) {
	switch p.Kind {
	case PlotHistory:
		return plotting.KPIHistory(ctx, plotting.KPIHistorySpec{
			Title: p.Name,
			Summary: "Each KPI of these runs' series over time, from %s, with the change points that %s finds marked. " +
				"A series is one set of labels less the comparison keys, which change along it.",
			Workload: w.spec.Name, Catalog: w.catalog, Labels: w.Labels,
			ComparisonKeys: w.spec.Regression.ComparisonKeys, IgnoredKeys: w.spec.Regression.IgnoredKeys,
		})
	case PlotErrors:
		return w.errorReport(ctx, p), nil
	}
	return w.kpiReport(ctx, p)
}

// successful returns the entries that ran to exit code 0.
func successful(entries []*store.Entry) []*store.Entry {
	var out []*store.Entry
	for _, e := range entries {
		if e.Complete && e.ExitCode != nil && *e.ExitCode == 0 {
			out = append(out, e)
		}
	}
	return out
}

// batchKey is --batch-key, else the declared batch, else the first varying
// setting (sorted) other than x and the split; "" puts every run in one
// batch.
func batchKey(ctx *plotting.Context, p *Plot, x string) string {
	if ctx.BatchKey != "" {
		return ctx.BatchKey
	}
	if p.Batch != "" {
		return p.Batch
	}
	keys := make([]string, 0, len(ctx.Variables))
	for k := range ctx.Variables {
		if k != x && k != "workload" && k != p.Split {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

func settingText(e *store.Entry, key string) string {
	if key == "" {
		return "all runs"
	}
	v, ok := e.Settings[key]
	if !ok {
		return "(unset)"
	}
	return plotting.ValueText(v)
}

// kpiReport draws distribution and scaling reports: one section per KPI.
func (w *Workload) kpiReport(ctx *plotting.Context, p *Plot) (*plotting.Page, error) {
	page := &plotting.Page{Title: p.Name}
	runs := successful(ctx.Entries)
	if len(runs) == 0 {
		page.Empty = fmt.Sprintf("None of the %d entries is a successful run: nothing to draw.", len(ctx.Entries))
		return page, nil
	}
	x := ""
	if p.Kind == PlotScaling {
		if x = ctx.XKey; x == "" {
			x = p.X
		}
		if x == "" {
			page.Empty = "A scaling report needs an x axis: declare x in the workload file or give --x-key."
			return page, nil
		}
	}
	batch := batchKey(ctx, p, x)
	names := p.KPIs
	if len(names) == 0 {
		for _, d := range w.catalog.Definitions() {
			names = append(names, d.Name)
		}
	}
	page.Summary = fmt.Sprintf("%d successful runs of %d entries; batches are the values of %s.", len(runs), len(ctx.Entries), orText(batch, "(none: every run is one batch)"))
	if p.Split != "" {
		page.Summary += fmt.Sprintf(" One figure per value of %s.", p.Split)
	}
	for _, name := range names {
		def, _ := w.catalog.Definition(name)
		sec := plotting.Section{Title: name, Text: def.Help}
		for _, part := range splitRuns(runs, p.Split) {
			var f *plotting.Figure
			var err error
			if p.Kind == PlotScaling {
				f, err = w.scalingFigure(def, part.runs, batch, x, p.LogX)
			} else {
				f, err = w.distributionFigure(def, part.runs, batch, p.Violin, p.Split, part.value)
			}
			if err != nil {
				return nil, err
			}
			if f != nil {
				sec.Figures = append(sec.Figures, f)
			}
		}
		if len(sec.Figures) == 0 {
			sec.Text += " No run has this KPI."
		}
		page.Sections = append(page.Sections, sec)
	}
	return page, nil
}

// runPart is the runs of one value of a plot's split setting.
type runPart struct {
	value string // "" when the plot is not split
	runs  []*store.Entry
}

// splitRuns parts runs by the value of the setting key, in the values'
// order (numbers by value); one part of every run when key is "".
func splitRuns(runs []*store.Entry, key string) []runPart {
	if key == "" {
		return []runPart{{runs: runs}}
	}
	byValue := map[string][]*store.Entry{}
	var values []string
	for _, e := range runs {
		v := settingText(e, key)
		if _, ok := byValue[v]; !ok {
			values = append(values, v)
		}
		byValue[v] = append(byValue[v], e)
	}
	sort.Strings(values)
	sortNumerically(values)
	parts := make([]runPart, len(values))
	for i, v := range values {
		parts[i] = runPart{value: v, runs: byValue[v]}
	}
	return parts
}

// display returns a definition's display divisor and unit.
func display(def kpi.Definition) (float64, string) {
	div, unit := def.Divisor, def.DisplayUnit
	if div == 0 {
		div = 1
	}
	if unit == "" {
		unit = def.Unit
	}
	return div, unit
}

// distributionFigure draws one box (or violin) per batch; split and value
// name the part of the runs drawn ("" for all of them).
func (w *Workload) distributionFigure(def kpi.Definition, runs []*store.Entry, batch string, violin bool, split, value string) (*plotting.Figure, error) {
	div, unit := display(def)
	var groups, paths []string
	var values []float64
	for _, e := range runs {
		v, ok := w.KPIValue(e, def.Name)
		if !ok {
			continue
		}
		groups = append(groups, settingText(e, batch))
		paths = append(paths, e.Path)
		values = append(values, v/div)
	}
	if len(values) == 0 {
		return nil, nil
	}
	order := slices.Compact(slices.Sorted(slices.Values(groups)))
	sortNumerically(order)
	col := def.Name + "_" + plotting.Slug(unit)
	batchCol := orText(batch, "batch")
	df := dataframe.New(
		series.New(paths, series.String, "entry"),
		series.New(groups, series.String, batchCol),
		series.New(values, series.Float, col),
	)
	name, title, part := "distribution_"+def.Name, def.Name, ""
	if split != "" {
		name += "_" + split + "_" + value
		title += ", " + split + " " + value
		part = fmt.Sprintf(" with %s = %s", split, value)
	}
	pl, err := plotting.Distribution(df, plotting.DistSpec{Title: title, YLabel: unit, Group: batchCol, Value: col, Groups: order, Violin: violin})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", def.Name, err)
	}
	return &plotting.Figure{
		Name: plotting.Slug(name), Title: title, Data: df, Plot: pl,
		Alt:     fmt.Sprintf("%s in %s for %d runs%s, one box per %s.", def.Name, unit, len(values), part, batchCol),
		Caption: fmt.Sprintf("%s (%s)%s, %s; one box per %s, runs as dots.", def.Name, unit, part, def.Direction, batchCol),
	}, nil
}

func (w *Workload) scalingFigure(def kpi.Definition, runs []*store.Entry, batch, x string, logX bool) (*plotting.Figure, error) {
	div, unit := display(def)
	type key struct {
		batch string
		x     float64
	}
	byKey := map[key][]float64{}
	skipped := 0
	for _, e := range runs {
		v, ok := w.KPIValue(e, def.Name)
		if !ok {
			continue
		}
		xv, err := strconv.ParseFloat(settingText(e, x), 64)
		if err != nil {
			skipped++
			continue
		}
		k := key{settingText(e, batch), xv}
		byKey[k] = append(byKey[k], v/div)
	}
	if len(byKey) == 0 {
		return nil, nil
	}
	keys := make([]key, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].batch != keys[j].batch {
			return keys[i].batch < keys[j].batch
		}
		return keys[i].x < keys[j].x
	})
	var groups []string
	var xs, med, p25, p75 []float64
	var ns []int
	for _, k := range keys {
		s := plotting.Summarize(byKey[k])
		groups = append(groups, k.batch)
		xs = append(xs, k.x)
		med, p25, p75 = append(med, s.Median), append(p25, s.P25), append(p75, s.P75)
		ns = append(ns, s.N)
	}
	batchCol := orText(batch, "batch")
	df := dataframe.New(
		series.New(groups, series.String, batchCol),
		series.New(xs, series.Float, x),
		series.New(ns, series.Int, "n"),
		series.New(med, series.Float, "median"),
		series.New(p25, series.Float, "p25"),
		series.New(p75, series.Float, "p75"),
	)
	pl, err := plotting.Band(df, plotting.BandSpec{Title: def.Name, XLabel: x, YLabel: unit, Group: batchCol, X: x, Y: "median", Lo: "p25", Hi: "p75", LogX: logX})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", def.Name, err)
	}
	caption := fmt.Sprintf("Median %s (%s) against %s, p25–p75 band, one line per %s.", def.Name, unit, x, batchCol)
	if skipped > 0 {
		caption += fmt.Sprintf(" %d runs whose %s is not a number are left out.", skipped, x)
	}
	return &plotting.Figure{
		Name: plotting.Slug("scaling_" + def.Name), Title: def.Name, Data: df, Plot: pl,
		Alt:     fmt.Sprintf("Median %s in %s against %s, one line per %s.", def.Name, unit, x, batchCol),
		Caption: caption,
	}, nil
}

// sortNumerically orders values as numbers when they all are.
func sortNumerically(values []string) {
	nums := make(map[string]float64, len(values))
	for _, v := range values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return
		}
		nums[v] = f
	}
	sort.SliceStable(values, func(i, j int) bool { return nums[values[i]] < nums[values[j]] })
}

// errorReport lists the runs that failed, did not finish, or warned.
func (w *Workload) errorReport(ctx *plotting.Context, p *Plot) *plotting.Page {
	page := &plotting.Page{Title: p.Name}
	failed := &plotting.Table{Caption: "Failed runs (non-zero exit code)", Columns: []string{"run", "exit code", "warnings"}}
	incomplete := &plotting.Table{Caption: "Incomplete runs (no readable exit_code)", Columns: []string{"run", "warnings"}}
	warned := &plotting.Table{Caption: "Successful runs with warnings", Columns: []string{"run", "warnings"}}
	ok := 0
	for _, e := range ctx.Entries {
		warns := plotting.Cell{Text: strings.Join(e.Warnings, "\n"), Pre: true}
		switch {
		case !e.Complete:
			incomplete.AddRow(plotting.Text(e.Path), warns)
		case e.ExitCode == nil || *e.ExitCode != 0:
			code := "unknown"
			if e.ExitCode != nil {
				code = strconv.Itoa(*e.ExitCode)
			}
			failed.AddRow(plotting.Text(e.Path), plotting.Cell{Text: code, Num: true, Class: "bad"}, warns)
		default:
			ok++
			if len(e.Warnings) > 0 {
				warned.AddRow(plotting.Text(e.Path), warns)
			}
		}
	}
	page.Summary = fmt.Sprintf("%d entries: %d successful, %d failed, %d incomplete.", len(ctx.Entries), ok, len(failed.Rows), len(incomplete.Rows))
	for _, t := range []*plotting.Table{failed, incomplete, warned} {
		if len(t.Rows) > 0 {
			page.Sections = append(page.Sections, plotting.Section{Title: t.Caption, Tables: []*plotting.Table{t}})
		}
	}
	if len(page.Sections) == 0 {
		page.Sections = []plotting.Section{{Title: "No errors", Text: fmt.Sprintf("Every one of the %d runs exited 0 without a warning.", ok)}}
	}
	return page
}
