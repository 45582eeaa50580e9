package pi

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
)

// The names of the pi reports and plots, as plots.yaml and --generate name
// them ("report: Rate per batch").
const (
	ReportRatePerBatch    = "Rate per batch"
	ReportBatchStatistics = "Batch statistics"
	ReportScaling         = "Scaling"
	ReportBatchComparison = "Batch comparison"
	ReportKPIHistory      = "KPI history"
	ReportErrors          = "Error report"

	PlotRateBox        = "Rate box plot"
	PlotRateViolin     = "Rate violin plot"
	PlotRateStatistics = "Rate statistics"
	PlotRateScaling    = "Rate scaling"
	PlotElapsedScaling = "Elapsed scaling"
	PlotBatchRatio     = "Batch ratio"
)

var plots = newPlotRegistry()

func newPlotRegistry() *plotting.Registry {
	r := plotting.NewRegistry(Name)
	r.AddReport(ReportRatePerBatch, "Box and violin plots of the rate of each run, one box per batch.", ratePerBatchReport)
	r.AddReport(ReportBatchStatistics, "n, median, mean, standard deviation, CV and p5/p95 of the rate and elapsed time of each batch.", batchStatisticsReport)
	r.AddReport(ReportScaling, "Rate and elapsed time against matrix size (or --x-key): median line and p25–p75 band per batch.", scalingReport)
	r.AddReport(ReportBatchComparison, "Median rate ratio of each batch against the first, with a 95% bootstrap interval.", batchComparisonReport)
	r.AddReport(ReportKPIHistory, "Each KPI over time from the history store, change points marked.", kpiHistoryReport)
	r.AddReport(ReportErrors, "Failed and incomplete runs: exit codes, warnings and the last lines of stderr.", errorReport)
	r.AddPlot(PlotRateBox, "Box plots of the rate per batch.", ratePlot(false))
	r.AddPlot(PlotRateViolin, "Violin plots of the rate per batch.", ratePlot(true))
	r.AddPlot(PlotRateStatistics, "Median rate per batch with p5–p95 whiskers and the mean.", rateStatisticsPlot)
	r.AddPlot(PlotRateScaling, "Rate against matrix size (or --x-key) per batch.", scalingPlot(metricRate))
	r.AddPlot(PlotElapsedScaling, "Elapsed time against matrix size (or --x-key) per batch.", scalingPlot(metricElapsed))
	r.AddPlot(PlotBatchRatio, "Median rate ratio of each batch against the first, with 95% intervals.", batchRatioPlot)
	return r
}

// Plots implements workloads.PlotProvider.
func (Workload) Plots() *plotting.Registry { return plots }

// nonBatchKeys are settings that never make a good default batch: they size
// or select the work, or control how it is measured.
var nonBatchKeys = []string{"workload", "pi", "repetitions", "warmup", "target_ci", "max_seconds", "timeout", "python"}

// comparableKeys are the settings whose values make runs incomparable: a
// rate at 128 and at 4096 are different quantities. Reports draw one panel
// per combination of those that vary (and are not the batch or x key).
func comparableKeys() []string {
	keys := []string{"pi", "device", "dtype"}
	for _, l := range shapeLabels {
		keys = append(keys, l.Name)
	}
	return keys
}

func isShape(key string) bool {
	return slices.ContainsFunc(shapeLabels, func(l kpi.Label) bool { return l.Name == key })
}

// DefaultBatchKey is the comparison key of the pi workload among the
// settings that vary: backend when it varies, else the first varying
// setting (sorted) that neither sizes the work nor controls the
// measurement; "" when there is none (every run is one batch).
func DefaultBatchKey(variables map[string][]any) string {
	if _, ok := variables["backend"]; ok {
		return "backend"
	}
	keys := make([]string, 0, len(variables))
	for k := range variables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !isShape(k) && !slices.Contains(nonBatchKeys, k) && !models.IsMeta(k) {
			return k
		}
	}
	return ""
}

// Metrics of a run the reports draw.
type metric struct {
	column, label, unit string
	higherBetter        bool
}

