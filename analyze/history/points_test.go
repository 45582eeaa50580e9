package history

import (
	"math"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
)

func record(uuid, build, commit string, minute int, labels map[string]string, values map[string]float64) lts.Record {
	r := lts.Record{TestUUID: uuid, Time: time.Date(2026, 11, 1, 0, minute, 0, 0, time.UTC), Labels: labels, Values: values}
	if build != "" {
		r.Build = &models.Build{ID: build, Commit: commit}
	}
	return r
}

// The points a user sees in the regression report, the KPI history pages
// and serve: one per build and comparison value, the median of its runs,
// at its earliest run, in time order.
func TestPoints(t *testing.T) {
	t.Parallel()
	rule := Rule{Comparison: []string{"framework_version"}, Ignored: []string{"kernel"}}
	v1 := map[string]string{"pi": "matmul", "framework_version": "1.0", "kernel": "6.1"}
	v2 := map[string]string{"pi": "matmul", "framework_version": "2.0", "kernel": "6.2"}
	records := []lts.Record{
		record("a", "nightly-02", "bbbbbbb1", 20, v1, map[string]float64{"rate": 10}),
		record("b", "nightly-01", "aaaaaaa1", 10, v1, map[string]float64{"rate": 1, "mem": 5}),
		record("c", "nightly-01", "aaaaaaa1", 5, v1, map[string]float64{"rate": 3}),
		record("d", "nightly-01", "aaaaaaa1", 15, v1, map[string]float64{"rate": 2}),
		record("e", "nightly-02", "bbbbbbb1", 20, v2, map[string]float64{"rate": 20}),
		record("f", "", "", 30, v2, map[string]float64{"rate": 30}),
	}
	var runs []Run
	for _, r := range records {
		runs = append(runs, RunOf(r, rule))
	}
	type want struct {
		build, cmp string
		minute     int
		median     float64
		runs       int
	}
	for _, tt := range []struct {
		name string
		kpi  string
		want []want
	}{
		{"every run", "", []want{{"nightly-01", "1.0", 5, 2, 3}, {"nightly-02", "1.0", 20, 10, 1}, {"nightly-02", "2.0", 20, 20, 1}, {"run:f", "2.0", 30, 30, 1}}},
		{"runs holding the KPI", "mem", []want{{"nightly-01", "1.0", 10, 5, 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Points(runs, tt.kpi)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d points, want %d: %+v", len(got), len(tt.want), got)
			}
			name := tt.kpi
			if name == "" {
				name = "rate"
			}
			for i, w := range tt.want {
				p := got[i]
				if p.BuildID != w.build || p.ComparisonValue != w.cmp || p.Time.Minute() != w.minute || len(p.Runs) != w.runs {
					t.Errorf("point %d = %s %q at minute %d with %d runs, want %+v", i, p.BuildID, p.ComparisonValue, p.Time.Minute(), len(p.Runs), w)
				}
				if m := p.Median(name); m != w.median {
					t.Errorf("point %d: median %g, want %g", i, m, w.median)
				}
				if a := p.Analyze(name); a.Value != w.median || a.Build != w.build || a.Label != w.cmp || !a.Time.Equal(p.Time) {
					t.Errorf("point %d as analysed: %+v", i, a)
				}
			}
			if c := got[0].Commit(); c != "aaaaaaa1" {
				t.Errorf("commit of the first point: %q", c)
			}
		})
	}
	if m := (&Point{}).Median("rate"); !math.IsNaN(m) {
		t.Errorf("median of a point without runs = %g, want NaN", m)
	}
}

// A series is the labels minus the comparison, ignored and meta labels.
func TestRuleSeries(t *testing.T) {
	t.Parallel()
	rule := Rule{Comparison: []string{"framework_version", "blas"}, Ignored: []string{"kernel"}}
	labels := map[string]string{"pi": "matmul", "framework_version": "1.0", "blas": "openblas", "kernel": "6.1", "test_uuid": "x"}
	if got := Canonical(rule.Series(labels)); got != "pi\x00matmul\x00" {
		t.Errorf("series labels %q", got)
	}
	if _, v := rule.ComparisonOf(labels); v != "framework_version=1.0, blas=openblas" {
		t.Errorf("comparison value %q", v)
	}
	if _, v := (Rule{Comparison: []string{"blas"}}).ComparisonOf(labels); v != "openblas" {
		t.Errorf("comparison value of one label %q", v)
	}
}
