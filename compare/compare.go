package compare

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/perf/benchmath"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/kpi"
	"github.com/seshat-bench/seshat/models"
)

// Source yields the payloads of one side.
type Source interface {
	// Name is how the side is shown (a path).
	Name() string
	Payloads(ctx context.Context) ([]*models.Payload, error)
}

// Options say how payloads become entries.
type Options struct {
	// Keys returns the labels of a workload that tell the two sides apart
	// (comparison keys) or that never tell entries apart (ignored keys):
	// both are left out of an entry's identity.
	Keys func(workload string) []string
	// Definition returns a KPI's definition, for its display format.
	Definition func(workload, kpi string) (kpi.Definition, bool)
	// Samples returns the per-iteration samples behind a KPI value of a
	// run, in the KPI's unit; nil when it has none. Nil Samples: none.
	Samples func(p *models.Payload, kpi string) []float64
	// SampleStats returns the summary of those samples (what the
	// hierarchical comparison needs of them) when it was kept, as a
	// store keeps it (lts.Record.Samples): true, with N 0 when the run has
	// no usable sample. False asks Samples. Nil SampleStats: Samples alone.
	SampleStats func(p *models.Payload, kpi string) (analyze.RunStats, bool)
	// Confidence is the level of the intervals (0.95 when 0); Alpha the
	// significance level of the test (0.05 when 0).
	Confidence, Alpha float64
	// NoRatioInterval leaves the ratio interval of the hierarchical rows
	// (Row.RatioLo, RatioHi) NaN, not computed, for a caller that shows
	// none (seshat serve): see analyze.HierBootstrap.NoRatioInterval.
	NoRatioInterval bool
}

// Table is the comparison of two sides.
type Table struct {
	A, B string
	// Fixed are the entry labels with one value throughout; entries are
	// named by the others.
	Fixed map[string]string
	// KPIs in name order, each with its rows.
	KPIs       []*KPITable
	Confidence float64
	Alpha      float64
}

// KPITable is one KPI's rows and geomean.
type KPITable struct {
	Workload    string
	KPI         string
	Unit        string
	LowerBetter bool
	Rows        []*Row
	// Geomean is nil when fewer than two entries have the KPI on both
	// sides, or a median is not positive.
	Geomean *Row

	def    kpi.Definition
	hasDef bool
}

// Row is one entry x KPI: both sides summarised and compared.
type Row struct {
	Entry string
	// A and B are nil when the side has no run of this entry.
	A, B *Summary
	// Delta is (B - A) / A in percent; NaN when a side is missing.
	Delta float64
	// P is the p-value; NaN when not tested (geomean, a side missing).
	P float64
	// Method is how the row was tested: MethodMannWhitney on the run
	// values, MethodHierarchical on the runs and their samples, "" when not
	// tested.
	Method string
	// Ratio is B's level over A's and RatioLo, RatioHi its interval, for
	// MethodHierarchical; NaN otherwise.
	Ratio, RatioLo, RatioHi float64
	// Significant is P < Alpha.
	Significant bool
	// Verdict is better, worse, ~ (no significant change) or "" (not
	// compared), in the KPI's direction.
	Verdict  string
	Warnings []string
}

// Summary is one side of a row: the median of the run values with its
// interval, or, for MethodHierarchical, the geometric mean of the samples
// with its interval.
type Summary struct {
	Center, Lo, Hi float64
	// N is the number of runs; Samples the number of per-iteration samples
	// in all (0 when the row used the run values alone).
	N       int
	Samples int
	Values  []float64
}

// The methods of a row.
const (
	// MethodMannWhitney is benchstat's: medians of the run values with
	// their order-statistic intervals, the Mann-Whitney U test.
	MethodMannWhitney = "mann-whitney"
	// MethodHierarchical is analyze.HierBootstrap on the runs and their
	// per-iteration samples.
	MethodHierarchical = "hierarchical-bootstrap"
)

