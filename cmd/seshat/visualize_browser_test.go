package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/internal/charts"
	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi"
)

var imgTag = regexp.MustCompile(`<img src="([^"]+)" alt="([^"]*)"`)

// TestVisualizeInChromium opens every page of the reports of the shipped
// tree in headless Chromium (Debian's chromium, which .ci/run installs),
// and the regression report the index links to: the page loads, every
// image loads with a non-zero size, every local link leads to a file, and
// a screenshot is not blank.
func TestVisualizeInChromium(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "reports")
	// A regression report under the output directory, written first (as
	// a CI job may), linking back to the index visualize writes next.
	url, file := plant(t, dir, history(), current("64", droppedRates, risenLatencies))
	regression := filepath.Join(out, "regression-report")
	if r := runSeshat(t, nil, "regression", "--lts", file, "--history", url, "--report-dir", regression, "--reports-index", out); r.code != 2 {
		t.Fatalf("regression: exit %d: %s", r.code, r.stderr)
	}
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--history", historyFile, "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	pages, err := filepath.Glob(filepath.Join(out, "*.html"))
	if err != nil || len(pages) != 7 {
		t.Fatalf("pages %v (%v), want the index and 6 reports", pages, err)
	}
	index, err := os.ReadFile(filepath.Join(out, "reports_index.html"))
	if err != nil || !bytes.Contains(index, []byte(`href="regression-report/regression_report.html"`)) {
		t.Errorf("the index does not link to the regression report (%v)", err)
	}
	pages = append(pages, filepath.Join(regression, "regression_report.html"))
	for _, page := range pages {
		name := filepath.Base(page)
		t.Run(strings.TrimSuffix(name, ".html"), func(t *testing.T) {
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			imgs := imgTag.FindAllSubmatch(html, -1)
			for _, m := range imgs {
				if len(m[2]) == 0 {
					t.Errorf("%s has no alt text", m[1])
				}
			}
			if name != "reports_index.html" && !bytes.Contains(html, []byte(`reports_index.html"`)) {
				t.Error("no link back to reports_index.html")
			}

			// Every image file decodes and every local link leads to a file.
			p := browsertest.Open(t, page)
			browsertest.CheckResources(t, p)

			// The browser loads every image.
			loaded := browsertest.CheckPageImages(t, p)
			if len(loaded) != len(imgs) {
				t.Errorf("the browser saw %d images, the page has %d", len(loaded), len(imgs))
			}
			if len(imgs) > 0 {
				t.Logf("%d images loaded", len(loaded))
			}

			// A person sees something on the screen.
			browsertest.CheckNotBlank(t, p, 0.02)
			if dir := os.Getenv("SESHAT_SCREENSHOT_DIR"); dir != "" {
				if data, err := os.ReadFile(p.ScreenshotPath); err == nil {
					_ = os.WriteFile(filepath.Join(dir, strings.TrimSuffix(name, ".html")+".png"), data, 0o644)
				}
			}
		})
	}
}

// TestVisualizeChartsInChromium: the KPI history page, opened from
// file:// as in a CI artifact, draws its figures as charts with nothing
// but local files (no network); hovering a build shows its id; a click on
// a legend entry hides its series; the SVG, PNG and CSV are still written.
func TestVisualizeChartsInChromium(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	db := goldenHistoryDB(t)
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--history", "sqlite:"+db,
		"--generate", "report: KPI history", "--history-axis", "build", "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, ext := range []string{".svg", ".png", ".csv"} {
		if _, err := os.Stat(filepath.Join(out, "figures/kpi_history/history_rate_gflops_1"+ext)); err != nil {
			t.Errorf("the figure's %s: %v", ext, err)
		}
	}
	ctx, done := browsertest.Tab(t, (&url.URL{Scheme: "file", Path: filepath.Join(out, "kpi_history.html")}).String())
	defer done()
	browsertest.CheckOffline(t, ctx)
	browsertest.CheckChart(t, ctx, "kpi_history/history_rate_gflops_1", 1, "build ")
	browsertest.Screenshot(t, ctx, "kpi-history")
}

