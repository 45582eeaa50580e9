package main

import (
	"bytes"
	"context"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/workloads"
)

const (
	historyFile    = "../../testdata/history/pi_history.json"
	visualizeGold  = "visualize"
	visualizeFiles = ".svg .html .csv"
)

// reportFiles lists the files of a report tree a person reads (pages,
// figures as SVG, their data), relative and sorted.
func reportFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(visualizeFiles, filepath.Ext(path)) {
			return err
		}
		rel, err := filepath.Rel(root, path)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// withoutChartScript replaces the chart script a page inlines (checked in
// internal/charts and by the browser tests) with a placeholder, so that the
// goldens show the page's own markup and data.
func withoutChartScript(page []byte) []byte {
	return bytes.Replace(page, []byte(charts.Inline()), []byte("<!-- internal/charts.Inline() -->\n"), 1)
}

// TestVisualizeGolden draws every pi report of the shipped tree, with the
// shipped KPI history: pages, SVG figures and CSV data are compared with
// testdata/golden/visualize (go test ./cmd/seshat -run TestVisualizeGolden
// -update rewrites them), every PNG decodes.
func TestVisualizeGolden(t *testing.T) {
	t.Parallel()
	results := copyResults(t)
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", results, "--history", historyFile, "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := "wrote 6 pages (0 without data)"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	gold := filepath.Join(goldenDir, visualizeGold)
	got := reportFiles(t, out)
	if *update {
		if err := os.RemoveAll(gold); err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			data, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			data = withoutChartScript(data)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(gold, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gold, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := reportFiles(t, gold)
	if !slices.Equal(got, want) {
		t.Fatalf("files differ (rerun with -update and review):\n got %v\nwant %v", got, want)
	}
	for _, f := range got {
		g, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(filepath.Join(gold, f))
		if err != nil {
			t.Fatal(err)
		}
		g = withoutChartScript(g)
		if !bytes.Equal(g, w) {
			t.Errorf("%s differs (rerun with -update and review the diff):\n%s", f, firstDiff(string(g), string(w)))
		}
		if strings.HasSuffix(f, ".svg") {
			data, err := os.ReadFile(filepath.Join(out, strings.TrimSuffix(f, ".svg")+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("%s.png: %v", strings.TrimSuffix(f, ".svg"), err)
			}
		}
	}
}

// A failed run is data for the error report, never a point in a rate plot.
func TestVisualizeFailedRunOnlyInErrorReport(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--output-dir", out,
		"--generate", "report: Rate per batch", "--generate", "report: Error report")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	failed := []string{"matmul_sizes/007__matrix_size=8192", "matmul_batches/006__backend=numpy__repeat=2", "matmul_sizes/001__matrix_size=128"}
	errorPage, err := os.ReadFile(filepath.Join(out, "error_report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failed {
		if !bytes.Contains(errorPage, []byte(f)) {
			t.Errorf("error report lacks %s", f)
		}
	}
	if !bytes.Contains(errorPage, []byte("Unable to allocate 256. MiB")) {
		t.Error("error report lacks the failed run's stderr")
	}
	for _, f := range reportFiles(t, out) {
		if !strings.HasSuffix(f, ".csv") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range failed {
			if bytes.Contains(data, []byte(bad)) {
				t.Errorf("%s holds the failed entry %s", f, bad)
			}
		}
	}
}

func TestVisualizePlotsYAML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plots := filepath.Join(dir, "plots.yaml")
	spec := `visualize:
- id: batches
  generate: ["report: Batch comparison", "plot: Rate violin plot"]
  filters: ["matrix_size=1024"]
- id: torch
  generate: ["report: Rate per batch"]
  filters: [{backend: torch}]
`
	if err := os.WriteFile(plots, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--plots", plots, "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	top := read("reports_index.html")
	for _, want := range []string{`href="batches/batch_comparison.html"`, `href="batches/plot_rate_violin_plot.html"`, `href="torch/rate_per_batch.html"`} {
		if !strings.Contains(top, want) {
			t.Errorf("index lacks %s", want)
		}
	}
	if cmp := read("batches/batch_comparison.html"); !strings.Contains(cmp, "numpy vs gonum: 20.12x [20.01, 20.27]") {
		t.Errorf("comparison page lacks the headline:\n%s", cmp)
	}
	if torch := read("torch/rate_per_batch.html"); !strings.Contains(torch, "No entries of the pi workload match the filters backend=torch.") {
		t.Errorf("torch page does not say it has no data:\n%s", torch)
	}
}

func TestVisualizeErrors(t *testing.T) {
	t.Parallel()
	results := copyResults(t)
	dir := t.TempDir()
	badPlots := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badPlots, []byte("visualize:\n- id: a\n  generate: [\"report: Rate per batch\"]\n  filter: [x=1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownPlots := filepath.Join(dir, "unknown.yaml")
	if err := os.WriteFile(unknownPlots, []byte("visualize:\n- id: a\n  generate: [\"report: Throughput\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"unknown report", []string{"--generate", "report: Rates"}, 4,
			[]string{`unknown report "Rates" (known reports: "Batch comparison", "Batch statistics", "Error report", "KPI history", "Median time per benchmark", "Rate per batch", "Scaling", "Score per benchmark", "Time per benchmark", "Time per iteration", "Time per operation", "Wall time per command")`}},
		{"unknown plot", []string{"--generate", "plot: Rate pie chart"}, 4,
			[]string{`unknown plot "Rate pie chart" (known plots: "Batch ratio", "Elapsed scaling", "Rate box plot", "Rate scaling", "Rate statistics", "Rate violin plot")`}},
		{"unknown in plots.yaml", []string{"--plots", unknownPlots}, 4, []string{`unknown report "Throughput"`}},
		{"no kind", []string{"--generate", "Rate per batch"}, 4, []string{`want "report: NAME" or "plot: NAME"`}},
		{"bad plots.yaml", []string{"--plots", badPlots}, 4, []string{"bad.yaml:4: field filter not found"}},
		{"missing plots.yaml", []string{"--plots", filepath.Join(dir, "none.yaml")}, 4, []string{"none.yaml"}},
		{"missing store", []string{"--history", "sqlite:" + filepath.Join(dir, "none.db")}, 4, []string{"--history sqlite:", "none.db"}},
		{"history not payloads", []string{"--history", badPlots}, 4, []string{"--history:", "bad.yaml"}},
		{"no output dir", []string{"--output-dir", ""}, 4, []string{"--output-dir is required"}},
		{"bad filters", []string{"--filters", "backend"}, 4, []string{"--filters"}},
		{"no match", []string{"--filters", "backend=torch"}, 3, []string{"match the filters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"visualize", "--results-dir", results, "--output-dir", filepath.Join(out, tt.name)}, tt.args...)
			r := runSeshat(t, nil, args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d: %s", r.code, tt.code, r.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
	if r := runSeshat(t, nil, "visualize", "--results-dir", filepath.Join(dir, "none"), "--output-dir", out); r.code != 4 {
		t.Errorf("missing results dir: exit %d, want 4: %s", r.code, r.stderr)
	}
}

// The KPI history report reads the embedded LTS store.
func TestVisualizeHistoryFromStore(t *testing.T) {
	t.Parallel()
	db := goldenHistoryDB(t)
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--history", "sqlite:"+db,
		"--generate", "report: KPI history", "--filters", "matrix_size=1024", "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "kpi_history.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from sqlite:", `<h2>rate_gflops</h2>`, `src="figures/kpi_history/history_rate_gflops_1.svg"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %s", want)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "figures/kpi_history/history_rate_gflops_1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The three gonum and two numpy runs at 1024 are the history's points.
	if n := bytes.Count(csv, []byte("\n")) - 1; n != 5 {
		t.Errorf("history of rate_gflops has %d points, want 5:\n%s", n, csv)
	}
}

// Flags mirror the plots section of seshat.yaml and SESHAT_ variables.
func TestVisualizeConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "seshat.yaml")
	out := filepath.Join(dir, "from-config")
	conf := "results_dir: " + copyResults(t) + "\nplots:\n  output_dir: " + out + "\n  generate: [\"report: Scaling\"]\n  x_key: matrix_size\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, map[string]string{"SESHAT_BATCH_KEY": "dtype"}, "--config", cfg, "visualize")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "scaling.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("one line per dtype")) {
		t.Errorf("SESHAT_BATCH_KEY not applied:\n%s", page)
	}
}

// goldenHistoryDB is a SQLite store of the golden tree's LTS payloads.
func goldenHistoryDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, "lts.json"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := lts.ReadPayloads("lts.json", data, func(name string) (lts.Workload, bool) {
		w, ok := workloads.Builtin().Get(name)
		if !ok {
			return nil, false
		}
		p, ok := w.(workloads.KPIProvider)
		return p, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "lts.db")
	s, err := lts.Open(context.Background(), "sqlite:"+db, lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(context.Background(), lts.Payloads(records)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}