// Build compares the payloads of two sides.
func Build(a, b []*models.Payload, names [2]string, opts Options) *Table {
	if opts.Confidence == 0 {
		opts.Confidence = 0.95
	}
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	t := &Table{A: names[0], B: names[1], Confidence: opts.Confidence, Alpha: opts.Alpha}
	// An entry is its number in entryNames (its canonical labels): a
	// cell's key hashes no long string.
	type key struct {
		workload string
		entry    int
		kpi      string
	}
	// cell is an entry x KPI: each side's run values and each run's
	// samples summarised (N 0 for a run without), and the last run's KPI.
	type cell struct {
		values [2][]float64
		runs   [2][]analyze.RunStats
		meta   models.KPIValue
	}
	cells := map[key]*cell{}
	var entryNames []string
	entryLabels := map[string]map[string]string{}
	entryIDs := map[string]int{}
	// A store's payloads share one labels map per label set (the runs of
	// a series): its entry is made once.
	type labelsOf struct {
		workload string
		labels   unsafe.Pointer
	}
	entries := map[labelsOf]int{}
	// Each payload's entry first, and how many runs each entry has a
	// side: a cell's values are made as long as its entry's runs at
	// once, not grown run by run (compare.Build is most of a serve
	// comparison's time, and its allocations most of that).
	var entryOf [2][]int
	var runsOf [][2]int // by entry
	for side, payloads := range [][]*models.Payload{a, b} {
		entryOf[side] = make([]int, len(payloads))
		for i, p := range payloads {
			id := labelsOf{p.Metadata.Workload, reflect.ValueOf(p.Metadata.Labels).UnsafePointer()}
			entry, ok := entries[id]
			if !ok {
				labels := maps.Clone(p.Metadata.Labels)
				var drop []string
				if opts.Keys != nil {
					drop = opts.Keys(p.Metadata.Workload)
				}
				for _, k := range drop {
					delete(labels, k)
				}
				name := canonical(labels)
				if entry, ok = entryIDs[name]; !ok {
					entry = len(entryNames)
					entryIDs[name] = entry
					entryNames = append(entryNames, name)
					runsOf = append(runsOf, [2]int{})
				}
				entryLabels[name] = labels
				if id.labels != nil {
					entries[id] = entry
				}
			}
			entryOf[side][i] = entry
			runsOf[entry][side]++
		}
	}
	// Without samples no row is hierarchical: the runs' summaries are
	// not kept.
	sampled := opts.Samples != nil || opts.SampleStats != nil
	for side, payloads := range [][]*models.Payload{a, b} {
		for i, p := range payloads {
			entry := entryOf[side][i]
			for name, v := range p.KPIs {
				k := key{p.Metadata.Workload, entry, name}
				c := cells[k]
				if c == nil {
					c = &cell{}
					n := runsOf[entry]
					values := make([]float64, 0, n[0]+n[1])
					c.values = [2][]float64{values[:0:n[0]], values[n[0]:n[0]]}
					if sampled {
						runs := make([]analyze.RunStats, 0, n[0]+n[1])
						c.runs = [2][]analyze.RunStats{runs[:0:n[0]], runs[n[0]:n[0]]}
					}
					cells[k] = c
				}
				c.values[side] = append(c.values[side], v.Value)
				c.meta = v
				if sampled {
					c.runs[side] = append(c.runs[side], opts.runStats(p, name))
				}
			}
		}
	}
	var all []map[string]string
	for _, l := range entryLabels {
		all = append(all, l)
	}
	vary, fixed := splitLabels(all)
	t.Fixed = fixed
	byKPI := map[[2]string]*KPITable{}
	keys := make([]key, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y key) int {
		return cmp.Or(strings.Compare(x.workload, y.workload), strings.Compare(x.kpi, y.kpi), strings.Compare(entryNames[x.entry], entryNames[y.entry]))
	})
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = opts.Alpha
	tests := uTests{}
	for _, k := range keys {
		c := cells[k]
		kt := byKPI[[2]string{k.workload, k.kpi}]
		if kt == nil {
			kt = &KPITable{Workload: k.workload, KPI: k.kpi, Unit: c.meta.Unit, LowerBetter: c.meta.LowerBetter}
			if opts.Definition != nil {
				kt.def, kt.hasDef = opts.Definition(k.workload, k.kpi)
			}
			byKPI[[2]string{k.workload, k.kpi}] = kt
			t.KPIs = append(t.KPIs, kt)
		}
		s, rs := c.values, c.runs
		name := entryName(entryLabels[entryNames[k.entry]], vary, k.workload)
		row := compareHierarchical(name, rs[0], rs[1], s[0], s[1], kt.LowerBetter, opts)
		if row == nil {
			row = compareRow(name, s[0], s[1], kt.LowerBetter, &thresholds, opts.Confidence, tests)
		}
		kt.Rows = append(kt.Rows, row)
	}
	for _, kt := range t.KPIs {
		kt.Geomean = geomean(kt)
	}
	return t
}

