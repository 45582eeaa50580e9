package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/lts/opensearchtest"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// Whole-command tests of `seshat regression`: histories planted in a SQLite
// store with Store.Put, current runs in an LTS file (or a results
// directory), and what a CI job sees: exit status, stderr, the reports.

// day0 is the first planted run; stacks are a day apart.
var day0 = time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)

// stack is the runs of one comparison value (a framework version) of one
// series (a matrix size), a minute apart from at, with the given values of
// some KPIs (one per run); the other KPIs keep pitest's values.
type stack struct {
	version string
	size    string
	at      time.Time
	kpis    map[string][]float64
}

// payloads makes the stack's runs: real pi payloads (pitest), relabelled
// and re-timed. seed makes their test_uuids.
func (s stack) payloads(t *testing.T, seed uint64) []*models.Payload {
	t.Helper()
	n := 0
	for _, vs := range s.kpis {
		n = len(vs)
	}
	ps := pitest.Payloads(n, pitest.Options{Samples: 5, Seed: seed})
	for i, p := range ps {
		m := &p.Metadata
		m.Labels["framework_version"] = s.version
		m.Labels["matrix_size"] = s.size
		// One CI build per stack, as `seshat run` records it.
		m.Build = &models.Build{ID: "ci-" + s.version, Commit: fmt.Sprintf("%x", 0xc0ffee00+seed)}
		m.Start = s.at.Add(time.Duration(i) * time.Minute)
		m.End = m.Start.Add(2 * time.Second)
		for name, v := range p.KPIs {
			v.Timestamp = m.Start
			if vs, ok := s.kpis[name]; ok {
				v.Value = vs[i]
			}
			p.KPIs[name] = v
		}
	}
	return ps
}

// rates and latencies of eight stable stacks (GFLOPS, ms).
var (
	stableRates = [][]float64{{412, 409, 415}, {410, 411, 408}, {414, 416, 413}, {409, 412, 410},
		{413, 411, 412}, {408, 410, 409}, {412, 414, 411}, {410, 409, 411}}
	stableLatencies = [][]float64{{10.1, 10.0, 10.2}, {10.2, 10.1, 10.1}, {10.0, 10.1, 9.9}, {10.1, 10.2, 10.0},
		{10.0, 10.0, 10.1}, {10.2, 10.1, 10.2}, {10.1, 10.0, 10.0}, {10.1, 10.1, 10.2}}
)

// history is eight stacks v1.0.0..v1.7.0 of matrix size 64, a day apart.
func history() []stack {
	var out []stack
	for i := range stableRates {
		out = append(out, stack{version: fmt.Sprintf("v1.%d.0", i), size: "64", at: day0.Add(time.Duration(i) * 24 * time.Hour),
			kpis: map[string][]float64{"rate_gflops": stableRates[i], "elapsed_ms": stableLatencies[i]}})
	}
	return out
}

// current is the runs of v1.8.0 a day after the history.
func current(size string, rates, latencies []float64) stack {
	return stack{version: "v1.8.0", size: size, at: day0.Add(8 * 24 * time.Hour),
		kpis: map[string][]float64{"rate_gflops": rates, "elapsed_ms": latencies}}
}

