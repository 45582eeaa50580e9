package history

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/plotting"
)

// Source is the history of `seshat visualize`'s KPI history pages: a
// store's runs grouped by the package's rule, each KPI series with the
// change points its Detector finds, handed to package plotting as its own
// plain structs.
type Source struct {
	Store lts.Store
	// Method is the change-point method (analyze.New); analyze.DefaultDetector
	// when "".
	Method string
}

var _ plotting.HistorySource = (*Source)(nil)

// String names the store.
func (s *Source) String() string { return s.Store.String() }

// Detector names the change-point method.
func (s *Source) Detector() string {
	if s.Method == "" {
		return analyze.DefaultDetector
	}
	return s.Method
}

// History reads the runs of q's workload and labels, cuts them into series
// and points by the workload's keys, keeps the series of q's current runs
// and finds the change points of each KPI series.
func (s *Source) History(ctx context.Context, q plotting.HistoryQuery) (*plotting.HistoryData, error) {
	m, err := analyze.New(s.Detector(), analyze.Params{})
	if err != nil {
		return nil, err
	}
	det, ok := m.(analyze.Detector)
	if !ok {
		return nil, fmt.Errorf("method %s does not find change points", s.Detector())
	}
	rule := Rule{Comparison: q.ComparisonKeys, Ignored: q.IgnoredKeys}
	wanted := map[string]bool{}
	for _, labels := range q.Current {
		_, key := SeriesKey(q.Workload, rule, labels)
		wanted[key] = true
	}
	out := &plotting.HistoryData{Wanted: len(wanted)}
	var records []lts.Record
	for r, err := range s.Store.Records(ctx, lts.Query{Workload: q.Workload, Labels: q.Labels}) {
		if err != nil {
			return nil, err
		}
		out.Values += len(r.Values)
		records = append(records, r)
	}
	verdicts, err := s.verdicts(ctx, q.Workload, rule)
	if err != nil {
		return nil, err
	}
	for _, sr := range Group(records, func(string) Rule { return rule }) {
		if !wanted[sr.Key] {
			continue
		}
		kpis := map[string]bool{}
		for _, r := range sr.Runs {
			for name := range r.Values {
				kpis[name] = true
			}
		}
		for _, name := range slices.Sorted(maps.Keys(kpis)) {
			ks := kpiSeries(sr, name, det)
			for i, b := range ks.Builds {
				if v, ok := verdicts[verdictKey{sr.Key, name, b.ID, b.Comparison}]; ok {
					ks.Verdicts = append(ks.Verdicts, plotting.Verdict{Index: i, Status: v.Status, Label: v.Summary()})
				}
			}
			out.Series = append(out.Series, ks)
		}
	}
	slices.SortStableFunc(out.Series, func(a, b plotting.HistorySeries) int {
		if a.KPI < b.KPI {
			return -1
		}
		if a.KPI > b.KPI {
			return 1
		}
		return 0
	})
	return out, nil
}

// verdictKey names a point of a KPI series: the series key, KPI, build
// and comparison value.
type verdictKey struct{ series, kpi, build, comparison string }

// verdicts reads the verdicts stored for a workload, when the store keeps
// them: the newest marked one (charts.VerdictMark: regressions,
// improvements, suspects, acknowledged findings) of each point, as the
// explorer's series pages mark them.
func (s *Source) verdicts(ctx context.Context, workload string, rule Rule) (map[verdictKey]*lts.Verdict, error) {
	vs, ok := s.Store.(lts.VerdictStore)
	if !ok {
		return nil, nil
	}
	list, err := vs.Verdicts(ctx, lts.VerdictQuery{Workload: workload})
	if err != nil {
		return nil, fmt.Errorf("reading the verdicts of %s from %s: %w", workload, s.Store, err)
	}
	out := map[verdictKey]*lts.Verdict{}
	for i := range list { // newest first
		v := &list[i]
		if charts.VerdictMark(v.Status) == "" {
			continue
		}
		_, key := SeriesKey(v.Workload, rule, v.Labels)
		k := verdictKey{key, v.KPI, v.Build, v.Comparison}
		if _, seen := out[k]; !seen {
			out[k] = v
		}
	}
	return out, nil
}

// kpiSeries is one KPI of a series, point by point, with its change points
// and its level after the last.
func kpiSeries(sr *Series, name string, det analyze.Detector) plotting.HistorySeries {
	points := Points(sr.Runs, name)
	out := plotting.HistorySeries{KPI: name, Labels: sr.Labels, Builds: make([]plotting.HistoryBuild, len(points))}
	medians := make([]float64, len(points))
	for i := range points {
		p := &points[i]
		b := plotting.HistoryBuild{ID: p.BuildID, Commit: p.Commit(), Comparison: p.ComparisonValue, Time: p.Time,
			Runs: p.Values(name)}
		if p.Build != nil {
			b.Ref = p.Build.Ref
			if p.Build.CI != nil {
				b.CIURL = p.Build.CI.URL
			}
		}
		b.Median = analyze.Median(b.Runs)
		medians[i] = b.Median
		out.Builds[i] = b
	}
	cps, warns := det.ChangePoints(medians)
	last := 0
	for _, c := range cps {
		out.ChangePoints = append(out.ChangePoints, plotting.ChangePoint{Index: c.Index, Before: c.MeanBefore, After: c.MeanAfter,
			ChangePercent: c.ForwardChangePercent(), PValue: c.PValue})
		last = c.Index
	}
	for _, w := range warns {
		out.Warnings = append(out.Warnings, fmt.Sprint(w))
	}
	out.Level = analyze.Median(medians[last:])
	return out
}