// runStats is the summary of the samples behind a KPI of a run: kept
// (SampleStats), else made from Samples; N 0 when it has none, or one
// that analyze refuses (not positive).
func (o *Options) runStats(p *models.Payload, kpi string) analyze.RunStats {
	if o.SampleStats != nil {
		if s, ok := o.SampleStats(p, kpi); ok {
			return s
		}
	}
	if o.Samples == nil {
		return analyze.RunStats{}
	}
	s, err := analyze.SummarizeRun(o.Samples(p, kpi))
	if err != nil {
		return analyze.RunStats{}
	}
	return s
}

// compareRow summarises and tests one entry x KPI (its U test kept in
// tests by rank pattern).
func compareRow(entry string, a, b []float64, lowerBetter bool, th *benchmath.Thresholds, confidence float64, tests uTests) *Row {
	r := &Row{Entry: entry, Delta: math.NaN(), P: math.NaN(), Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN()}
	var sa, sb *benchmath.Sample
	summarize := func(side string, vs []float64) (*Summary, *benchmath.Sample) {
		if len(vs) == 0 {
			r.Warnings = append(r.Warnings, side+": no run")
			return nil, nil
		}
		s := benchmath.NewSample(vs, th)
		sum := benchmath.AssumeNothing.Summary(s, confidence)
		for _, ws := range [][]error{s.Warnings, sum.Warnings} {
			for _, w := range ws {
				r.Warnings = append(r.Warnings, side+": "+w.Error())
			}
		}
		return &Summary{Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(vs), Values: s.Values}, s
	}
	r.A, sa = summarize("A", a)
	r.B, sb = summarize("B", b)
	if sa == nil || sb == nil {
		return r
	}
	r.Method = MethodMannWhitney
	c := tests.test(sa, sb)
	for _, w := range c.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	r.P = c.P
	r.Significant = c.P < c.Alpha
	if r.A.Center != 0 {
		r.Delta = (r.B.Center - r.A.Center) / r.A.Center * 100
	}
	r.Verdict = verdict(r, lowerBetter)
	return r
}

func verdict(r *Row, lowerBetter bool) string {
	if r.Significant && r.B.Center != r.A.Center {
		if (r.B.Center < r.A.Center) == lowerBetter {
			return "better"
		}
		return "worse"
	}
	return "~"
}

// compareHierarchical tests one entry x KPI on every run and every
// per-iteration sample, by analyze.HierBootstrap, when every run of both
// sides has samples and each side has two runs or more (the spread
// between runs must be seen); nil otherwise, for compareRow to test the
// run values. A run whose samples analyze refuses (not positive) has none
// (runStats): it leaves the row to compareRow too. The runs are given as
// their samples' summaries (analyze.HierBootstrap.CompareStats).
func compareHierarchical(entry string, a, b []analyze.RunStats, va, vb []float64, lowerBetter bool, opts Options) *Row {
	if len(a) < 2 || len(b) < 2 {
		return nil
	}
	for _, side := range [][]analyze.RunStats{a, b} {
		for _, run := range side {
			if run.N == 0 {
				return nil
			}
		}
	}
	h, err := analyze.HierBootstrap{Confidence: opts.Confidence, NoRatioInterval: opts.NoRatioInterval}.CompareStats(a, b)
	if err != nil {
		return nil
	}
	side := func(l analyze.HierLevel, values []float64) *Summary {
		return &Summary{Center: l.Center, Lo: l.Lo, Hi: l.Hi, N: l.Runs, Samples: l.Samples, Values: values}
	}
	r := &Row{Entry: entry, A: side(h.A, va), B: side(h.B, vb), Delta: (h.Ratio - 1) * 100, P: h.P,
		Method: MethodHierarchical, Ratio: h.Ratio, RatioLo: h.Lo, RatioHi: h.Hi}
	r.Significant = h.P < opts.Alpha
	r.Verdict = verdict(r, lowerBetter)
	return r
}

