package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromiumPath finds Debian's chromium; "" when it is not installed.
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// chromium runs a headless browser on page with the given extra flags and
// returns its stdout.
func chromium(t *testing.T, bin, page string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir()}, flags...)
	args = append(args, (&url.URL{Scheme: "file", Path: page}).String())
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", filepath.Base(page), err, stderr.String())
	}
	return stdout.Bytes()
}

var (
	imgTag   = regexp.MustCompile(`<img src="([^"]+)" alt="([^"]*)"`)
	hrefAttr = regexp.MustCompile(`href="([^"#]+)`)
	checked  = regexp.MustCompile(`data-image="([^"]*)" data-width="(\d+)"`)
)

// imageCheck is added to a copy of a page: once the page has loaded, it
// writes the natural width of every image into the DOM, where --dump-dom
// shows it (0 for an image the browser could not load or decode). The pages
// themselves have no script.
const imageCheck = `<script>
window.addEventListener("load", () => {
  for (const img of document.images) {
    const p = document.createElement("p");
    p.setAttribute("data-image", img.getAttribute("src"));
    p.setAttribute("data-width", String(img.naturalWidth));
    document.body.appendChild(p);
  }
});
</script>
</body>`

// TestVisualizeInChromium opens every page of the reports of the shipped
// tree in headless Chromium (Debian's chromium, which .ci/run installs):
// the page loads, every image loads with a non-zero size, every local link
// leads to a file, and a screenshot is not blank.
func TestVisualizeInChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install chromium; .ci/run does): the reports are not checked in a browser")
	}
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
				src, alt := string(m[1]), string(m[2])
				if alt == "" {
					t.Errorf("%s has no alt text", src)
				}
				checkImageFile(t, filepath.Join(out, src))
			}
			for _, m := range hrefAttr.FindAllSubmatch(html, -1) {
				if _, err := os.Stat(filepath.Join(out, string(m[1]))); err != nil {
					t.Errorf("link %s: %v", m[1], err)
				}
			}
			if name != "reports_index.html" && !bytes.Contains(html, []byte(`href="reports_index.html"`)) {
				t.Error("no link back to reports_index.html")
			}

			// The browser loads every image.
			check := filepath.Join(out, "check_"+name)
			withCheck := bytes.Replace(html, []byte("</body>"), []byte(imageCheck), 1)
			if err := os.WriteFile(check, withCheck, 0o644); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, bin, check, "--virtual-time-budget=10000", "--dump-dom")
			if !bytes.Contains(dom, []byte("</html>")) {
				t.Fatalf("dump-dom returned no page:\n%.500s", dom)
			}
			loaded := checked.FindAllSubmatch(dom, -1)
			if len(loaded) != len(imgs) {
				t.Errorf("the browser saw %d images, the page has %d", len(loaded), len(imgs))
			}
			for _, m := range loaded {
				if w, _ := strconv.Atoi(string(m[2])); w == 0 {
					t.Errorf("image %s did not load in the browser", m[1])
				}
			}
			if len(imgs) > 0 {
				t.Logf("%d images loaded", len(loaded))
			}

			// A person sees something on the screen.
			shot := filepath.Join(t.TempDir(), "shot.png")
			chromium(t, bin, page, "--window-size=1280,1600", "--screenshot="+shot)
			inked, err := inkedFraction(shot)
			if err != nil {
				t.Fatal(err)
			}
			if inked < 0.02 {
				t.Errorf("screenshot is blank: %.2f%% of the pixels are not white", 100*inked)
			}
			if dir := os.Getenv("SESHAT_SCREENSHOT_DIR"); dir != "" {
				if data, err := os.ReadFile(shot); err == nil {
					_ = os.WriteFile(filepath.Join(dir, strings.TrimSuffix(name, ".html")+".png"), data, 0o644)
				}
			}
		})
	}
}

// checkImageFile fails unless path is a PNG that decodes or an SVG document.
func checkImageFile(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	switch filepath.Ext(path) {
	case ".png":
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	case ".svg":
		var doc struct {
			XMLName xml.Name
			Width   string `xml:"width,attr"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" || doc.Width == "" {
			t.Errorf("%s: not an SVG document (%v, root %q)", path, err, doc.XMLName.Local)
		}
	default:
		t.Errorf("%s: not an image the reports write", path)
	}
}

// inkedFraction is the share of pixels of a PNG that are not (nearly) white.
func inkedFraction(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return 0, fmt.Errorf("screenshot %s: %w", path, err)
	}
	b := img.Bounds()
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
		}
	}
	return float64(inked) / float64(b.Dx()*b.Dy()), nil
}