// plant stores the history stacks in a new SQLite store and writes the
// current ones to an LTS file; it returns the store URL and the file.
func plant(t *testing.T, dir string, hist []stack, cur ...stack) (string, string) {
	t.Helper()
	var stored, now []*models.Payload
	for i, s := range hist {
		stored = append(stored, s.payloads(t, uint64(100+i))...)
	}
	for i, s := range cur {
		now = append(now, s.payloads(t, uint64(900+i))...)
	}
	url := "sqlite:" + filepath.Join(dir, "lts.db")
	st, err := lts.Open(context.Background(), url, lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) > 0 {
		if _, err := st.Put(context.Background(), stored); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "current.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := lts.WriteJSON(f, now, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return url, file
}

// summary reads a report directory's regression_summary.json.
func summary(t *testing.T, reportDir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(reportDir, "regression_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func counts(s map[string]any, keys ...string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, s[k]))
	}
	return strings.Join(parts, " ")
}

var (
	droppedRates    = []float64{371, 369, 372}    // -10%: a regression of a higher-is-better KPI
	risenLatencies  = []float64{11.3, 11.2, 11.4} // +12%: a regression of a lower-is-better KPI
	raisedRates     = []float64{452, 455, 451}    // +10%
	loweredLatency  = []float64{9.0, 9.1, 8.9}    // -11%
	steadyLatencies = []float64{10.1, 10.0, 10.1}
)

func TestRegressionPlantedRegressionExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, steadyLatencies))
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "rate_gflops regression of #1 pi @ framework_version=v1.8.0") || strings.Contains(r.stderr, "elapsed_ms regression") {
		t.Errorf("stderr does not name the regressed KPI alone:\n%s", r.stderr)
	}
	s := summary(t, reports)
	if got := counts(s, "regressions", "failed", "entries"); got != "regressions=1 failed=true entries=1" {
		t.Errorf("summary: %s", got)
	}
	findings := s["findings"].([]any)
	if f := findings[0].(map[string]any); f["kpi"] != "rate_gflops" || f["delta_percent"].(float64) > -9 || f["history_points"].(float64) != 8 {
		t.Errorf("finding %v", f)
	}
	// With failing off, the same regression exits 0 and is still reported.
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--fail-on-regression=false")
	if r.code != 0 || !strings.Contains(r.stdout, "regression") {
		t.Errorf("--fail-on-regression=false: exit %d\n%s", r.code, r.stdout)
	}
}

func TestRegressionAcknowledgedExits0(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, risenLatencies))
	cur := current("64", droppedRates, risenLatencies).payloads(t, 900)
	tests := []struct {
		name, acks string
		code       int
		stderr     string
	}{
		{"by comparison value, every KPI", "- comparison: {framework_version: v1.8.0}\n  reason: new BLAS kernels, PERF-7\n", 0, ""},
		{"by test_uuid and KPI", fmt.Sprintf("- {test_uuid: %s, kpi: rate_gflops, reason: known}\n- {test_uuid: %s, kpi: elapsed_ms, reason: known}\n",
			cur[1].Metadata.TestUUID, cur[2].Metadata.TestUUID), 0, ""},
		{"one KPI only", "[{\"comparison\": {\"framework_version\": \"v1.8.0\"}, \"kpi\": \"rate_gflops\", \"reason\": \"known\"}]", 2,
			"elapsed_ms regression"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ack := filepath.Join(dir, fmt.Sprintf("acks-%d.yaml", i))
			if err := os.WriteFile(ack, []byte(tt.acks), 0o644); err != nil {
				t.Fatal(err)
			}
			reports := filepath.Join(dir, fmt.Sprintf("report-%d", i))
			r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--ack", ack)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d (want %d)\n%s", r.code, tt.code, r.stderr)
			}
			if !strings.Contains(r.stdout, "acknowledged") {
				t.Errorf("stdout does not report the acknowledged regression:\n%s", r.stdout)
			}
			s := summary(t, reports)
			if tt.code == 0 && counts(s, "acknowledged", "regressions", "failed") != "acknowledged=2 regressions=0 failed=false" {
				t.Errorf("summary: %s", counts(s, "acknowledged", "regressions", "failed"))
			}
		})
	}
}