// geomean is benchstat's geomean row: the geometric mean of the medians of
// the entries present on both sides, when every one is positive.
func geomean(kt *KPITable) *Row {
	var la, lb float64
	n := 0
	for _, r := range kt.Rows {
		if r.A == nil || r.B == nil {
			continue
		}
		if !(r.A.Center > 0) || !(r.B.Center > 0) {
			return nil
		}
		la += math.Log(r.A.Center)
		lb += math.Log(r.B.Center)
		n++
	}
	if n < 2 {
		return nil
	}
	ga, gb := math.Exp(la/float64(n)), math.Exp(lb/float64(n))
	return &Row{Entry: "geomean", A: &Summary{Center: ga, Lo: math.NaN(), Hi: math.NaN(), N: n}, B: &Summary{Center: gb, Lo: math.NaN(), Hi: math.NaN(), N: n},
		Delta: (gb - ga) / ga * 100, P: math.NaN(), Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN()}
}

// Display formats a value of the KPI for people.
func (kt *KPITable) Display(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if kt.hasDef {
		return kt.def.Display(v)
	}
	return strings.TrimSpace(fmt.Sprintf("%.4g %s", v, kt.Unit))
}

// Direction words the KPI's direction.
func (kt *KPITable) Direction() string {
	if kt.LowerBetter {
		return "lower is better"
	}
	return "higher is better"
}

// Significant counts the rows with a significant change, by verdict.
func (t *Table) Significant() (better, worse int) {
	for _, kt := range t.KPIs {
		for _, r := range kt.Rows {
			switch r.Verdict {
			case "better":
				better++
			case "worse":
				worse++
			}
		}
	}
	return better, worse
}

// canonical is an entry's identity: its labels as k=v, sorted by name,
// NUL-separated, made in one buffer (it is made for each series of a
// serve comparison).
func canonical(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	size := 0
	for k, v := range labels {
		keys = append(keys, k)
		size += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(size)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(labels[k])
	}
	return b.String()
}

// splitLabels returns the labels whose values differ among entries (or are
// missing from some), sorted, and those every entry shares.
func splitLabels(entries []map[string]string) ([]string, map[string]string) {
	if len(entries) == 1 {
		// Each of its labels has one value throughout (a serve
		// comparison's series is one entry).
		return nil, maps.Clone(entries[0])
	}
	values := map[string]map[string]bool{}
	present := map[string]int{}
	for _, e := range entries {
		for k, v := range e {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][v] = true
			present[k]++
		}
	}
	fixed := map[string]string{}
	var vary []string
	for k, vs := range values {
		if len(vs) == 1 && present[k] == len(entries) {
			for v := range vs {
				fixed[k] = v
			}
			continue
		}
		vary = append(vary, k)
	}
	sort.Strings(vary)
	return vary, fixed
}

// entryName names an entry by the labels that vary, as k=v pairs, or by
// the value alone when only one label varies (a benchmark's name).
func entryName(labels map[string]string, vary []string, workload string) string {
	var parts []string
	for _, k := range vary {
		if v, ok := labels[k]; ok && k != kpi.LabelWorkload && k != kpi.LabelSettingsVersion {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 1 {
		_, v, _ := strings.Cut(parts[0], "=")
		return v
	}
	if len(parts) == 0 {
		return workload
	}
	return strings.Join(parts, " ")
}
