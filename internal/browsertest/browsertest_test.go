package browsertest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seshat-bench/seshat/internal/browsertest"
)

// TestMain stops the Chromium that the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Shutdown()
	os.Exit(code)
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.Black)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProblems: each kind of broken reference is named; good ones pass.
func TestProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "fig/ok.svg", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`)
	write(t, dir, "fig/broken.svg", `<svg><g></svg>`)
	write(t, dir, "fig/ok.png", string(pngBytes(t)))
	write(t, dir, "fig/fake.png", "not a png")
	write(t, dir, "style.css", "body{}")
	data := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes(t))
	dom := `<html><head><link rel="stylesheet" href="style.css"><link rel="icon" href="https://example.invalid/i.png"></head><body>
<img src="fig/ok.svg"><img src="fig/ok.png"><img src="` + data + `"><a href="#top">top</a><br>
<img src="fig/broken.svg"><img src="fig/fake.png"><img src="fig/missing.svg"><img src="data:image/png;base64,AAAA"><a href="other.html">x</a>
</body></html>`
	p := &browsertest.Page{Path: filepath.Join(dir, "index.html"), DOM: dom}
	var got []string
	for _, err := range browsertest.Problems(p) {
		got = append(got, err.Error())
	}
	want := []string{"https://example.invalid/i.png\">: a https resource", "fig/broken.svg\">: SVG", "fig/fake.png\">: image: unknown format",
		"fig/missing.svg\">: open", "base64,AAAA\">: image: unknown format", "other.html\">: open"}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("problem %d: %s\nwant it to contain %s", i, got[i], want[i])
		}
	}
}

// TestOpenRendersPage: a page with an image renders, not blank, with its
// resources; a white page is blank.
//
// Not parallel, nor is any test that opens a page here: they share one
// browser, which TestShutdownLeavesNothing then stops (a parallel test
// would run after it, and start a second browser).
func TestOpenRendersPage(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	write(t, dir, "dot.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="200" height="200" fill="#c62828"/></svg>`)
	page := write(t, dir, "index.html", `<!DOCTYPE html><html><body style="background:#fff"><h1>Report</h1><img src="dot.svg" alt="dot"></body></html>`)
	p := browsertest.Check(t, page)
	if !strings.Contains(p.DOM, `<img src="dot.svg"`) {
		t.Errorf("DOM:\n%s", p.DOM)
	}
	if b := p.Screenshot.Bounds(); fmt.Sprintf("%d,%d", b.Dx(), b.Dy()) != browsertest.Window {
		t.Errorf("screenshot of %dx%d pixels, want the window's %s", b.Dx(), b.Dy(), browsertest.Window)
	}
	if n := browsertest.NonWhite(p.Screenshot); n < 200*200 {
		t.Errorf("%d non-white pixels, want the 200x200 red square at least", n)
	}
	blank := write(t, dir, "blank.html", `<!DOCTYPE html><html><body></body></html>`)
	if n := browsertest.NonWhite(browsertest.Open(t, blank).Screenshot); n != 0 {
		t.Errorf("a blank page has %d non-white pixels", n)
	}
}

