package explorer_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
)

// TestLatestVerdict: /api/series gives each series the newest verdict
// stored for its main KPI (64: the improvement of nightly-04, newer than
// its regression; 256: the regression; 128: none), linked to the alerts
// of the series, which /api/alerts?series= lists; the landing page shows
// them as badges.
func TestLatestVerdict(t *testing.T) {
	t.Parallel()
	s, _ := alertStore(t)
	srv := serve(t, s, explorer.Options{})
	ids := seriesIDs(t, srv)
	var list explorer.SeriesList
	getJSON(t, srv, "/api/series", &list)
	got := map[string]*explorer.LatestVerdict{}
	for _, sr := range list.Series {
		got[sr.Labels["matrix_size"]] = sr.LatestVerdict
	}
	if v := got["64"]; v == nil || v.Status != "improvement" || v.Build != "nightly-04" || v.TriageState != explorer.Untriaged ||
		v.AlertsURL != "/alerts?series="+ids["64"] {
		t.Errorf("series 64: latest verdict %+v, want the improvement of nightly-04, untriaged, linked to its alerts", v)
	}
	if v := got["256"]; v == nil || v.Status != "regression" || v.Build != "nightly-03" {
		t.Errorf("series 256: latest verdict %+v, want the regression of nightly-03", v)
	}
	if v := got["128"]; v != nil {
		t.Errorf("series 128: latest verdict %+v, want none", v)
	}
	var alerts explorer.AlertList
	getJSON(t, srv, "/api/alerts?series="+ids["64"], &alerts)
	if alerts.Total != 2 {
		t.Errorf("/api/alerts?series=%s: %d alerts, want the 2 of series 64", ids["64"], alerts.Total)
	}
	code, page := get(t, srv, "/")
	if code != http.StatusOK {
		t.Fatalf("/: %d %s", code, page)
	}
	for _, want := range []string{`href="/alerts?series=` + ids["256"] + `"`, ">regression -12.5%</a>", ">improvement -12.5%</a>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the landing page lacks %q", want)
		}
	}
}

// TestLatestVerdictInChromium: the landing page shows a series' stored
// regression as a badge; a click on it lists the series' alerts.
func TestLatestVerdictInChromium(t *testing.T) {
	browsertest.Chromium(t)
	s, _ := alertStore(t)
	srv := serve(t, s, explorer.Options{})
	id := seriesIDs(t, srv)["256"]
	ctx, done := browsertest.Tab(t, srv.URL+"/")
	defer done()
	badge := `tr.series-row[data-series="` + id + `"] td.verdict a.badge`
	if text := value(t, ctx, "the badge", chromedp.Text(chromedp.CSS(badge))); !strings.HasPrefix(text, "regression") {
		t.Errorf("series 256's badge reads %q, want its regression", text)
	}
	// A failing regression is white on red.
	if color := value(t, ctx, "the badge's colour", chromedp.Evaluate[string](`getComputedStyle(document.querySelector('`+badge+`')).backgroundColor`)); color != "rgb(185, 28, 28)" {
		t.Errorf("the failing regression's badge is on %s, want red", color)
	}
	if w := value(t, ctx, "the page's width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 1280 {
		t.Errorf("the landing page is %d px wide, more than the window's 1,280", w)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "landing-verdicts"))
	do(t, ctx, "clicking the badge", chromedp.Click(chromedp.CSS(badge)), chromedp.WaitVisible(chromedp.ID("alerts")))
	if loc := value(t, ctx, "the URL", chromedp.Location()); !strings.HasSuffix(loc, "/alerts?series="+id) {
		t.Errorf("the badge led to %s, want the series' alerts", loc)
	}
	if n := value(t, ctx, "counting the alerts", chromedp.Evaluate[int](`document.querySelectorAll("tr.alert").length`)); n != 1 {
		t.Errorf("%d alerts listed for series 256, want its regression", n)
	}
}
