package pi

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/analyze/history"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/plotting"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

func TestPlotProvider(t *testing.T) {
	t.Parallel()
	w, ok := workloads.Builtin().Get(Name)
	if !ok {
		t.Fatal("pi is not registered")
	}
	p, ok := w.(workloads.PlotProvider)
	if !ok {
		t.Fatal("pi is not a PlotProvider")
	}
	want := []string{ReportRatePerBatch, ReportBatchStatistics, ReportScaling, ReportBatchComparison, ReportKPIHistory, ReportErrors}
	var got []string
	for _, d := range p.Plots().Reports() {
		got = append(got, d.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}

func TestDefaultBatchKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vars []string
		want string
	}{
		{"backend wins", []string{"dtype", "backend", "matrix_size"}, "backend"},
		{"first non-shape", []string{"matrix_size", "repetitions", "framework_image", "dtype"}, "dtype"},
		{"measurement controls are not batches", []string{"matrix_size", "repetitions", "warmup"}, ""},
		{"nothing varies", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string][]any{}
			for _, v := range tt.vars {
				vars[v] = []any{1, 2}
			}
			if got := DefaultBatchKey(vars); got != tt.want {
				t.Errorf("DefaultBatchKey(%v) = %q, want %q", tt.vars, got, tt.want)
			}
		})
	}
}

// context builds what Generate hands a report for the shipped tree.
func plotContext(t *testing.T, filters store.Filters) *plotting.Context {
	m := load(t, store.Options{ResultsDir: copyResults(t), Filters: filters})
	vars := map[string][]any{}
	for k, v := range m.Variables {
		vars[k] = v
	}
	return &plotting.Context{Context: context.Background(), Workload: Name, Entries: m.Entries, Variables: vars}
}

func TestShapeLeavesOutFailedRuns(t *testing.T) {
	t.Parallel()
	ctx := plotContext(t, nil)
	s := newShape(ctx, "")
	if s.batchKey != "backend" || !slices.Equal(s.batches, []string{"gonum", "numpy"}) {
		t.Errorf("batches %s = %v", s.batchKey, s.batches)
	}
	if s.failed != 1 || s.incomplete != 2 || s.unmeasured != 1 {
		t.Errorf("skipped: %d failed, %d incomplete, %d unmeasured; want 1, 2, 1", s.failed, s.incomplete, s.unmeasured)
	}
	// Panels are sorted by value: 256 before 1024.
	if want := []string{"dtype=float32, matrix_size=256", "dtype=float32, matrix_size=512", "dtype=float32, matrix_size=1024",
		"dtype=float32, matrix_size=2048", "dtype=float64, matrix_size=512"}; !slices.Equal(s.panels, want) {
		t.Errorf("panels %q, want %q", s.panels, want)
	}
	for _, r := range s.runs {
		if strings.Contains(r.e.Path, "8192") || math.IsNaN(r.elapsed) {
			t.Errorf("run %s is drawn", r.e.Path)
		}
	}
}

func TestBatchKeyOverride(t *testing.T) {
	t.Parallel()
	ctx := plotContext(t, nil)
	ctx.BatchKey = "dtype"
	s := buildShape(ctx, "")
	if !slices.Equal(s.batches, []string{"float32", "float64"}) || slices.Contains(s.panelKeys, "dtype") {
		t.Errorf("--batch-key dtype: batches %v, panel keys %v", s.batches, s.panelKeys)
	}
	ctx.BatchKey = "nonexistent"
	s = buildShape(ctx, "")
	if !slices.Equal(s.batches, []string{unsetValue}) || len(s.notes) != 1 {
		t.Errorf("--batch-key nonexistent: batches %v, notes %v", s.batches, s.notes)
	}
}

