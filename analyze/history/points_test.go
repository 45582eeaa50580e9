package history

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/analyze"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
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

// The KPI history pages get one series per KPI and series labels, the
// points in time order whatever order the runs were stored in, and only
// the series of the runs at hand.
func TestSourceHistory(t *testing.T) {
	t.Parallel()
	day := func(d int, backend string) *models.Payload {
		at := time.Date(2026, 1, 10-d, 0, 0, 0, 0, time.UTC) // newest first
		uuid := fmt.Sprint("run-", backend, d)
		return &models.Payload{
			Metadata: models.Metadata{TestUUID: uuid, Start: at, Workload: "pi",
				Labels: map[string]string{"backend": backend, "framework_version": string(rune('a' + d))}},
			KPIs: map[string]models.KPIValue{
				"rate":    {Value: float64(d), Unit: "GFLOPS", Timestamp: at, TestUUID: uuid},
				"elapsed": {Value: float64(10 * d), Unit: "ms", LowerBetter: true, Timestamp: at, TestUUID: uuid},
			},
		}
	}
	src := &Source{Store: lts.NewMemory("mem", day(0, "numpy"), day(1, "numpy"), day(2, "numpy"), day(0, "gonum"))}
	data, err := src.History(context.Background(), plotting.HistoryQuery{Workload: "pi",
		Current: []map[string]string{{"backend": "numpy", "framework_version": "z"}}, ComparisonKeys: []string{"framework_version"}})
	if err != nil {
		t.Fatal(err)
	}
	if data.Wanted != 1 || data.Values != 8 || len(data.Series) != 2 || data.Series[0].KPI != "elapsed" || data.Series[1].KPI != "rate" {
		t.Fatalf("history %+v: want elapsed then rate of the numpy series, 8 values read", data)
	}
	rate := data.Series[1]
	if len(rate.Builds) != 3 || rate.Builds[0].Median != 2 || rate.Builds[2].Median != 0 || rate.Builds[0].Comparison != "c" {
		t.Errorf("rate series %+v: want three points, the oldest (value 2, framework c) first", rate)
	}
	if rate.Labels["backend"] != "numpy" || len(rate.Labels) != 1 {
		t.Errorf("series labels %v", rate.Labels)
	}
	if src.Detector() != analyze.DefaultDetector {
		t.Errorf("detector %q", src.Detector())
	}
}

// The KPI history pages mark the verdicts `seshat regression
// --store-results` stored, as the explorer's series pages do: at the point
// of the verdict's build and comparison value, the newest verdict of each
// point, regressions, improvements, suspects and acknowledged findings
// only (not ok), and only on the verdict's series and KPI.
func TestSourceVerdicts(t *testing.T) {
	t.Parallel()
	rule := Rule{Comparison: []string{"framework_version"}}
	var payloads []*models.Payload
	for b, backend := range []string{"numpy", "numpy", "numpy", "gonum"} {
		at := time.Date(2026, 1, 1+b, 0, 0, 0, 0, time.UTC)
		uuid := fmt.Sprint("run-", b)
		payloads = append(payloads, &models.Payload{
			Metadata: models.Metadata{TestUUID: uuid, Start: at, Workload: "pi", Build: &models.Build{ID: fmt.Sprint("nightly-0", b)},
				Labels: map[string]string{"backend": backend, "framework_version": "1.0"}},
			KPIs: map[string]models.KPIValue{"rate": {Value: float64(10 - b), Unit: "GFLOPS", Timestamp: at, TestUUID: uuid}},
		})
	}
	mem := lts.NewMemory("mem", payloads...)
	verdict := func(analysis string, minute int, backend, build, status string, delta float64) lts.Verdict {
		labels := map[string]string{"backend": backend}
		return lts.Verdict{ID: lts.VerdictID(analysis, "pi", labels, "1.0", "rate"), AnalysisID: analysis,
			Time: time.Date(2026, 2, 1, 0, minute, 0, 0, time.UTC), Workload: "pi", Labels: labels, Comparison: "1.0",
			KPI: "rate", Status: status, DeltaPercent: lts.Float(delta), Build: build}
	}
	vs := []lts.Verdict{
		verdict("a1", 1, "numpy", "nightly-02", "regression", -10),
		verdict("a2", 2, "numpy", "nightly-02", "acknowledged", -10), // newer: it is the one marked
		verdict("a3", 3, "numpy", "nightly-01", "ok", -1),            // not marked
		verdict("a4", 4, "gonum", "nightly-03", "regression", -30),   // another series
	}
	if err := mem.PutVerdicts(context.Background(), vs); err != nil {
		t.Fatal(err)
	}
	data, err := (&Source{Store: mem}).History(context.Background(), plotting.HistoryQuery{Workload: "pi",
		Current: []map[string]string{{"backend": "numpy", "framework_version": "1.0"}}, ComparisonKeys: rule.Comparison})
	if err != nil || len(data.Series) != 1 {
		t.Fatalf("history %+v (%v): want the numpy series of rate", data, err)
	}
	want := []plotting.Verdict{{Index: 2, Status: "acknowledged", Label: "acknowledged -10.0%"}}
	if got := data.Series[0].Verdicts; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts %+v, want %+v", got, want)
	}
}