func TestRegressionImprovementExits0(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", raisedRates, loweredLatency))
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	if got := counts(summary(t, reports), "improvements", "regressions", "failed"); got != "improvements=2 regressions=0 failed=false" {
		t.Errorf("summary: %s\n%s", got, r.stdout)
	}
	md, err := os.ReadFile(filepath.Join(reports, "summary.md"))
	if err != nil || !strings.Contains(string(md), "🟢 improvement") {
		t.Errorf("summary.md does not report the improvements: %v\n%s", err, md)
	}
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--fail-on-improvement")
	if r.code != 2 || !strings.Contains(r.stderr, "rate_gflops improvement") {
		t.Errorf("--fail-on-improvement: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRegressionNoHistory: a history store that does not exist (a mistyped
// path) is invalid input, and is not created. A store without this history
// makes every KPI no-history (failed and incomplete runs are not analysed,
// with their reason): the outcome says that no result had history and the
// job exits 3, unless --allow-no-history passes a first run.
func TestRegressionNoHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results := copyResults(t)
	missing := filepath.Join(dir, "typo.db")
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--results-dir", results, "--history", "sqlite:"+missing, "--report-dir", reports)
	if r.code != 4 || !strings.Contains(r.stderr, "--history sqlite:"+missing+": store sqlite:"+missing+" does not exist") {
		t.Errorf("a history store that does not exist: exit %d, want 4\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the missing history store was created")
	}
	url, _ := plant(t, dir, []stack{{version: "v0", size: "4096", at: day0, kpis: map[string][]float64{"rate_gflops": {1}}}})
	for _, tt := range []struct {
		args    []string
		code    int
		outcome string
	}{
		{nil, 3, "NO DATA (exit 3): no result has history (26 no-history): is --history the store the runs are uploaded to? (--allow-no-history passes a first run)"},
		{[]string{"--allow-no-history"}, 0, "PASSED (exit 0): no result has history (26 no-history), allowed by --allow-no-history"},
	} {
		r = runSeshat(t, nil, append([]string{"regression", "--results-dir", results, "--history", url, "--report-dir", reports}, tt.args...)...)
		if r.code != tt.code || !strings.HasSuffix(r.stdout, "\n"+tt.outcome+"\n") {
			t.Errorf("%v: exit %d, want %d and the outcome %q\n%s\n%s", tt.args, r.code, tt.code, tt.outcome, r.stdout, r.stderr)
		}
		s := summary(t, reports)
		if got := counts(s, "no_history", "not_analyzed", "regressions", "ok"); got != "no_history=26 not_analyzed=3 regressions=0 ok=0" {
			t.Errorf("%v: summary: %s", tt.args, got)
		}
		for _, want := range []string{"exit code 1: no KPIs for a failed run", "exit_code:1: empty exit code", "no history for this KPI"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: stdout lacks %q:\n%s", tt.args, want, r.stdout)
			}
		}
	}
}

// TestRegressionHistoryOrderedByTime: versions whose names sort otherwise
// than their release order. mannwhitney compares the current batch with
// the previous one in time (v1.10.0, as slow as the current one): no
// regression. Ordered by name, the previous would be v1.9.0, 20% faster.
func TestRegressionHistoryOrderedByTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var hist []stack
	for i, v := range []struct {
		version string
		rate    float64
	}{{"v1.8.0", 50}, {"v1.9.0", 50}, {"v1.10.0", 40}} {
		var rates []float64
		for k := range 5 {
			rates = append(rates, v.rate+0.1*float64(k))
		}
		hist = append(hist, stack{version: v.version, size: "64", at: day0.Add(time.Duration(i) * 24 * time.Hour),
			kpis: map[string][]float64{"rate_gflops": rates}})
	}
	cur := stack{version: "v1.11.0", size: "64", at: day0.Add(5 * 24 * time.Hour),
		kpis: map[string][]float64{"rate_gflops": {40.05, 40.15, 40.25, 40.35, 40.45}}}
	url, file := plant(t, dir, hist, cur)
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--method", "mannwhitney", "--kpi-filter", "rate")
	if r.code != 0 || !strings.Contains(r.stdout, " ok ") {
		t.Fatalf("exit %d, want 0 (ok against v1.10.0)\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The same history with v1.10.0 released first is a regression
	// against v1.9.0.
	hist[2].at, hist[0].at, hist[1].at = day0, day0.Add(24*time.Hour), day0.Add(48*time.Hour)
	url, file = plant(t, t.TempDir(), hist, cur)
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--method", "mannwhitney", "--kpi-filter", "rate")
	if r.code != 2 {
		t.Errorf("v1.9.0 last: exit %d, want 2\n%s", r.code, r.stdout)
	}
}

// goldenScenario is the run behind the goldens and the browser check: a
// regression (rate_gflops), an acknowledged one (elapsed_ms), a series
// without history (size 128) and a failed run (size 256). It returns the
// result, the report directory and the temporary directory to hide.
func goldenScenario(t *testing.T, extra ...string) (result, string, string) {
	t.Helper()
	dir := t.TempDir()
	failed := current("256", []float64{1}, []float64{1})
	url, file := plant(t, dir, history(), current("64", droppedRates, risenLatencies), current("128", []float64{80, 81, 79}, []float64{4.1, 4.0, 4.2}), failed)
	// The failed run: exit code 1, no KPIs.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ps []*models.Payload
	if err := json.Unmarshal(data, &ps); err != nil {
		t.Fatal(err)
	}
	one := 1
	ps[len(ps)-1].Metadata.ExitCode, ps[len(ps)-1].KPIs = &one, map[string]models.KPIValue{}
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := lts.WriteJSON(f, ps, true); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	ack := filepath.Join(dir, "acks.yaml")
	if err := os.WriteFile(ack, []byte("- comparison: {framework_version: v1.8.0}\n  kpi: elapsed_ms\n  reason: larger blocks, accepted in PERF-12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, append([]string{"regression", "--lts", file, "--history", url, "--report-dir", reports, "--ack", ack}, extra...)...)
	return r, reports, dir
}

// TestRegressionGolden: what a person and a CI read, byte for byte:
// stdout, regression_summary.json, junit.xml and summary.md. Rewrite with
// go test ./cmd/seshat -run TestRegressionGolden -update.
func TestRegressionGolden(t *testing.T) {
	t.Parallel()
	r, reports, dir := goldenScenario(t)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	hide := func(s string) string { return strings.ReplaceAll(s, dir, "$TMP") }
	golden(t, "regression/stdout.txt", hide(r.stdout))
	for _, name := range []string{"regression_summary.json", "junit.xml", "summary.md"} {
		data, err := os.ReadFile(filepath.Join(reports, name))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "regression/"+name, hide(string(data)))
	}
	data, err := os.ReadFile(filepath.Join(reports, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil || suites.Tests != 9 || suites.Failures != 1 || suites.Skipped != 5 {
		t.Errorf("junit.xml: %+v, %v; want 9 testcases, 1 failure, 5 skipped", suites, err)
	}
}

// TestRegressionReportInBrowser opens the HTML report in headless
// Chromium: every figure it references exists, decodes and loads, its link
// back to the reports index leads to a file, and it renders.
func TestRegressionReportInBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	index := filepath.Join(t.TempDir(), "reports")
	r, reports, _ := goldenScenario(t, "--reports-index", index)
	if r.code != 2 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if err := os.MkdirAll(index, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(index, "reports_index.html"), []byte("<!DOCTYPE html><title>index</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(reports, "regression_report.html")
	p := browsertest.Check(t, page)
	figures, err := browsertest.Resources(p.DOM)
	if err != nil {
		t.Fatal(err)
	}
	n, back := 0, 0
	for _, f := range figures {
		switch {
		case f.Element == "img":
			n++
		case f.Element == "a" && strings.HasSuffix(f.URL, "reports_index.html"):
			back++
		}
	}
	if n != 2 {
		t.Errorf("%d figures in the report, want one per finding (2)", n)
	}
	if back == 0 {
		t.Error("no link back to the reports index")
	}
	if imgs := browsertest.CheckPageImages(t, p); len(imgs) != n {
		t.Errorf("the browser loaded %d images, the page has %d", len(imgs), n)
	}
	for _, want := range []string{"Configuration overview", "History overview", "st-regression", "<svg class=\"spark\"", "FAILED (exit 2)"} {
		if !strings.Contains(p.DOM, want) {
			t.Errorf("rendered report lacks %q", want)
		}
	}
}

// TestRegressionReportFitsAndFilters: in a 1,280 px window the results
// table is whole (no column cut off, nothing to scroll sideways), and one
// click on "failing only" leaves the failing results and hides the
// passing ones.
func TestRegressionReportFitsAndFilters(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	r, reports, _ := goldenScenario(t)
	if r.code != 2 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	page, err := filepath.Abs(filepath.Join(reports, "regression_report.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, done := browsertest.Tab(t, (&url.URL{Scheme: "file", Path: page}).String())
	defer done()
	browsertest.CheckFits(t, ctx, "table.results")
	count := `(() => { const rows = [...document.querySelectorAll("table.results td.kpi")].filter(td => td.offsetParent !== null);
		return [rows.length, rows.filter(td => td.parentElement.classList.contains("passing")).length]; })()`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](count))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, ctx, "all")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`label[for="failing-only"]`))); err != nil {
		t.Fatalf("chromium: clicking failing only: %v", err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](count))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, ctx, "failing")
	// The scenario's 9 results, 1 failing.
	if before[0] != 9 || before[1] != 8 || after[0] != 1 || after[1] != 0 {
		t.Errorf("visible results (all, passing): %v before the click, %v after; want [9 8] then [1 0]", before, after)
	}
}

// TestRegressionConfig: seshat.yaml's regression_analyses section and the
// environment set what the flags would.
func TestRegressionConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, steadyLatencies))
	cfg := filepath.Join(dir, "seshat.yaml")
	reports := filepath.Join(dir, "from-config")
	yaml := fmt.Sprintf("regression_analyses:\n  history: %s\n  method: zscore\n  comparison_keys: [framework_version]\n  report_dir: %s\n  fail_on_regression: false\n", url, reports)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, map[string]string{"SESHAT_KPI_FILTER": "rate"}, "--config", cfg, "regression", "--lts", file)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := summary(t, reports)
	if got := counts(s, "method", "regressions", "kpis"); got != "method=zscore regressions=1 kpis=1" {
		t.Errorf("summary: %s", got)
	}
	// Flags win over the file.
	r = runSeshat(t, nil, "--config", cfg, "regression", "--lts", file, "--fail-on-regression")
	if r.code != 2 {
		t.Errorf("--fail-on-regression over the file: exit %d", r.code)
	}
	// enabled: false analyses nothing.
	off := filepath.Join(dir, "off.yaml")
	if err := os.WriteFile(off, []byte("regression_analyses:\n  enabled: false\n  report_dir: "+filepath.Join(dir, "none")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runSeshat(t, nil, "--config", off, "regression", "--lts", file)
	if _, err := os.Stat(filepath.Join(dir, "none")); r.code != 0 || err == nil || !strings.Contains(r.stderr, "disabled") {
		t.Errorf("disabled: exit %d, %s", r.code, r.stderr)
	}
}

func TestRegressionBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", droppedRates, steadyLatencies))
	badAck := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badAck, []byte("- test_uuid: x\n  kpi: rate_gflops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failed run: labels, no KPIs.
	failed := current("64", []float64{1}, []float64{1}).payloads(t, 950)
	one := 1
	failed[0].Metadata.ExitCode, failed[0].KPIs = &one, map[string]models.KPIValue{}
	failedOnly := filepath.Join(dir, "failed.json")
	f, err := os.Create(failedOnly)
	if err != nil {
		t.Fatal(err)
	}
	if err := lts.WriteJSON(f, failed, false); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no current runs named", nil, 4, "--results-dir or --lts is required"},
		{"unknown method", []string{"--lts", file, "--method", "magic"}, 4, `unknown method "magic"`},
		{"ack without reason", []string{"--lts", file, "--ack", badAck}, 4, "bad.yaml:1: field [0].reason: missing"},
		{"missing ack file", []string{"--lts", file, "--ack", filepath.Join(dir, "nope.yaml")}, 4, "--ack:"},
		{"missing LTS file", []string{"--lts", filepath.Join(dir, "nope.json")}, 4, "--lts:"},
		{"no current entry", []string{"--lts", empty}, 3, "no current runs"},
		{"bad ignored entry", []string{"--lts", file, "--ignored-entries", "Pi=x"}, 4, "--ignored-entries"},
		{"every run ignored", []string{"--lts", file, "--ignored-entries", "matrix_size=64"}, 3, "3 run(s) skipped by ignored_entries"},
		{"no KPI value", []string{"--lts", failedOnly}, 3, "no current entry has a KPI value: 1 entries not analysed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"regression", "--history", url, "--report-dir", filepath.Join(dir, "r-"+strings.ReplaceAll(tt.name, " ", "-"))}, tt.args...)
			r := runSeshat(t, nil, args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d (want %d), stderr:\n%s", r.code, tt.code, r.stderr)
			}
		})
	}
}

