package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/browsertest"
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
