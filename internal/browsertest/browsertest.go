// Package browsertest opens HTML pages in headless Chromium for tests, the
// way a person would open a report: it checks that every resource the page
// references is there and decodes, that the browser loads every image, and
// that the page does not render blank.
// The tests of one binary share one headless Chromium, started by the
// first page opened, each page in a tab of its own; TestMain stops it with
// Shutdown.
// Tests using it skip, saying why, when Chromium is not installed (.ci/run
// installs the Debian chromium package, so CI always runs them).
package browsertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // decoders of the images a page may reference
	_ "image/jpeg" //
	"image/png"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Binary is the Chromium the tests run (Debian's package).
const Binary = "/usr/bin/chromium"

// Window is the size of the screenshot's viewport, and of Chromium's
// window.
const Window = "1280,1600"

// windowWidth and windowHeight are Window in pixels.
const windowWidth, windowHeight = 1280, 1600

// timeout guards against a Chromium that hangs; it is not a timing
// assertion.
const timeout = 3 * time.Minute

// Chromium returns the Chromium binary, or skips the test when it is not
// installed.
func Chromium(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Skipf("Chromium not installed (%v): apt-get install -y chromium to check HTML reports in a browser", err)
	}
	return Binary
}

// Page is an HTML file as headless Chromium rendered it.
type Page struct {
	// Path is the HTML file.
	Path string
	// DOM is the document after rendering, serialized as --dump-dom
	// prints it (doctype, then the outer HTML of the root element).
	DOM string
	// Screenshot is the rendered viewport, of Window's size, kept in
	// ScreenshotPath.
	Screenshot     image.Image
	ScreenshotPath string
	// Images are the page's images as the browser loaded them (see
	// LoadImages).
	Images []Image
}

// dumpDOM serializes the document as Chromium's --dump-dom does.
const dumpDOM = `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`

// Open renders the HTML file at path in a new tab of the headless Chromium
// the tests share (see Shutdown), with a viewport of Window, and returns
// its DOM, a screenshot and its images once the page has loaded.
func Open(t testing.TB, path string) *Page {
	t.Helper()
	abs, ctx, done := tab(t, path)
	defer done()
	p := &Page{Path: abs, ScreenshotPath: filepath.Join(t.TempDir(), "screenshot.png")}
	var err error
	if p.DOM, err = chromedp.Run(ctx, chromedp.Evaluate[string](dumpDOM)); err != nil {
		t.Fatalf("chromium: the DOM of %s: %v", abs, browserError(err))
	}
	p.Images = images(ctx, t, abs)
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("chromium: a screenshot of %s: %v", abs, browserError(err))
	}
	if err := os.WriteFile(p.ScreenshotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if p.Screenshot, err = png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatalf("screenshot %s: %v", p.ScreenshotPath, err)
	}
	keep(t, t.Name(), shot)
	return p
}

// keep writes a screenshot for a person to look at into
// $SESHAT_BROWSERTEST_KEEP, when set (SESHAT_BROWSERTEST_KEEP=/tmp/shots
// go test ...), named after the test.
func keep(t testing.TB, name string, shot []byte) {
	dir := os.Getenv("SESHAT_BROWSERTEST_KEEP")
	if dir == "" {
		return
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".png")
	_ = os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(path, shot, 0o644); err == nil {
		t.Logf("screenshot kept in %s", path)
	}
}

// Resource is a URL the page references, with the element and attribute
// naming it.
type Resource struct {
	Element, Attr, URL string
}

// Resources lists the URLs the DOM references: img src, link href, script
// src, source src/srcset, object data, iframe src, and a href.
func Resources(dom string) ([]Resource, error) {
	var out []Resource
	err := eachElement(dom, func(se xml.StartElement) error {
		name := strings.ToLower(se.Name.Local)
		for _, a := range se.Attr {
			attr := strings.ToLower(a.Name.Local)
			switch {
			case attr == "src" && (name == "img" || name == "script" || name == "source" || name == "iframe" || name == "embed"),
				attr == "href" && (name == "link" || name == "a"),
				attr == "data" && name == "object":
				out = append(out, Resource{Element: name, Attr: attr, URL: strings.TrimSpace(a.Value)})
			}
		}
		return nil
	})
	return out, err
}

var scriptText = regexp.MustCompile(`(?is)(<(?:script|style)\b[^>]*>)(.*?)(</(?:script|style)\s*>)`)

// eachElement calls visit on every start tag of an HTML document, in
// document order, until visit or the parser fails.
// The text of scripts and styles (the charts' inlined uPlot) is left out:
// it is no markup, and an XML parser stops at its "<".
func eachElement(dom string, visit func(xml.StartElement) error) error {
	dom = scriptText.ReplaceAllString(dom, "$1$3")
	d := xml.NewDecoder(strings.NewReader(dom))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if err := visit(se); err != nil {
				return err
			}
		}
	}
}

// CheckResources fails the test for every resource of the page that is
// missing or does not decode: local files must exist (images must decode
// as PNG, JPEG, GIF or SVG), data: URLs must decode, and nothing may come
// from the network (a report is read offline, in CI artifacts). Links to
// anchors of the page are not resources.
func CheckResources(t testing.TB, p *Page) {
	t.Helper()
	for _, err := range Problems(p) {
		t.Error(err)
	}
}

// Problems lists what CheckResources reports, one error per resource.
func Problems(p *Page) []error {
	var out []error
	res, err := Resources(p.DOM)
	if err != nil {
		out = append(out, fmt.Errorf("%s: the rendered DOM does not parse: %w", p.Path, err))
	}
	for _, r := range res {
		if err := checkResource(filepath.Dir(p.Path), r); err != nil {
			out = append(out, fmt.Errorf("%s: <%s %s=%q>: %w", p.Path, r.Element, r.Attr, r.URL, err))
		}
	}
	return out
}

