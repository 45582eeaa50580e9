package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/store"
)

const (
	shippedResults = "../../testdata/results"
	goldenDir      = "../../testdata/golden"
	// baseURL is where the golden parse pretends the results are published.
	baseURL = "https://ci.example.com/job/4412/artifacts/results"
)

// copyResults copies the shipped results tree to a temporary directory, as
// a parse writes caches into it; caches a local parse may have left are not
// copied.
func copyResults(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(dir, os.DirFS(shippedResults)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == store.CacheFile {
			err = os.Remove(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// statsLine returns the last line of stderr, where parse reports its counts.
func statsLine(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	return lines[len(lines)-1]
}

// matrixDoc is the part of the matrix document the tests look into.
type matrixDoc struct {
	Entries []struct {
		Path     string         `json:"path"`
		Settings map[string]any `json:"settings"`
		Results  *struct {
			PI *struct {
				Result struct {
					Rate *float64 `json:"rate"`
				} `json:"@result"`
			} `json:"pi"`
		} `json:"results"`
	} `json:"entries"`
	Variables map[string][]any `json:"variables"`
}

func decodeMatrix(t *testing.T, out string) matrixDoc {
	t.Helper()
	var doc matrixDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("matrix document: %v\n%s", err, out)
	}
	return doc
}

// TestParseGolden parses the shipped tree cold, compares the matrix document
// with the golden file, then parses again from the caches.
func TestParseGolden(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	env := map[string]string{"SESHAT_RESULTS_BASE_URL": baseURL}
	args := []string{"parse", "--results-dir", dir, "--output-matrix", "-", "--pretty"}

	cold := runSeshat(t, env, args...)
	if cold.code != 0 {
		t.Fatalf("exit %d\n%s", cold.code, cold.stderr)
	}
	// local_path is where the copy happens to be: the one machine-dependent value.
	got := strings.ReplaceAll(cold.stdout, dir, "$RESULTS_DIR")
	golden := filepath.Join(goldenDir, "parse_matrix.json")
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/seshat -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("matrix document differs from %s (rerun with -update and review the diff):\n%s", golden, firstDiff(got, string(want)))
	}
	if line := statsLine(cold.stderr); line != "parsed 13 entries: 0 cached, 11 parsed, 1 incomplete, 1 failed" {
		t.Errorf("cold parse stats: %q", line)
	}
	for _, w := range []string{
		"matmul_sizes/004__matrix_size=1024: pi.json:37: unexpected content after the JSON document",
		"matmul_sizes/005__matrix_size=2048: hwinfo.json:59: truncated JSON document",
		"matmul_sizes/001__matrix_size=128: exit_code:1: empty exit code",
		"matmul_batches/006__backend=numpy__repeat=2: exit_code: missing, the run did not finish; not parsed",
		"matmul_sizes/007__matrix_size=8192: pi.json: missing (the run exited with code 1)",
		"imported_runs/001__dtype=float64: settings.yml: accepted, but settings.yaml is the expected name",
	} {
		if !strings.Contains(cold.stderr, "seshat: warning: "+w+"\n") {
			t.Errorf("stderr lacks warning %q:\n%s", w, cold.stderr)
		}
	}
	if strings.Contains(cold.stderr, "4096") {
		t.Errorf("the skipped run was reported:\n%s", cold.stderr)
	}

	warm := runSeshat(t, env, args...)
	if warm.code != 0 {
		t.Fatalf("exit %d\n%s", warm.code, warm.stderr)
	}
	if line := statsLine(warm.stderr); line != "parsed 13 entries: 11 cached, 0 parsed, 1 incomplete, 1 failed" {
		t.Errorf("cached parse stats: %q", line)
	}
	if warm.stdout != cold.stdout {
		t.Errorf("cached parse differs from the cold one:\n%s", firstDiff(warm.stdout, cold.stdout))
	}
	// Warnings found while parsing come back with the cached result.
	if !strings.Contains(warm.stderr, "hwinfo.json:59: truncated JSON document") {
		t.Errorf("cached parse lost the warnings:\n%s", warm.stderr)
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + gl + "\n  want: " + wl
		}
	}
	return "(same lines)"
}

// TestParseReparsesEditedEntry: editing one pi.json after a cached parse
// re-parses that entry only, and its new content shows.
func TestParseReparsesEditedEntry(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	args := []string{"parse", "--results-dir", dir, "--output-matrix", "-"}
	if r := runSeshat(t, nil, args...); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	const run = "matmul_sizes/003__matrix_size=512"
	piPath := filepath.Join(dir, filepath.FromSlash(run), "pi.json")
	data, err := os.ReadFile(piPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`"rate": [0-9.]+`).ReplaceAll(data, []byte(`"rate": 400.125`))
	if err := os.WriteFile(piPath, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	// The same size is possible: move the mtime so the edit cannot hide.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(piPath, later, later); err != nil {
		t.Fatal(err)
	}

	r := runSeshat(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if line := statsLine(r.stderr); line != "parsed 13 entries: 10 cached, 1 parsed, 1 incomplete, 1 failed" {
		t.Errorf("stats after the edit: %q", line)
	}
	for _, e := range decodeMatrix(t, r.stdout).Entries {
		if e.Path == run {
			if e.Results == nil || e.Results.PI == nil || e.Results.PI.Result.Rate == nil || *e.Results.PI.Result.Rate != 400.125 {
				t.Errorf("%s: the edited rate does not show: %+v", run, e.Results)
			}
		}
	}
}

func TestParseFilters(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	tests := []struct {
		name, filters string
		want          []string
	}{
		{
			name: "an int setting", filters: "matrix_size=512",
			want: []string{"imported_runs/001__dtype=float64", "matmul_sizes/003__matrix_size=512"},
		},
		{
			name: "several values and keys", filters: "backend=numpy,matrix_size=256:1024",
			want: []string{
				"matmul_batches/004__backend=numpy__repeat=0", "matmul_batches/005__backend=numpy__repeat=1",
				"matmul_batches/006__backend=numpy__repeat=2", "matmul_sizes/002__matrix_size=256",
				"matmul_sizes/004__matrix_size=1024",
			},
		},
		{
			name: "a repeat", filters: "@repeat=1",
			want: []string{"matmul_batches/002__backend=gonum__repeat=1", "matmul_batches/005__backend=numpy__repeat=1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the subtests share dir and its caches.
			r := runSeshat(t, nil, "parse", "--results-dir", dir, "--filters", tt.filters, "--output-matrix", "-")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var got []string
			for _, e := range decodeMatrix(t, r.stdout).Entries {
				got = append(got, e.Path)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("entries = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "expe", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{
			name: "unknown workload", code: 4, message: `unknown workload "nosuch"`,
			args: []string{"parse", "--results-dir", copyResults(t), "--workload", "nosuch"},
		},
		{
			name: "no test roots", code: 3, message: "no test roots",
			args: []string{"parse", "--results-dir", empty, "--output-matrix", "-"},
		},
		{
			name: "missing results directory", code: 4, message: "no such file or directory",
			args: []string{"parse", "--results-dir", filepath.Join(empty, "nosuch"), "--output-matrix", "-"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.message) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", r.code, r.stderr, tt.code, tt.message)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
		})
	}
}

// TestParseNamesASettingsFileThatIsNotAFile: a run whose settings.yaml is
// a FIFO was dropped without a word (a dangling symlink was named): both
// are named and counted failed, and the parse never waits on the FIFO.
func TestParseNamesASettingsFileThatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	const fifo, gone = "matmul_sizes/003__matrix_size=512", "matmul_sizes/002__matrix_size=256"
	for _, run := range []string{fifo, gone} {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(run), "settings.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(fifo), "settings.yaml"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, filepath.FromSlash(gone), "settings.yaml")); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, nil, "parse", "--results-dir", dir, "--output-matrix", "-")
	for _, want := range []string{fifo + "/settings.yaml: not a regular file", gone + "/settings.yaml: no such file"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, r.stderr)
		}
	}
	if line := statsLine(r.stderr); line != "parsed 13 entries: 0 cached, 9 parsed, 1 incomplete, 3 failed" {
		t.Errorf("stats: %q, want both runs among the 13, failed", line)
	}
}