var (
	metricRate    = metric{column: "rate_gflops", label: "rate", unit: "GFLOPS", higherBetter: true}
	metricElapsed = metric{column: "elapsed_ms", label: "elapsed time", unit: "ms"}
)

func (m metric) axis() string { return m.label + " (" + m.unit + ")" }

// measured is one successful run with its measurement.
type measured struct {
	e       *store.Entry
	batch   string
	panel   string
	x       any // the x key's value; nil when absent
	rate    float64
	elapsed float64
}

// shape is the first phase shared by the reports: the successful runs
// grouped by batch and panel, in a stable order.
type shape struct {
	batchKey  string
	batches   []string
	panelKeys []string
	panels    []string // "" alone when no panel key varies
	xKey      string
	runs      []measured
	// skipped counts the entries that are not successful measurements.
	failed, incomplete, unmeasured int
	notes                          []string
}

// unsetValue names the batch of runs whose settings lack the batch key.
const unsetValue = "(unset)"

// batchKeyOf picks the batch key: --batch-key, else the default.
func batchKeyOf(ctx *plotting.Context) string {
	if ctx.BatchKey != "" {
		return ctx.BatchKey
	}
	return DefaultBatchKey(ctx.Variables)
}

// newShape sorts the entries of ctx into measured runs; xKey, when set, is
// excluded from the panel keys (the scaling report draws it on an axis).
// Reports of one job share the result: it must not be modified.
func newShape(ctx *plotting.Context, xKey string) *shape {
	return ctx.Memo("pi.shape\x00"+xKey, func() any { return buildShape(ctx, xKey) }).(*shape)
}

func buildShape(ctx *plotting.Context, xKey string) *shape {
	s := &shape{batchKey: batchKeyOf(ctx), xKey: xKey}
	if xKey != "" && s.batchKey == xKey {
		s.notes = append(s.notes, fmt.Sprintf("The batch key %s is on the x axis: every run is in one batch.", xKey))
		s.batchKey = ""
	}
	for _, k := range comparableKeys() {
		if _, varies := ctx.Variables[k]; varies && k != s.batchKey && k != xKey {
			s.panelKeys = append(s.panelKeys, k)
		}
	}
	if ctx.BatchKey != "" && !slices.ContainsFunc(ctx.Entries, func(e *store.Entry) bool { _, ok := e.Settings[ctx.BatchKey]; return ok }) {
		s.notes = append(s.notes, fmt.Sprintf("No entry has the setting %q given as --batch-key: every run is in the batch %s.", ctx.BatchKey, unsetValue))
	}
	var batchValues, panelTuples []map[string]any
	for _, e := range ctx.Entries {
		r, _ := e.Results.(*Results)
		switch {
		case !e.Complete:
			s.incomplete++
			continue
		case e.ExitCode == nil || *e.ExitCode != 0:
			s.failed++
			continue
		case r == nil || r.PI == nil || !(r.PI.Result.Elapsed > 0):
			s.unmeasured++
			continue
		}
		m := measured{e: e, rate: math.NaN(), elapsed: r.PI.Result.Elapsed, batch: "all"}
		if rate := r.PI.Result.Rate; rate != nil && *rate > 0 && !math.IsInf(*rate, 0) {
			m.rate = *rate
		}
		if s.batchKey != "" {
			m.batch = settingText(e.Settings, s.batchKey)
		}
		m.panel = panelText(e.Settings, s.panelKeys)
		if xKey != "" {
			m.x = e.Settings[xKey]
		}
		s.runs = append(s.runs, m)
		batchValues = append(batchValues, map[string]any{"v": e.Settings[s.batchKey]})
		tuple := map[string]any{}
		for _, k := range s.panelKeys {
			tuple[k] = e.Settings[k]
		}
		panelTuples = append(panelTuples, tuple)
	}
	s.batches = orderedTexts(batchValues, []string{"v"}, func(t map[string]any) string {
		if s.batchKey == "" {
			return "all"
		}
		return valueOrUnset(t["v"])
	})
	s.panels = orderedTexts(panelTuples, s.panelKeys, func(t map[string]any) string {
		return panelText(t, s.panelKeys)
	})
	return s
}

