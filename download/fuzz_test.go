package download

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds seeds f with the files of testdata/<dir> matching glob.
func addSeeds(f *testing.F, dir, glob string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, glob))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/%s/%s: %v", dir, glob, err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseHTML: whatever a page holds, every entry is one safe name
// directly below the listed directory, on its host.
func FuzzParseHTML(f *testing.F) {
	addSeeds(f, "listings", "*.html")
	base := mustURL(f, "http://h/run/")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseHTML(base, data)
		if err != nil {
			return
		}
		for _, e := range p.Entries {
			if why := unsafeName(e.Name); why != "" {
				t.Fatalf("entry %q kept: %s", e.Name, why)
			}
			if e.URL.Host != "h" || !strings.HasPrefix(e.URL.EscapedPath(), "/run/") {
				t.Fatalf("entry %q at %s, outside the listed directory", e.Name, e.URL)
			}
			if e.Size < -1 || (e.Dir && e.Size != -1) {
				t.Fatalf("entry %q: size %d", e.Name, e.Size)
			}
		}
		for _, r := range p.Rejected {
			if r.Reason == "" {
				t.Fatalf("entry %q rejected without a reason", r.Link)
			}
		}
	})
}

// FuzzParseS3: whatever a bucket listing holds, a key becomes a path only
// when every segment of it is a safe name.
func FuzzParseS3(f *testing.F) {
	addSeeds(f, "s3", "*.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseS3(data)
		if err != nil {
			return
		}
		if p.Truncated && p.NextToken == "" && p.NextMarker == "" {
			t.Fatal("truncated page without a way on")
		}
		for _, o := range p.Objects {
			if o.Size < 0 {
				t.Fatalf("key %q: size %d", o.Key, o.Size)
			}
			rel, why := keyPath(o.Key, "")
			if rel == "" {
				continue
			}
			if why != "" || !filepath.IsLocal(rel) || strings.Contains(rel, `\`) {
				t.Fatalf("key %q kept as %q", o.Key, rel)
			}
		}
	})
}