// TestVisualizeVerdictsInChromium: a verdict that `seshat regression
// --store-results` stored is marked on the static KPI history chart at its
// build, as the explorer's series page marks it (a golden keeps the chart
// the page embeds), and hovering that build shows the verdict.
func TestVisualizeVerdictsInChromium(t *testing.T) {
	t.Parallel()
	db := goldenHistoryDB(t)
	ctx := context.Background()
	s, err := lts.Open(ctx, "sqlite:"+db, lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The newest run of rate_gflops at 1024: a regression of its build.
	var newest lts.Record
	for r, err := range s.Records(ctx, lts.Query{Workload: "pi", Labels: models.Filter{"matrix_size": {"1024"}}}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Values["rate_gflops"]; ok && !r.Time.Before(newest.Time) {
			newest = r
		}
	}
	rule := pi.Workload{}.RegressionKeys().Rule()
	labels := rule.Series(newest.Labels)
	_, cval := rule.ComparisonOf(newest.Labels)
	vs, err := lts.AsVerdictStore(s)
	if err != nil {
		t.Fatal(err)
	}
	v := lts.Verdict{ID: lts.VerdictID("analysis-1", "pi", labels, cval, "rate_gflops"), AnalysisID: "analysis-1",
		Time: newest.Time.Add(time.Hour), Workload: "pi", Labels: labels, Comparison: cval, KPI: "rate_gflops",
		Status: "regression", Failing: true, DeltaPercent: -20, Build: newest.BuildID()}
	if err := vs.PutVerdicts(ctx, []lts.Verdict{v}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--history", "sqlite:"+db, "--filters", "matrix_size=1024",
		"--generate", "report: KPI history", "--history-axis", "build", "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "kpi_history.html"))
	if err != nil {
		t.Fatal(err)
	}
	var chart charts.Chart
	for _, m := range chartJSON.FindAllSubmatch(page, -1) {
		if err := json.Unmarshal(m[1], &chart); err != nil {
			t.Fatal(err)
		}
		if chart.ID == "kpi_history/history_rate_gflops_1" {
			break
		}
	}
	indented, err := json.MarshalIndent(chart, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "kpi_history_verdicts.json", string(indented)+"\n")
	var mark *charts.Mark
	for i := range chart.Marks {
		if chart.Marks[i].Kind == charts.MarkRegression {
			mark = &chart.Marks[i]
		}
	}
	if mark == nil || !strings.HasPrefix(mark.Label, "regression -20.0% (") || !strings.Contains(mark.Label, newest.BuildID()) {
		t.Fatalf("chart %s: marks %+v, want the regression at %s of %v %q", chart.Title, chart.Marks, newest.BuildID(), labels, cval)
	}

	browsertest.Chromium(t)
	tab, done := browsertest.Tab(t, (&url.URL{Scheme: "file", Path: filepath.Join(out, "kpi_history.html")}).String())
	defer done()
	// The point of the verdict's build, in CSS pixels, reached by the
	// mouse from aside.
	at, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const u = seshatCharts["kpi_history/history_rate_gflops_1"];
		u.root.scrollIntoView({block: "center"});
		const r = u.over.getBoundingClientRect(), i = u.data[0].indexOf(%g);
		const s = u.data.findIndex((ys, k) => k > 0 && ys[i] !== null);
		return [r.left + u.valToPos(%g, "x"), r.top + u.valToPos(u.data[s][i], "y")];
	})()`, mark.X, mark.X)))
	if err != nil || len(at) != 2 {
		t.Fatalf("chromium: locating the verdict's build: %v", err)
	}
	err = chromedp.Do(tab,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0]-30, at[1]+20),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]),
		chromedp.WaitVisible(chromedp.CSS(".seshat-tip .tip-regression")))
	if err != nil {
		t.Fatalf("chromium: hovering the verdict's build: %v", err)
	}
	tip, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(".seshat-tip")))
	if err != nil || !strings.Contains(tip, "regression: regression -20.0%") || !strings.Contains(tip, "build "+newest.BuildID()) {
		t.Errorf("the tooltip at the verdict's build reads %q (%v), want the regression of %s", tip, err, newest.BuildID())
	}
	browsertest.Screenshot(t, tab, "kpi-history-verdicts")
}

// chartJSON finds the charts a static page embeds.
var chartJSON = regexp.MustCompile(`<div class="seshat-chart"><script type="application/json">(.*?)</script>`)
