package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseNonUTF8Paths: a run directory whose name is not UTF-8 (Latin-1
// "café" from an old tool, say) is reported in the matrix document in a
// form that gives its bytes back, so the entry can be mapped to its
// directory.
func TestParseNonUTF8Paths(t *testing.T) {
	t.Parallel()
	results := copyResults(t)
	name := "caf\xe9 100%"
	if err := os.Rename(filepath.Join(results, "matmul_batches"), filepath.Join(results, name)); err != nil {
		t.Skipf("this filesystem refuses non-UTF-8 names: %v", err)
	}
	r := runSeshat(t, nil, "parse", "--results-dir", results, "--output-matrix", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		Entries []struct {
			Path        string `json:"path"`
			PathEscaped string `json:"path_escaped"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range doc.Entries {
		if !strings.HasPrefix(e.Path, "caf") {
			if e.PathEscaped != "" {
				t.Errorf("%s: a UTF-8 path needs no escaped form, got %q", e.Path, e.PathEscaped)
			}
			continue
		}
		found++
		raw, err := url.PathUnescape(e.PathEscaped)
		if err != nil || utf8.ValidString(raw) || !strings.HasPrefix(raw, name+"/") {
			t.Errorf("path %q escaped %q: unescapes to %q (%v), want the bytes of %q/...", e.Path, e.PathEscaped, raw, err, name)
			continue
		}
		if _, err := os.Stat(filepath.Join(results, raw, "settings.yaml")); err != nil {
			t.Errorf("%q does not lead back to the run directory: %v", e.PathEscaped, err)
		}
	}
	if found != 6 {
		t.Errorf("%d entries below %q, want 6", found, name)
	}
}
