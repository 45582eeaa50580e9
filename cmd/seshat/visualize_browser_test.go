package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/browsertest"
)

var imgTag = regexp.MustCompile(`<img src="([^"]+)" alt="([^"]*)"`)

// TestVisualizeInChromium opens every page of the reports of the shipped
// tree in headless Chromium (Debian's chromium, which .ci/run installs):
// the page loads, every image loads with a non-zero size, every local link
// leads to a file, and a screenshot is not blank.
func TestVisualizeInChromium(t *testing.T) {
	browsertest.Chromium(t)
	out := filepath.Join(t.TempDir(), "reports")
	r := runSeshat(t, nil, "visualize", "--results-dir", copyResults(t), "--history", historyFile, "--output-dir", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	pages, err := filepath.Glob(filepath.Join(out, "*.html"))
	if err != nil || len(pages) != 7 {
		t.Fatalf("pages %v (%v), want the index and 6 reports", pages, err)
	}
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
			if name != "reports_index.html" && !bytes.Contains(html, []byte(`href="reports_index.html"`)) {
				t.Error("no link back to reports_index.html")
			}

			// Every image file decodes and every local link leads to a file.
			p := browsertest.Open(t, page)
			browsertest.CheckResources(t, p)

			// The browser loads every image.
			loaded := browsertest.CheckImagesLoad(t, page)
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
