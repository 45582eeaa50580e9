package history

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

// Run is a stored run of a series with its comparison value.
type Run struct {
	lts.Record
	// ComparisonKey is the canonical text of the run's comparison labels
	// (Canonical of Rule.ComparisonOf); ComparisonValue the value people
	// read.
	ComparisonKey, ComparisonValue string
}

// RunOf returns the run of a record under a rule.
func RunOf(r lts.Record, rule Rule) Run {
	cmp, value := rule.ComparisonOf(r.Labels)
	return Run{Record: r, ComparisonKey: Canonical(cmp), ComparisonValue: value}
}

// PointKey tells the points of a series apart: the build and the
// comparison value.
func (r Run) PointKey() string { return r.BuildID() + "\x00" + r.ComparisonKey }

// Point is a build of a series at one comparison value: its runs.
type Point struct {
	// BuildID is lts.Record.BuildID; Build the build's metadata (nil for
	// a run without a build).
	BuildID string
	Build   *models.Build
	// ComparisonValue is the runs' comparison value, as people read it.
	ComparisonValue string
	// Time is the start of the earliest run.
	Time time.Time
	// Runs are the point's runs, in the order given.
	Runs []Run
}

// Commit is the commit of the point's build, "" when unknown.
func (p *Point) Commit() string {
	if p.Build == nil {
		return ""
	}
	return p.Build.Commit
}

// Values are the values of a KPI of the point's runs that hold it.
func (p *Point) Values(kpi string) []float64 {
	var out []float64
	for _, r := range p.Runs {
		if v, ok := r.Values[kpi]; ok {
			out = append(out, v)
		}
	}
	return out
}

// Median is the point's value of a KPI: the median of its runs' values;
// NaN when none holds it.
func (p *Point) Median(kpi string) float64 { return analyze.Median(p.Values(kpi)) }

// Analyze is the point of a KPI as the regression methods read it.
func (p *Point) Analyze(kpi string) analyze.Point {
	out := analyze.PointOf(p.Values(kpi)...)
	out.Label, out.Time, out.Build, out.Commit = p.ComparisonValue, p.Time, p.BuildID, p.Commit()
	var host analyze.HostCounts
	for _, r := range p.Runs {
		if _, ok := r.Values[kpi]; ok {
			host.Add(r.HostLoad, r.CPUShare, r.CPUPressure)
		}
	}
	host.Set(&out)
	return out
}

// Points combines the runs of one series into points, by the package's
// rule: one per build and comparison value, at the time of its earliest
// run, ordered by time, then comparison value, then build id. With kpi
// set, only the runs holding that KPI count.
func Points(runs []Run, kpi string) []Point {
	var out []Point
	index := map[string]int{}
	for _, r := range runs {
		if _, ok := r.Values[kpi]; kpi != "" && !ok {
			continue
		}
		key := r.PointKey()
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, Point{BuildID: r.BuildID(), Build: r.Build, ComparisonValue: r.ComparisonValue, Time: r.Time})
		}
		if r.Time.Before(out[i].Time) {
			out[i].Time = r.Time
		}
		out[i].Runs = append(out[i].Runs, r)
	}
	slices.SortStableFunc(out, func(x, y Point) int {
		return cmp.Or(x.Time.Compare(y.Time), strings.Compare(x.ComparisonValue, y.ComparisonValue), strings.Compare(x.BuildID, y.BuildID))
	})
	return out
}