// TestMainThreadTimeInChromium: the main-thread processor time of a tab
// counts from its opening, the page's scripts included, so a benchmark can
// compare pages by it: a page that computes while it loads has used more
// than a page that does not, by about what the same computing adds later.
func TestMainThreadTimeInChromium(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	// A fixed amount of work (not a time on the clock, which a loaded
	// machine would mostly spend on others).
	const busy = `let n = 0; for (let i = 0; i < 3e7; i++) { n = (n + i * 7) % 1000003; } window.n = n;`
	used := func(name, body string) (time.Duration, context.Context, func()) {
		page := write(t, dir, name, "<!DOCTYPE html><html><body><p>page</p>"+body+"</body></html>")
		ctx, done := browsertest.Tab(t, (&url.URL{Scheme: "file", Path: page}).String())
		d, err := browsertest.MainThreadTime(ctx)
		if err != nil {
			done()
			t.Fatal(err)
		}
		return d, ctx, done
	}
	idle, _, done := used("idle.html", "")
	done()
	loaded, ctx, done := used("busy.html", "<script>"+busy+"</script>")
	defer done()
	if loaded <= idle {
		t.Errorf("main-thread time of a page that computed while it loaded %v, of one that did not %v: want more", loaded, idle)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("(() => { "+busy+" return 0; })()")); err != nil {
		t.Fatal(err)
	}
	after, err := browsertest.MainThreadTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The same work, while loading and after, counts about the same: the
	// time counts from the tab's opening, not from the first reading.
	if after <= loaded || 2*(loaded-idle) < after-loaded {
		t.Errorf("main-thread time %v before a script that computes, %v after (%v of an idle page): want it growing, and the page's computing while it loaded counted as about as much", loaded, after, idle)
	}
	t.Logf("main-thread time: idle page %v, busy page %v, after a busy script %v", idle, loaded, after)
}

// recorder keeps the errors a check reports instead of failing the test,
// so that a test can assert that a broken page is reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCheckImagesLoadInChromium: an image the browser cannot load (missing, or not
// an image) is reported by its src; images that load report their width;
// so for a page already open, and for images loaded lazily where the page
// is not drawn yet (in a closed <details>, far below the window: a chart's
// SVG fallback), which a reader sees on opening or scrolling there.
func TestCheckImagesLoadInChromium(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	write(t, dir, "fig/dot.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20"/></svg>`)
	write(t, dir, "fig/dot.png", string(pngBytes(t)))
	write(t, dir, "fig/lazy.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>`)
	write(t, dir, "fig/fake.png", "not a png")
	page := write(t, dir, "index.html", `<!DOCTYPE html><html><body><h1>Report</h1>
<img src="fig/dot.svg" alt="svg"><img src="fig/missing.png" alt="missing"><img src="fig/dot.png" alt="png"><img src="fig/fake.png" alt="fake">
<details><summary>figures</summary><img src="fig/lazy.svg" alt="lazy" loading="lazy"><img src="fig/gone.svg" alt="lazy and missing" loading="lazy"></details>
</body></html>`)
	before, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}

	want := []browsertest.Image{{Src: "fig/dot.svg", NaturalWidth: 30}, {Src: "fig/missing.png", NaturalWidth: 0}, {Src: "fig/dot.png", NaturalWidth: 4}, {Src: "fig/fake.png", NaturalWidth: 0},
		{Src: "fig/lazy.svg", NaturalWidth: 40}, {Src: "fig/gone.svg", NaturalWidth: 0}}
	wantErrs := []string{`<img src="fig/missing.png"> did not load in the browser`, `<img src="fig/fake.png"> did not load in the browser`,
		`<img src="fig/gone.svg"> did not load in the browser`}
	// The page on its own, and the images of a page already open.
	checks := map[string]func(testing.TB) []browsertest.Image{
		"CheckImagesLoad": func(r testing.TB) []browsertest.Image { return browsertest.CheckImagesLoad(r, page) },
		"CheckPageImages": func(r testing.TB) []browsertest.Image {
			return browsertest.CheckPageImages(r, browsertest.Open(t, page))
		},
	}
	for name, check := range checks {
		r := &recorder{TB: t}
		if imgs := check(r); !slices.Equal(imgs, want) {
			t.Errorf("%s: images %v, want %v", name, imgs, want)
		}
		if len(r.errs) != len(wantErrs) {
			t.Fatalf("%s: %d errors, want %d:\n%s", name, len(r.errs), len(wantErrs), strings.Join(r.errs, "\n"))
		}
		for i := range wantErrs {
			if !strings.HasPrefix(r.errs[i], page+": ") || !strings.Contains(r.errs[i], wantErrs[i]) {
				t.Errorf("%s: error %d: %s\nwant %s: …%s", name, i, r.errs[i], page, wantErrs[i])
			}
		}
	}

	// Nothing was written beside the page.
	after, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the directory had %d entries, now %d", len(before), len(after))
	}
}
