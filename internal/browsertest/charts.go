package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// CheckChart checks the interactive chart id (internal/charts, its uPlot in
// window.seshatCharts) of the page open in ctx, with real input: its
// canvas is drawn on; hovering the first point of series si (1 is the
// first after x) shows a tooltip holding want; a click on the series'
// legend entry hides the series.
func CheckChart(t testing.TB, ctx context.Context, id string, si int, want string) {
	t.Helper()
	u := fmt.Sprintf("window.seshatCharts[%q]", id)
	painted, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`(() => {
		const u = %s;
		if (!u) { return -1; }
		u.root.scrollIntoView({block: "center"});
		const c = u.ctx.canvas, d = u.ctx.getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 3; i < d.length; i += 4) { if (d[i] > 0) { n++; } }
		return n;
	})()`, u)))
	if err != nil || painted <= 0 {
		t.Fatalf("chart %s: %d painted pixels (%v), want a drawn chart", id, painted, err)
	}
	// Axis titles are drawn along their axis, centred on the plot: one
	// longer than the plot is cut at both ends.
	clipped, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
		const u = %s, c = document.createElement("canvas").getContext("2d"), out = [];
		u.axes.forEach((a, i) => {
			if (!a.label) { return; }
			c.font = a.labelFont[0] || a.labelFont;
			const room = (i === 0 ? u.bbox.width : u.bbox.height) / devicePixelRatio;
			const w = c.measureText(a.label).width;
			if (w > room) { out.push(a.label + " (" + Math.round(w) + " px on " + Math.round(room) + ")"); }
		});
		return out;
	})()`, u)))
	if err != nil || len(clipped) > 0 {
		t.Errorf("chart %s: axis titles longer than their axis, cut when drawn: %q (%v)", id, clipped, err)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const u = %s, r = u.over.getBoundingClientRect();
		const i = u.data[%d].findIndex((v) => v !== null);
		return [r.left + u.valToPos(u.data[0][i], "x"), r.top + u.valToPos(u.data[%d][i], "y")];
	})()`, u, si, si)))
	if err != nil || len(at) != 2 {
		t.Fatalf("chart %s: locating a point of series %d: %v", id, si, err)
	}
	err = chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0]-30, at[1]+20),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]),
		chromedp.WaitVisible(chromedp.CSS(".seshat-tip")))
	if err != nil {
		t.Fatalf("chart %s: hovering: %v", id, err)
	}
	tip, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".seshat-tip")))
	if err != nil || !strings.Contains(tip, want) {
		t.Errorf("chart %s: the tooltip %q (%v) lacks %q", id, tip, err, want)
	}
	legend := fmt.Sprintf(`Array.from(%s.root.querySelectorAll(".u-legend .u-label")).find((e) => e.textContent === %s.series[%d].label)`, u, u, si)
	pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const el = %s; el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];
	})()`, legend)))
	if err != nil {
		t.Fatalf("chart %s: the legend entry of series %d: %v", id, si, err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(pos[0], pos[1])); err != nil {
		t.Fatalf("chart %s: clicking the legend: %v", id, err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`%s.series[%d].show`, u, si)))
	if err != nil || shown {
		what, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const e = document.elementFromPoint(%g, %g); return e ? e.outerHTML.slice(0, 200) : "none"; })()`, pos[0], pos[1])))
		t.Logf("at the legend entry: %s", what)
		t.Errorf("chart %s: after a click on its legend entry series %d is shown=%v (%v), want hidden", id, si, shown, err)
	}
}

// CheckOffline fails the test when the page open in ctx loaded anything
// but local files (file:, data:, blob:): a page of a CI artifact fetches
// nothing from the network.
func CheckOffline(t testing.TB, ctx context.Context) {
	t.Helper()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[location.href].concat(performance.getEntriesByType("resource").map((e) => e.name))`))
	if err != nil {
		t.Fatalf("chromium: the resources loaded: %v", err)
	}
	for _, u := range loaded {
		if !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
			t.Errorf("the page loaded %s, not a local file", u)
		}
	}
}
