package serving_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const repoRoot = "../../.."

// TestDocExcerpts: every Go block of docs/writing-a-workload.md that names
// a file on its first line (// examples/...) is a verbatim excerpt of that
// file, so the page shows the code that compiles and runs here.
func TestDocExcerpts(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "writing-a-workload.md"))
	if err != nil {
		t.Fatal(err)
	}
	excerpts := 0
	for i, block := range strings.Split(string(doc), "```go\n")[1:] {
		code, _, ok := strings.Cut(block, "```")
		if !ok {
			t.Fatalf("go block %d is not closed", i+1)
		}
		first, body, _ := strings.Cut(code, "\n")
		path, ok := strings.CutPrefix(first, "// ")
		if !ok || !strings.HasPrefix(path, "examples/") {
			continue // an illustration, not an excerpt
		}
		src, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("go block %d: %v", i+1, err)
		}
		if !strings.Contains(string(src), body) {
			t.Errorf("go block %d is not an excerpt of %s:\n%s", i+1, path, body)
		}
		excerpts++
	}
	if excerpts < 6 {
		t.Errorf("%d excerpts checked, want the 6 the page quotes", excerpts)
	}
}