func TestReportsDegrade(t *testing.T) {
	t.Parallel()
	// Only the failed run: nothing to draw, and every page says why.
	ctx := plotContext(t, store.Filters{"matrix_size": {8192}})
	for _, build := range []func(*plotting.Context) (*plotting.Page, error){ratePerBatchReport, batchStatisticsReport, scalingReport, batchComparisonReport, kpiHistoryReport} {
		page, err := build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if page.Empty == "" || len(page.Figures()) > 0 {
			t.Errorf("%s: Empty %q with %d figures, want a reason and none", page.Title, page.Empty, len(page.Figures()))
		}
	}
	page, err := errorReport(ctx)
	if err != nil || page.Empty != "" || len(page.Sections) != 1 || page.Sections[0].Title != "Failed runs" {
		t.Fatalf("error report: %v %+v", err, page)
	}
	row := page.Sections[0].Tables[0].Rows[0]
	if row[1].Text != "1" || !strings.Contains(row[3].Text, "_ArrayMemoryError") {
		t.Errorf("failed run row %+v", row)
	}
}

func TestKPIHistory(t *testing.T) {
	t.Parallel()
	ctx := plotContext(t, store.Filters{"matrix_size": {1024}})
	page, err := kpiHistoryReport(ctx)
	if err != nil || page.Empty != HistoryNotConfigured {
		t.Fatalf("without history: %v, %q", err, page.Empty)
	}
	// A history of the numpy series with a 1.5x step at day 10.
	labels := currentLabels(entryAt(t, &store.Matrix{Entries: ctx.Entries}, "matmul_batches/004__backend=numpy__repeat=0"))
	var payloads []*models.Payload
	for day := range 24 {
		rate := 300 + float64(day%3)
		if day >= 10 {
			rate *= 1.5
		}
		l := map[string]string{}
		for k, v := range labels {
			l[k] = v
		}
		l["framework_version"] = "1.24" // ignored: the series goes on across versions
		ts := time.Date(2025, 1, 1+day, 0, 0, 0, 0, time.UTC)
		payloads = append(payloads, &models.Payload{
			Metadata: models.Metadata{TestUUID: fmt.Sprint("day-", day), Workload: Name, Labels: l, Start: ts},
			KPIs:     map[string]models.KPIValue{"rate_gflops": {Value: rate, Unit: "GFLOPS", Timestamp: ts}},
		})
	}
	ctx.History = &history.Source{Store: lts.NewMemory("test", payloads...)}
	page, err = kpiHistoryReport(ctx)
	if err != nil || page.Empty != "" {
		t.Fatalf("history: %v, %q", err, page.Empty)
	}
	if len(page.Sections) != 2 || page.Sections[0].Title != "rate_gflops" || page.Sections[1].Title != "Change points" {
		t.Fatalf("sections %+v", page.Sections)
	}
	rows := page.Sections[1].Tables[0].Rows
	if len(rows) != 1 || rows[0][2].Text != "run day-10" || rows[0][4].Text != "2025-01-11T00:00:00Z" || !strings.HasPrefix(rows[0][7].Text, "+50.") {
		t.Errorf("change points %+v, want one at day 10 (its run, without a build), +50%%", rows)
	}
	df := page.Sections[0].Figures[0].Data
	if n := df.Nrow(); n != 24 || df.Col("unix_time").Float()[0] != float64(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()) {
		t.Errorf("figure data has %d rows from %v, want 24 from Jan 1", n, df.Col("unix_time").Float()[:1])
	}
	// On the build axis, the builds side by side, the days two by two
	// (two runs of one build), named by commit.
	for i, p := range payloads {
		p.Metadata.Build = &models.Build{ID: fmt.Sprint("nightly-", i/2), Commit: fmt.Sprintf("%07x0000", 0xabc000+i/2)}
	}
	ctx.History, ctx.HistoryAxis = &history.Source{Store: lts.NewMemory("test", payloads...)}, plotting.AxisBuild
	page, err = kpiHistoryReport(ctx)
	if err != nil || page.Empty != "" {
		t.Fatalf("build axis: %v, %q", err, page.Empty)
	}
	df = page.Sections[0].Figures[0].Data
	if x := df.Col("build_index").Float(); df.Nrow() != 12 || x[0] != 0 || x[11] != 11 || df.Col("runs").Float()[0] != 2 ||
		df.Col("commit").Records()[0] != "0abc0000000" {
		t.Errorf("build axis data:\n%v", df)
	}
}
