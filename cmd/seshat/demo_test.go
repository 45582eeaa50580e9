package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/lts"
)

// TestDemo runs the whole job as a newcomer would, twice in one work
// directory: each run exits 0, writes the reports it names, and the second
// appends to the history the first stored.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 120 PIs")
	}
	t.Parallel()
	work := filepath.Join(t.TempDir(), "demo")
	counts := []int64{}
	for i := range 2 {
		res := runSeshat(t, nil, "demo", "--workdir", work)
		if res.code != 0 {
			t.Fatalf("demo %d: exit %d\nstderr:\n%s", i+1, res.code, res.stderr)
		}
		for _, want := range []string{"Seshat demo done", "regression_report.html", "reports_index.html", "sqlite:" + filepath.Join(work, "lts.db")} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("demo %d: stdout lacks %q:\n%s", i+1, want, res.stdout)
			}
		}
		// The stdout table names every entry x KPI judged.
		if !strings.Contains(res.stdout, "rate_gflops") || !strings.Contains(res.stdout, "float64") {
			t.Errorf("demo %d: no regression table on stdout:\n%s", i+1, res.stdout)
		}
		// float64 does about half the GFLOPS of float32: against the three
		// nights of history that is a regression, or, on a host so busy
		// that its nights differ that much, noisy; never ok.
		rates := kpiRows(res.stdout, "rate_gflops")
		if len(rates) != 3 {
			t.Errorf("demo %d: %d rate_gflops results, want 3:\n%s", i+1, len(rates), res.stdout)
		}
		for _, row := range rates {
			if !regexp.MustCompile(` (regression|noisy) `).MatchString(row) {
				t.Errorf("demo %d: a float64 rate_gflops is not a regression (or noisy): %s\n%s", i+1, row, res.stdout)
			}
		}
		runs, err := filepath.Glob(filepath.Join(work, "runs", "*"))
		if err != nil || len(runs) != i+1 {
			t.Fatalf("demo %d: run directories %v (%v)", i+1, runs, err)
		}
		for _, f := range []string{"regression-report/regression_report.html", "regression-report/junit.xml", "regression-report/summary.md", "reports/reports_index.html", "reports/kpi_history.html"} {
			if _, err := os.Stat(filepath.Join(runs[i], f)); err != nil {
				t.Errorf("demo %d: %v", i+1, err)
			}
		}
		// The pages link each other: the index to the regression report
		// beside it, the report back to the index.
		for f, link := range map[string]string{"reports/reports_index.html": `href="../regression-report/regression_report.html"`,
			"regression-report/regression_report.html": `href="../reports/reports_index.html"`} {
			if data, err := os.ReadFile(filepath.Join(runs[i], f)); err != nil || !strings.Contains(string(data), link) {
				t.Errorf("demo %d: %s lacks %s (%v)", i+1, f, link, err)
			}
		}
		s, err := lts.Open(context.Background(), "sqlite:"+filepath.Join(work, "lts.db"), lts.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Count(context.Background(), lts.Query{})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, n)
		// Every run of every demo so far is stored once: the 60 runs of a
		// demo and the re-runs its --confirm made (a busy host's suspects).
		made, err := filepath.Glob(filepath.Join(work, "runs", "*", "results", "*", "*", "*__*"))
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(made)) || len(made) < 60*(i+1) {
			t.Errorf("demo %d: %d payloads stored, want one per run directory: %d (60 a demo and its re-runs)", i+1, n, len(made))
		}
	}
	t.Logf("stored payloads after each demo: %v", counts)
}
