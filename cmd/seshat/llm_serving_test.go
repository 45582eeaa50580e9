package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/internal/openmetricstest"
)

// TestLLMServingWorkloadFile drives examples/llm-serving end to end: a
// workload declared in a file, run by `seshat run` (fake-loadtest writes
// the JSON report, its speed set by the service_ms setting), parsed,
// uploaded to a SQLite store for three releases, then the fourth, 25%
// slower per token, judged by `seshat regression` (exit 2), drawn by
// `seshat visualize` and the pages opened in headless Chromium.
func TestLLMServingWorkloadFile(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"sh", "awk", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the example's load generator is a shell script", tool)
		}
	}
	benchmark, err := filepath.Abs("../../examples/llm-serving/benchmark.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := "sqlite:" + filepath.Join(dir, "lts.db")
	results := func(v string) string { return filepath.Join(dir, "results-"+v) }
	for _, v := range []string{"v1_0", "v1_1", "v1_2", "v1_3"} {
		// The workload file beside the benchmark declares llm_serving; run
		// copies it to the top of the results directory.
		r := runSeshat(t, nil, "run", "--benchmark", benchmark, "--results-dir", results(v), "--expe", v)
		if r.code != 0 {
			t.Fatalf("run %s: exit %d: %s", v, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(results(v), "workload.yaml")); err != nil {
			t.Fatalf("run %s did not keep the workload file: %v", v, err)
		}
	}
	// Strict payloads: every run has its required values and labels.
	r := runSeshat(t, nil, "parse", "--results-dir", results("v1_0"), "--output-lts", filepath.Join(dir, "lts.json"))
	if r.code != 0 || !strings.Contains(r.stderr, "parsed 10 entries: 0 cached, 10 parsed") {
		t.Fatalf("parse: exit %d: %s", r.code, r.stderr)
	}
	r = runSeshat(t, nil, "kpis", "--results-dir", results("v1_0"))
	if r.code != 0 || !strings.Contains(r.stdout, "llm_serving_request_throughput{") {
		t.Fatalf("kpis: exit %d: %s %.300s", r.code, r.stderr, r.stdout)
	}
	if fams, err := openmetricstest.Parse([]byte(r.stdout)); err != nil || len(fams) == 0 {
		t.Fatalf("kpis: not valid OpenMetrics (%d families): %v", len(fams), err)
	}
	for _, v := range []string{"v1_0", "v1_1", "v1_2"} {
		r := runSeshat(t, nil, "upload", "--results-dir", results(v), "--store", store)
		if r.code != 0 || !strings.Contains(r.stderr, "10 new") {
			t.Fatalf("upload %s: exit %d: %s", v, r.code, r.stderr)
		}
	}
	r = runSeshat(t, nil, "regression", "--results-dir", results("v1_3"), "--history", store,
		"--report-dir", filepath.Join(dir, "regression-report"))
	if r.code != 2 {
		t.Fatalf("regression on the slower release: exit %d, want 2: %s\n%s", r.code, r.stderr, r.stdout)
	}
	for _, want := range []string{"request_throughput", "latency_p99_seconds", "regression"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("regression table lacks %q:\n%s", want, r.stdout)
		}
	}
	// The release before it, judged the same way, is fine.
	r = runSeshat(t, nil, "regression", "--results-dir", results("v1_2"), "--history", store,
		"--report-dir", filepath.Join(dir, "regression-report-ok"))
	if r.code != 0 {
		t.Fatalf("regression on an equal release: exit %d, want 0: %s\n%s", r.code, r.stderr, r.stdout)
	}

	out := filepath.Join(dir, "reports")
	r = runSeshat(t, nil, "visualize", "--results-dir", results("v1_3"), "--history", store, "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("visualize: exit %d: %s", r.code, r.stderr)
	}
	pages := []string{"reports_index.html", "throughput_per_version.html", "latency_per_version.html",
		"throughput_against_concurrency.html", "kpi_history.html"}
	for _, name := range pages {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Fatalf("visualize wrote no %s: %v", name, err)
		}
	}
	figures, _ := filepath.Glob(filepath.Join(out, "figures", "*", "*.svg"))
	if len(figures) < 10 {
		t.Errorf("%d figures, want the distribution, scaling and history figures: %v", len(figures), figures)
	}
	// The distributions are split by concurrency: no box mixes loads.
	for _, c := range []string{"4", "16"} {
		if m, _ := filepath.Glob(filepath.Join(out, "figures", "*", "distribution_request_throughput_concurrency_"+c+".svg")); len(m) != 1 {
			t.Errorf("no throughput distribution of concurrency %s: %v", c, figures)
		}
	}
	r = runSeshat(t, nil, "workload", "check", filepath.Join(results("v1_3"), "workload.yaml"), "--results-dir", results("v1_3"))
	if r.code != 0 || !strings.Contains(r.stdout, "strict validation: ok") || !strings.Contains(r.stdout, "server_version=1.3.0") {
		t.Fatalf("workload check: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}

	browsertest.Chromium(t)
	for _, name := range pages {
		t.Run(strings.TrimSuffix(name, ".html"), func(t *testing.T) {
			// Each page in a tab of the shared Chromium, side by side;
			// the cleanups above wait for them.
			t.Parallel()
			page := filepath.Join(out, name)
			p := browsertest.Open(t, page)
			browsertest.CheckResources(t, p)
			loaded := browsertest.CheckPageImages(t, p)
			if name != "reports_index.html" && name != "kpi_history.html" && len(loaded) == 0 {
				t.Errorf("%s: the browser loaded no figure", name)
			}
		})
	}
}