// orderedTexts returns the distinct texts of tuples, ordered by the values
// of keys in turn (numbers by value: 256 before 1024).
func orderedTexts(tuples []map[string]any, keys []string, text func(map[string]any) string) []string {
	// Sort one tuple per text: thousands of runs share a few panels.
	var distinct []map[string]any
	seen := map[string]bool{}
	for _, t := range tuples {
		if s := text(t); !seen[s] {
			seen[s] = true
			distinct = append(distinct, t)
		}
	}
	sort.SliceStable(distinct, func(i, j int) bool {
		for _, k := range keys {
			a, b := distinct[i][k], distinct[j][k]
			if models.EqualValues(a, b) {
				continue
			}
			pair := []any{b, a}
			models.SortValues(pair)
			return models.EqualValues(pair[0], a)
		}
		return false
	})
	out := make([]string, len(distinct))
	for i, t := range distinct {
		out[i] = text(t)
	}
	return out
}

func valueOrUnset(v any) string {
	if v == nil {
		return unsetValue
	}
	return models.FormatValue(v)
}

func settingText(s map[string]any, key string) string {
	v, ok := s[key]
	if !ok {
		return unsetValue
	}
	return valueOrUnset(v)
}

// panelText names a panel: "dtype=float32, matrix_size=1024".
func panelText(s map[string]any, keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + settingText(s, k)
	}
	return strings.Join(parts, ", ")
}

// panelTitle is a panel's name in a title, "all runs" for the only panel.
func panelTitle(panel string) string {
	if panel == "" {
		return "all runs"
	}
	return panel
}

func (s *shape) batchLabel() string {
	if s.batchKey == "" {
		return "batch"
	}
	return s.batchKey
}

// values returns the metric of the runs of a panel and batch ("" matches
// every panel), finite ones only.
func (s *shape) values(panel, batch string, m metric) []float64 {
	var out []float64
	for _, r := range s.runs {
		if r.panel != panel || r.batch != batch {
			continue
		}
		v := r.elapsed
		if m == metricRate {
			v = r.rate
		}
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func (s *shape) hasRate() bool {
	return slices.ContainsFunc(s.runs, func(r measured) bool { return !math.IsNaN(r.rate) })
}

// emptyReason says why no run could be drawn.
func (s *shape) emptyReason(ctx *plotting.Context, what string) string {
	return fmt.Sprintf("None of the %d entries has %s: %d failed, %d incomplete, %d without a measurement. The error report lists them.",
		len(ctx.Entries), what, s.failed, s.incomplete, s.unmeasured)
}

// skippedNote tells how many entries the figures leave out, nil when none.
func (s *shape) skippedNotes() []string {
	out := slices.Clone(s.notes)
	if n := s.failed + s.incomplete + s.unmeasured; n > 0 {
		out = append(out, fmt.Sprintf("%d entries are not drawn: %d failed, %d incomplete, %d without a measurement (see the error report).",
			n, s.failed, s.incomplete, s.unmeasured))
	}
	return out
}

// runsFrame is the DataFrame of the runs of one panel: path, batch, the
// panel settings and both metrics.
func (s *shape) runsFrame(panel string) dataframe.DataFrame {
	var paths, batches, xs []string
	var rates, elapsed []float64
	for _, r := range s.runs {
		if r.panel != panel {
			continue
		}
		paths = append(paths, r.e.Path)
		batches = append(batches, r.batch)
		rates = append(rates, r.rate)
		elapsed = append(elapsed, r.elapsed)
		if s.xKey != "" {
			xs = append(xs, valueOrUnset(r.x))
		}
	}
	cols := []series.Series{
		series.New(paths, series.String, "path"),
		series.New(batches, series.String, s.batchLabel()),
	}
	if s.xKey != "" {
		cols = append(cols, series.New(xs, series.String, s.xKey))
	}
	cols = append(cols,
		series.New(rates, series.Float, metricRate.column),
		series.New(elapsed, series.Float, metricElapsed.column))
	return dataframe.New(cols...)
}

// figureName makes a file stem from parts.
func figureName(parts ...string) string {
	return plotting.Slug(strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "_"))
}
