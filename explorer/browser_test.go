package explorer_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
)

// do runs chromedp actions in a tab, failing the test on an error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("chromium: %s: %v", what, err)
	}
}

// value runs an action that returns a value, failing the test on an
// error.
func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("chromium: %s: %v", what, err)
	}
	return v
}

// TestHistoryInChromium: the history page draws one chart per KPI;
// hovering a build's median shows its id, short commit, ref, CI run and
// run count; a click on a legend entry hides its series.
func TestHistoryInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	ctx, done := browsertest.Tab(t, srv.URL+"/series/"+seriesIDs(t, srv)["64"])
	defer done()
	do(t, ctx, "the charts", chromedp.WaitVisible(chromedp.CSS(`section.chart[data-kpi="rate_gflops"] .uplot`)))
	if n := value(t, ctx, "counting the charts", chromedp.Evaluate[int](`document.querySelectorAll("#charts .uplot").length`)); n != 5 {
		t.Errorf("%d charts, want one per KPI (5)", n)
	}

	// The median of nightly-03 (build 2) on the rate chart, in CSS pixels.
	at := value(t, ctx, "locating nightly-03", chromedp.Evaluate[[]float64](`(() => {
		const u = seshatCharts.rate_gflops, r = u.over.getBoundingClientRect();
		const i = u.data[0].indexOf(2);
		return [r.left + u.valToPos(2, "x"), r.top + u.valToPos(u.data[1][i], "y")];
	})()`))
	do(t, ctx, "hovering nightly-03",
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0]-30, at[1]+20),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]),
		chromedp.WaitVisible(chromedp.ID("tooltip")))
	tip := value(t, ctx, "the tooltip", chromedp.Text(chromedp.ID("tooltip")))
	for _, want := range []string{"build nightly-03", "commit a1b2c3f", "ref main", "CI github 9002 https://ci.example.com/runs/9002", "2 runs", "median "} {
		if !strings.Contains(tip, want) {
			t.Errorf("the tooltip over nightly-03 lacks %q: %q", want, tip)
		}
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "history"))

	legend := `section.chart[data-kpi="rate_gflops"] .u-legend .u-series:last-child`
	if label := value(t, ctx, "the legend", chromedp.Text(chromedp.CSS(legend+` .u-label`))); label != "runs" {
		t.Fatalf("legend entry %q, want runs", label)
	}
	do(t, ctx, "clicking the legend", chromedp.Click(chromedp.CSS(legend+` .u-label`)))
	shown := value(t, ctx, "the runs series", chromedp.Evaluate[bool](`seshatCharts.rate_gflops.series[2].show`))
	class := value(t, ctx, "the legend entry", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).className`, legend)))
	if shown || !strings.Contains(class, "u-off") {
		t.Errorf("after a click on its legend entry the runs are shown=%v (class %q), want hidden", shown, class)
	}
}

// TestLandingInChromium: a click on a label value narrows the list to the
// series that have it, and a click on the filter's chip widens it again.
func TestLandingInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	ctx, done := browsertest.Tab(t, srv.URL+"/")
	defer done()
	rows := func() int {
		return value(t, ctx, "counting the series", chromedp.Evaluate[int](`document.querySelectorAll("tr.series-row").length`))
	}
	if n := rows(); n != fixtureSeries {
		t.Fatalf("%d series listed, want %d", n, fixtureSeries)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "landing"))
	do(t, ctx, "filtering by matrix_size=64",
		chromedp.Click(chromedp.CSS(`.facet[data-label="matrix_size"] a[data-value="64"]`)),
		chromedp.WaitVisible(chromedp.ID("active-filter")))
	value(t, ctx, "the filtered page loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	loc := value(t, ctx, "the URL", chromedp.Location())
	if n := rows(); n != 1 || !strings.HasSuffix(loc, "/?matrix_size=64") {
		t.Errorf("filtered by matrix_size=64: %d series at %s, want 1", n, loc)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "landing-filtered"))
	do(t, ctx, "removing the filter",
		chromedp.Click(chromedp.CSS(`#active-filter a.chip`)),
		chromedp.WaitNotPresent(chromedp.ID("active-filter")))
	// The filter's absence is seen as soon as the next page starts; its
	// rows are all there once it is whole.
	value(t, ctx, "the page loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	if n := rows(); n != fixtureSeries {
		t.Errorf("the filter removed: %d series, want %d", n, fixtureSeries)
	}
}

// TestMarkupIsTextInChromium: a setting and a label value holding a script
// are shown as text on every page, and no script of theirs runs; the pages
// fit the window's width.
func TestMarkupIsTextInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	id := seriesIDs(t, srv)["256"]
	for _, c := range []struct{ name, path, selector string }{
		{"build", "/builds/nightly-01", ".setting-value"},
		{"landing", "/", "tr.series-row .label"},
		{"series", "/series/" + id, "p.labels .label"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, done := browsertest.Tab(t, "about:blank")
			defer done()
			// A dialog would block the page: close the tab, failing what
			// follows.
			var dialogs atomic.Int32
			if err := chromedp.Listen(ctx, func(ev any) {
				if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
					dialogs.Add(1)
					go done()
				}
			}); err != nil {
				t.Fatal(err)
			}
			do(t, ctx, "opening "+c.path, chromedp.Navigate(srv.URL+c.path))
			texts := value(t, ctx, "the texts", chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll(%q), e => e.textContent)`, c.selector)))
			scripts := value(t, ctx, "the scripts", chromedp.Evaluate[int](`document.querySelectorAll("script:not([src]):not([type='application/json'])").length`))
			found := false
			for _, s := range texts {
				found = found || strings.Contains(s, xss)
			}
			if !found {
				t.Errorf("%s: no %s shows %s as text: %q", c.path, c.selector, xss, texts)
			}
			if scripts != 0 || dialogs.Load() != 0 {
				t.Errorf("%s: %d inline scripts, %d dialogs: the markup ran", c.path, scripts, dialogs.Load())
			}
			// Nothing is cut or needs a sideways scroll at 1,280 px.
			if w := value(t, ctx, "the page's width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 1280 {
				t.Errorf("%s is %d px wide, more than the window's 1,280", c.path, w)
			}
			t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, c.name))
		})
	}
}