func checkResource(dir string, r Resource) error {
	if r.URL == "" {
		return errors.New("empty URL")
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "":
		if u.Path == "" {
			return nil // #anchor
		}
		return checkFile(filepath.Join(dir, filepath.FromSlash(u.Path)), r.Element)
	case "file":
		return checkFile(u.Path, r.Element)
	case "data":
		return checkData(r.URL, r.Element)
	case "mailto":
		return nil
	}
	return fmt.Errorf("a %s resource: the page must not need the network", u.Scheme)
}

func checkFile(path, element string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if element != "img" {
		return nil
	}
	return decodeImage(filepath.Ext(path), data)
}

// checkData decodes a data: URL (base64 or percent-encoded).
func checkData(raw, element string) error {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(raw, "data:"), ",")
	if !ok {
		return errors.New("data URL without a comma")
	}
	var data []byte
	var err error
	if strings.HasSuffix(meta, ";base64") {
		data, err = base64.StdEncoding.DecodeString(payload)
	} else {
		var s string
		s, err = url.PathUnescape(payload)
		data = []byte(s)
	}
	if err != nil {
		return fmt.Errorf("data URL: %w", err)
	}
	if element != "img" {
		return nil
	}
	ext := map[string]string{"image/svg+xml": ".svg", "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif"}[strings.Split(meta, ";")[0]]
	return decodeImage(ext, data)
}

// decodeImage decodes an image by its extension: SVG must be well-formed
// XML with an <svg> root, the others must decode as raster images.
func decodeImage(ext string, data []byte) error {
	if strings.EqualFold(ext, ".svg") {
		d := xml.NewDecoder(bytes.NewReader(data))
		root := ""
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("SVG: %w", err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			return fmt.Errorf("SVG: root element is %q", root)
		}
		return nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if b := img.Bounds(); b.Dx() == 0 || b.Dy() == 0 {
		return errors.New("empty image")
	}
	return nil
}

// NonWhite counts the pixels of img that are not (nearly) white.
func NonWhite(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n
}

// CheckNotBlank fails unless at least minFraction of the screenshot's
// pixels are not white: a page whose styles or content failed renders
// (nearly) white.
func CheckNotBlank(t testing.TB, p *Page, minFraction float64) {
	t.Helper()
	b := p.Screenshot.Bounds()
	total := b.Dx() * b.Dy()
	if n := NonWhite(p.Screenshot); float64(n) < minFraction*float64(total) {
		t.Errorf("%s renders blank: %d of %d pixels are not white (want %.1f%%); screenshot %s",
			p.Path, n, total, 100*minFraction, p.ScreenshotPath)
	}
}

// Image is an <img> of a page as the browser loaded it.
type Image struct {
	// Src is the img element's src attribute.
	Src string `json:"src"`
	// NaturalWidth is the width of the image the browser decoded: 0 when it
	// could not load or decode it.
	NaturalWidth int `json:"naturalWidth"`
}

// imageWidths lists, in document order, every image of the page with the
// natural width the browser decoded, as Images. A reader of a report sees
// what the browser decoded, which a file that exists does not guarantee.
// An image loaded lazily (loading="lazy": a chart's SVG fallback, hidden
// while the chart is drawn, and loaded when a reader without JavaScript
// scrolls to it) is loaded first, as that reader would.
const imageWidths = `(async () => {
	const imgs = Array.from(document.images);
	await Promise.all(imgs.filter((img) => img.loading === "lazy").map((img) => {
		img.loading = "eager";
		return img.decode().catch(() => {});
	}));
	return imgs.map((img) => ({src: img.getAttribute("src") ?? "", naturalWidth: img.naturalWidth}));
})()`

// LoadImages opens the HTML file at path in a new tab of the headless
// Chromium the tests share and returns every image of the page, in
// document order, with the natural width the browser loaded once the page
// had loaded. The page is not changed: the images are read from the tab.
func LoadImages(t testing.TB, path string) []Image {
	t.Helper()
	abs, ctx, done := tab(t, path)
	defer done()
	return images(ctx, t, abs)
}

// images reads the images of the page at abs loaded in the tab ctx.
func images(ctx context.Context, t testing.TB, abs string) []Image {
	t.Helper()
	imgs, err := chromedp.Run(ctx, chromedp.Evaluate[[]Image](imageWidths, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("chromium: the images of %s: %v", abs, browserError(err))
	}
	return imgs
}

// CheckImagesLoad fails the test for every image of the page at path that
// the browser did not load, and returns the images (see LoadImages).
func CheckImagesLoad(t testing.TB, path string) []Image {
	t.Helper()
	return checkLoaded(t, path, LoadImages(t, path))
}

// CheckPageImages is CheckImagesLoad for a page already open: it checks
// p.Images, without opening the page again.
func CheckPageImages(t testing.TB, p *Page) []Image {
	t.Helper()
	return checkLoaded(t, p.Path, p.Images)
}

// checkLoaded fails the test for every image of the page at path that the
// browser did not load, and returns imgs.
func checkLoaded(t testing.TB, path string, imgs []Image) []Image {
	t.Helper()
	for _, img := range imgs {
		if img.NaturalWidth == 0 {
			t.Errorf("%s: <img src=%q> did not load in the browser", path, img.Src)
		}
	}
	return imgs
}

// Check opens the page and runs every check: resources and not blank.
func Check(t testing.TB, path string) *Page {
	t.Helper()
	p := Open(t, path)
	CheckResources(t, p)
	CheckNotBlank(t, p, 0.01)
	return p
}