// TestRegressionOpenSearchHistory: the same planted regression, its history
// in OpenSearch (the test server, a custom index prefix): the store answers
// with whole payloads, the verdict is the same.
func TestRegressionOpenSearchHistory(t *testing.T) {
	t.Parallel()
	ts := opensearchtest.Start(t, opensearchtest.Config{Seed: 5})
	dir := t.TempDir()
	_, file := plant(t, dir, nil, current("64", droppedRates, steadyLatencies))
	st, err := lts.Open(context.Background(), ts.URL, lts.StoreOptions{Index: lts.IndexNames{Prefix: "ci-"}})
	if err != nil {
		t.Fatal(err)
	}
	var stored []*models.Payload
	for i, s := range history() {
		stored = append(stored, s.payloads(t, uint64(100+i))...)
	}
	if _, err := st.Put(context.Background(), stored); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", ts.URL, "--index-prefix", "ci-", "--report-dir", reports)
	if r.code != 2 || !strings.Contains(r.stderr, "rate_gflops regression") {
		t.Fatalf("exit %d, want 2 naming rate_gflops\n%s", r.code, r.stderr)
	}
	if got := counts(summary(t, reports), "regressions", "ok"); got != "regressions=1 ok=3" {
		t.Errorf("summary: %s", got)
	}
	// Without the prefix, the indices are empty: no result has history,
	// which is no data (exit 3).
	r = runSeshat(t, nil, "regression", "--lts", file, "--history", ts.URL, "--report-dir", reports)
	if got := counts(summary(t, reports), "no_history"); r.code != 3 || got != "no_history=4" || !strings.Contains(r.stderr, "no result has history") {
		t.Errorf("default indices: exit %d, %s\n%s", r.code, got, r.stderr)
	}
}

