package explorer_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/explorer"
	"github.com/seshat-bench/seshat/internal/browsertest"
	"github.com/seshat-bench/seshat/models"
)

// levelledFixture is the fixture with the rate of matrix size 256 four
// times that of the others (levels that differ), and its dtype label that
// of the others (not xss): each series differs from the others in its
// matrix size only.
func levelledFixture() []*models.Payload {
	ps := fixture()
	for _, p := range ps {
		if p.Metadata.Labels["matrix_size"] == "256" {
			p.Metadata.Labels["dtype"] = strings.TrimSuffix(p.Metadata.Labels["dtype"], xss)
			v := p.KPIs["rate_gflops"]
			v.Value *= 4
			p.KPIs["rate_gflops"] = v
		}
	}
	return ps
}

// TestSeriesPageOptions: a series page offers to overlay the series that
// differ from it in one label (the other matrix sizes), carries the
// histories of those overlaid (?overlay=ID) named by that label, and links
// the build and time axes keeping the overlays.
func TestSeriesPageOptions(t *testing.T) {
	t.Parallel()
	srv := serve(t, sqliteStore(t, levelledFixture()), explorer.Options{})
	ids := seriesIDs(t, srv)
	code, page := get(t, srv, "/series/"+ids["64"]+"?overlay="+ids["128"])
	if code != http.StatusOK {
		t.Fatalf("GET the series page: %d %s", code, page)
	}
	for _, want := range []string{
		`<fieldset data-label="matrix_size">`,
		`value="` + ids["128"] + `" checked> 128`,
		`value="` + ids["256"] + `"> 256`,
		`"name":"matrix_size=64","overlays":[{"name":"matrix_size=128","history":{"series":{"id":"` + ids["128"] + `"`,
		`href="/series/` + ids["64"] + `?axis=time&amp;overlay=` + ids["128"] + `" data-axis="time"`,
		`data-axis="build" class="active"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the series page lacks %q", want)
		}
	}
	if strings.Contains(page, `value="`+ids["64"]+`"`) {
		t.Errorf("the series page offers to overlay itself")
	}
}

// TestAxisToggleInChromium: the series page's "time" toggle puts the URL
// at ?axis=time and the charts' x labels become dates (UTC); "builds" puts
// them back at the build ids.
func TestAxisToggleInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, fixture()), explorer.Options{})
	id := seriesIDs(t, srv)["64"]
	ctx, done := browsertest.Tab(t, srv.URL+"/series/"+id)
	defer done()
	labels := func(axis string) string {
		do(t, ctx, "the charts on the "+axis+" axis", chromedp.WaitVisible(chromedp.CSS(`#charts[data-axis="`+axis+`"] section.chart[data-kpi="rate_gflops"] .uplot`)))
		return value(t, ctx, "the x labels", chromedp.Evaluate[string](`seshatCharts.rate_gflops.axes[0]._values.join(" | ")`))
	}
	if l := labels("build"); !strings.Contains(l, "nightly-01") || strings.Contains(l, "2026") {
		t.Errorf("x labels on the build axis %q, want build ids", l)
	}
	do(t, ctx, "clicking time", chromedp.Click(chromedp.CSS(`#axis-toggle a[data-axis="time"]`)))
	l := labels("time")
	if loc := value(t, ctx, "the URL", chromedp.Location()); !strings.HasSuffix(loc, "/series/"+id+"?axis=time") {
		t.Errorf("after the time toggle the URL is %s, want ?axis=time", loc)
	}
	if !strings.Contains(l, "2026-01-01") || strings.Contains(l, "nightly") {
		t.Errorf("x labels on the time axis %q, want times with the date 2026-01-01", l)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "time-axis"))
	do(t, ctx, "clicking builds", chromedp.Click(chromedp.CSS(`#axis-toggle a[data-axis="build"]`)))
	if l := labels("build"); !strings.Contains(l, "nightly-01") {
		t.Errorf("x labels back on the build axis %q, want build ids", l)
	}
}

// TestOverlayInChromium: picking another matrix size overlays it on every
// KPI chart (a legend entry named by its label); one of similar level
// keeps the KPI's axis, one four times higher turns the chart into each
// series' change in % against its own level, which the axis, the legend
// and a note say.
func TestOverlayInChromium(t *testing.T) {
	browsertest.Chromium(t)
	srv := serve(t, sqliteStore(t, levelledFixture()), explorer.Options{})
	ids := seriesIDs(t, srv)
	ctx, done := browsertest.Tab(t, srv.URL+"/series/"+ids["64"])
	defer done()
	rate := `section.chart[data-kpi="rate_gflops"]`
	pick := func(size string) {
		do(t, ctx, "picking matrix_size="+size,
			chromedp.Click(chromedp.CSS(`#overlay-pick input[value="`+ids[size]+`"]`)))
		// Picking reloads the page: wait for the new one, not the old
		// page's ticked box.
		for i := 0; !strings.Contains(value(t, ctx, "the URL", chromedp.Location()), ids[size]); i++ {
			if i == 200 {
				t.Fatalf("picking matrix_size=%s did not load a page with it", size)
			}
			time.Sleep(50 * time.Millisecond)
		}
		do(t, ctx, "the page with matrix_size="+size,
			chromedp.WaitReady(chromedp.CSS(`body`)),
			chromedp.WaitVisible(chromedp.CSS(`#overlay-pick input[value="`+ids[size]+`"]:checked`)),
			chromedp.WaitVisible(chromedp.CSS(rate+` .uplot`)))
	}
	legend := func() string {
		return value(t, ctx, "the legend", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('`+rate+` .u-legend .u-label'), e => e.textContent).join(" | ")`))
	}
	note := func() string {
		return value(t, ctx, "the note", chromedp.Evaluate[string](`(document.querySelector('`+rate+` .seshat-note') || {}).textContent || ""`))
	}
	yLabel := func() string {
		return value(t, ctx, "the y axis", chromedp.Evaluate[string](`seshatCharts.rate_gflops.axes[1].label`))
	}

	pick("128")
	if l := legend(); !strings.Contains(l, "median matrix_size=128") || !strings.Contains(l, "median matrix_size=64") {
		t.Errorf("legend %q: want the series and matrix_size=128", l)
	}
	if n, y := note(), yLabel(); n != "" || y != "GFLOPS" {
		t.Errorf("levels alike: note %q, y axis %q, want no note and the KPI's unit", n, y)
	}

	pick("256")
	if loc := value(t, ctx, "the URL", chromedp.Location()); !strings.Contains(loc, "overlay="+ids["128"]) || !strings.Contains(loc, "overlay="+ids["256"]) {
		t.Errorf("the URL %s does not keep the overlays", loc)
	}
	l := legend()
	if !strings.Contains(l, "median matrix_size=256 (level ") || !strings.Contains(l, " GFLOPS)") {
		t.Errorf("legend %q: want matrix_size=256 with its level in GFLOPS", l)
	}
	if n, y := note(), yLabel(); !strings.Contains(n, "change in % against its own level") || !strings.Contains(y, "change in %") {
		t.Errorf("levels 4x apart: note %q, y axis %q, want both to say the series are normalised", n, y)
	}
	if w := value(t, ctx, "the page's width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 1280 {
		t.Errorf("the series page is %d px wide, more than the window's 1,280", w)
	}
	t.Logf("screenshot %s", browsertest.Screenshot(t, ctx, "overlay"))
}
