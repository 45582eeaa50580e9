package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// shutdownTimeout bounds how long Shutdown waits for Chromium to close
// gracefully before it kills it.
const shutdownTimeout = 10 * time.Second

// shared is the headless Chromium that the tests of one test binary share:
// started by the first page a test opens, each page in a tab of its own,
// stopped by Shutdown.
var shared struct {
	mu sync.Mutex
	// ctx is the browser's chromedp context: a context made from it with
	// chromedp.NewContext is a new tab. Nil until the browser starts.
	ctx context.Context
	// stop closes the browser and waits until its processes and its
	// temporary profile are gone.
	stop func()
	// out is the end of what Chromium printed, for the error of a browser
	// that fails.
	out *tailBuffer
}

// browser returns the context of the shared Chromium, starting it on the
// first call, or again when the one started before has died.
func browser() (context.Context, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil && shared.ctx.Err() == nil {
		return shared.ctx, nil
	}
	if shared.stop != nil {
		shared.stop() // a browser that died: free what it left
		shared.ctx, shared.stop = nil, nil
	}
	out := &tailBuffer{max: 4000}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(Binary),
		// The flags Chromium has always run the tests with (Headless
		// adds --hide-scrollbars and --mute-audio); the allocator adds a
		// temporary profile (--user-data-dir), removed when the browser
		// stops, and --remote-debugging-pipe.
		chromedp.Headless, chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("window-size", Window),
		chromedp.CombinedOutput(out))
	// The browser lives as long as ctx, the context of its first run: no
	// timeout there, Shutdown ends it.
	ctx, cancel := chromedp.NewContext(allocCtx)
	stop := func() {
		sctx, scancel := context.WithTimeout(ctx, shutdownTimeout)
		_ = chromedp.Cancel(sctx) // closes Chromium gracefully…
		scancel()
		cancel()
		cancelAlloc() // …or kills it, and waits for its profile to go
	}
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, fmt.Errorf("starting %s: %w\n%s", Binary, err, out)
	}
	shared.ctx, shared.stop, shared.out = ctx, stop, out
	return ctx, nil
}

// Shutdown stops the Chromium that the tests of this binary share, if one
// was started, and waits until its processes and its temporary profile are
// gone. Call it from TestMain after m.Run in every package whose tests open
// pages; a later Open starts a new browser.
func Shutdown() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stop != nil {
		shared.stop()
	}
	shared.ctx, shared.stop, shared.out = nil, nil, nil
}

// tab opens the HTML file at path in a new tab of the shared Chromium,
// with a viewport of Window, and waits for the page's load event: its
// images are loaded then. It skips the test when Chromium is not
// installed. Run actions on the returned context, then call done to close
// the tab. The tab gives up after timeout. abs is path made absolute.
func tab(t testing.TB, path string) (abs string, ctx context.Context, done func()) {
	t.Helper()
	Chromium(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, done = Tab(t, (&url.URL{Scheme: "file", Path: abs}).String())
	return abs, ctx, done
}

// Tab opens a URL (a page of a test's own server, a file: URL) in a new
// tab of the shared Chromium, with a viewport of Window, and waits for the
// page's load event, as tab does; the test then drives it with chromedp
// actions on ctx (real mouse and keyboard input), and calls done to close
// the tab. It skips the test when Chromium is not installed.
func Tab(t testing.TB, rawURL string) (ctx context.Context, done func()) {
	t.Helper()
	Chromium(t)
	bctx, err := browser()
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancelTimeout := context.WithTimeout(bctx, timeout)
	ctx, cancel := chromedp.NewContext(tctx)
	done = func() { cancel(); cancelTimeout() }
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(windowWidth, windowHeight), enablePerformance, chromedp.Navigate(rawURL)); err != nil {
		done()
		t.Fatalf("chromium: opening %s: %v", rawURL, browserError(err))
	}
	return ctx, done
}

// Screenshot saves what the tab shows, its whole page (beyond the
// viewport when the page is longer), as a PNG in the test's temporary
// directory (and in $SESHAT_BROWSERTEST_KEEP when set, for a person to
// look at), and returns its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatalf("chromium: a screenshot: %v", browserError(err))
	}
	path := filepath.Join(t.TempDir(), name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	keep(t, t.Name()+"_"+name, shot)
	return path
}

// browserError adds to err what the shared Chromium printed last, when it
// has died.
func browserError(err error) error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx == nil || shared.ctx.Err() == nil || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%w (chromium died)\n%s", err, shared.out)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

// Write keeps the end of p; it never fails.
func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
		w.cut = true
	}
	return len(p), nil
}

// String returns what the buffer kept, marked as cut when it is.
func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cut {
		return "…" + string(w.b)
	}
	return string(w.b)
}

// CheckFits fails the test when the page in the tab scrolls sideways in
// its window (1,280 px wide), or the element css selects (a table) is
// wider than the box holding it or ends beyond the window: a table whose
// columns a reader cannot see without scrolling.
func CheckFits(t testing.TB, ctx context.Context, css string) {
	t.Helper()
	widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const t = document.querySelector(%q);
		if (!t) return [];
		return [document.documentElement.scrollWidth, t.getBoundingClientRect().right, t.scrollWidth, t.parentElement.clientWidth, window.innerWidth];
	})()`, css)))
	switch {
	case err != nil:
		t.Fatalf("chromium: measuring %s: %v", css, browserError(err))
	case len(widths) == 0:
		t.Fatalf("the page has no %s", css)
	}
	if page, right, table, box, window := widths[0], widths[1], widths[2], widths[3], widths[4]; window != windowWidth || page > window || right > window || table > box {
		t.Errorf("in a %v px window: the page is %v px wide, %s ends at %v px and is %v px wide in a box of %v px", window, page, css, right, table, box)
	}
}

// enablePerformance starts Chromium's performance metrics in a tab (they
// count from then), for MainThreadTime.
var enablePerformance = chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
	if _, err := cdp.Call(ctx, tg, performance.Enable, performance.EnableParams{}); err != nil {
		return fmt.Errorf("Performance.enable: %w", err)
	}
	return nil
})

// MainThreadTime returns the processor time that the main thread of the
// page open in ctx (a tab of Tab) has used since the tab was opened
// (Chromium's Performance.getMetrics, ThreadTime): the page's parsing,
// scripts, style, layout and paint. Unlike the time on the clock, it
// hardly depends on what else a shared machine runs, so a benchmark can
// compare two versions of a page by it.
func MainThreadTime(ctx context.Context) (time.Duration, error) {
	r, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (performance.GetMetricsResult, error) {
		return cdp.Call(ctx, tg, performance.GetMetrics, cdp.Empty{})
	})
	if err != nil {
		return 0, fmt.Errorf("chromium: Performance.getMetrics: %w", browserError(err))
	}
	for _, m := range r.Metrics {
		if m.Name == "ThreadTime" {
			return time.Duration(m.Value * float64(time.Second)), nil
		}
	}
	return 0, errors.New("chromium: Performance.getMetrics has no ThreadTime")
}