// TestRegressionSuspectInBrowser: a single run of one build at a new level
// is a suspect: exit 0, and the report a browser renders shows it as one,
// with its figure and what would confirm it.
func TestRegressionSuspectInBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	dir := t.TempDir()
	url, file := plant(t, dir, history(), current("64", []float64{371}, []float64{10.1}))
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports, "--kpi-filter", "rate")
	if rows := kpiRows(r.stdout, "rate_gflops"); r.code != 0 || len(rows) != 1 || !regexp.MustCompile(` suspect +pass `).MatchString(rows[0]) {
		t.Fatalf("exit %d, want 0 with rate_gflops a suspect:\n%s%s", r.code, r.stdout, r.stderr)
	}
	page := filepath.Join(reports, "regression_report.html")
	p := browsertest.Check(t, page)
	for _, want := range []string{"st-suspect", "1 suspect to confirm", "--confirm re-runs the current one"} {
		if !strings.Contains(p.DOM, want) {
			t.Errorf("rendered report lacks %q", want)
		}
	}
	if imgs := browsertest.CheckPageImages(t, p); len(imgs) != 1 {
		t.Errorf("the browser loaded %d figures, want the suspect's", len(imgs))
	}
}

// TestRegressionSummaryEscapesLabels: summary.md is rendered by GitHub; a
// label value holding HTML or Markdown is written there as text.
func TestRegressionSummaryEscapesLabels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cur := current("64", droppedRates, risenLatencies)
	cur.version = "v1.8.0<img src=x onerror=alert(1)>[x](javascript:alert(1))"
	url, file := plant(t, dir, history(), cur)
	reports := filepath.Join(dir, "report")
	r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", reports)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(reports, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "<img") || strings.Contains(string(md), "[x](") ||
		!strings.Contains(string(md), "framework_version=v1.8.0&lt;img src=x onerror=alert(1)&gt;\\[x\\](javascript:alert(1))") {
		t.Errorf("summary.md does not escape the labels:\n%s", md)
	}
}

// kpiRows returns the rows of the stdout table under a KPI's heading
// ("rate_gflops (GFLOPS, higher is better)"): one per entry, starting with
// its number.
func kpiRows(stdout, kpi string) []string {
	var rows []string
	in := false
	for _, line := range strings.Split(stdout, "\n") {
		switch {
		case line == kpi || strings.HasPrefix(line, kpi+" ("):
			in = true
		case in && len(line) > 0 && line[0] >= '0' && line[0] <= '9':
			rows = append(rows, line)
		case in:
			return rows
		}
	}
	return rows
}

// unwrapped is text with its lines joined and runs of spaces made one: the
// notes below the stdout table are wrapped to fit a terminal.
func unwrapped(s string) string { return strings.Join(strings.Fields(s), " ") }
