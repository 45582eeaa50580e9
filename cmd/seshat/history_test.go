package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/lts"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads/pi/pitest"
)

// historyRuns returns the runs the history table lists, by the short
// test_uuid of its rows, each once.
func historyRuns(stdout string) []string {
	seen := map[string]bool{}
	var runs []string
	row := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+ `)
	for _, line := range strings.Split(stdout, "\n") {
		if !row.MatchString(line) {
			continue
		}
		for _, f := range strings.Fields(line) {
			if regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(f) {
				if !seen[f] {
					seen[f] = true
					runs = append(runs, f)
				}
				break
			}
		}
	}
	return runs
}

// uploadedShipped is a store holding the valid payloads of the shipped tree.
func uploadedShipped(t *testing.T) string {
	t.Helper()
	st := storeURL(t)
	r := runSeshat(t, nil, "upload", "--results-dir", copyResults(t), "--store", st)
	if r.code != 4 || !strings.Contains(r.stderr, "stored 8 payload(s)") {
		t.Fatalf("upload: exit %d\n%s", r.code, r.stderr)
	}
	return st
}

// TestHistoryGolden lists the shipped tree's payloads as a table and as
// JSON (go test ./cmd/seshat -run TestHistoryGolden -update rewrites them).
func TestHistoryGolden(t *testing.T) {
	t.Parallel()
	st := uploadedShipped(t)
	r := runSeshat(t, nil, "history", "--store", st)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "history.txt", r.stdout)
	r = runSeshat(t, nil, "history", "--store", st, "--format", "json", "--filters", "backend=numpy", "--since", "2025-03-14T02:00:14Z")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "history_numpy_since.json", r.stdout)
}

func TestHistoryQueries(t *testing.T) {
	t.Parallel()
	st := uploadedShipped(t)
	tests := []struct {
		name  string
		args  []string
		code  int
		lines int    // runs listed
		want  string // in stdout (or stderr when the exit code is not 0)
	}{
		{"all", nil, 0, 8, "TIME"},
		{"misspelt label", []string{"--filters", "matrx_size=128"}, 4, 0, `no stored payload has the label "matrx_size"; nearest: matrix_size`},
		{"unknown label", []string{"--filters", "backend=numpy,colour=red"}, 4, 0, `no stored payload has the label "colour"; labels there are: backend, blas,`},
		{"short commit", []string{"--filters", "commit=abc"}, 4, 0, `commit "abc": give at least 4 characters`},
		{"one label", []string{"--filters", "backend=gonum"}, 0, 4, "baf4c97d"},
		{"two values", []string{"--filters", "matrix_size=256:512"}, 0, 3, "c3c7b792"},
		{"two labels", []string{"--filters", "backend=gonum,dtype=float32"}, 0, 3, "1e250c70"},
		{"date range", []string{"--since", "2025-03-14", "--until", "2025-03-14T02:30:00Z"}, 0, 5, "e0faad1d"},
		{"until is exclusive", []string{"--until", "2025-02-27T23:41:05.999Z", "--since", "2025-02-27"}, 0, 1, "baf4c97d"},
		{"no match", []string{"--filters", "backend=torch"}, 3, 0, "no stored payload in " + st + " matches"},
		{"bad time", []string{"--since", "yesterday"}, 4, 0, `--since: "yesterday" is not a time`},
		{"empty range", []string{"--since", "2025-03-14", "--until", "2025-03-13"}, 4, 0, "is not after since"},
		{"bad filter", []string{"--filters", "Backend=numpy"}, 4, 0, "not a label name"},
		{"bad format", []string{"--format", "csv"}, 4, 0, `--format: "csv"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, append([]string{"history", "--store", st}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if tt.code != 0 {
				if r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
					t.Errorf("stdout %q, stderr lacks %q:\n%s", r.stdout, tt.want, r.stderr)
				}
				return
			}
			if runs := historyRuns(r.stdout); len(runs) != tt.lines || !strings.Contains(r.stdout, tt.want) {
				t.Errorf("%d runs, want %d, with %q:\n%s", len(runs), tt.lines, tt.want, r.stdout)
			}
		})
	}
}

func TestHistoryWithoutStore(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "never-uploaded.db")
	r := runSeshat(t, nil, "history", "--store", "sqlite:"+db)
	if r.code != 3 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("exit %d, want 3\n%s", r.code, r.stderr)
	}
}

// nightlyStore is a store of three builds of five runs each, on three
// matrix sizes; two commits share a prefix.
func nightlyStore(t *testing.T) string {
	t.Helper()
	url := storeURL(t)
	st, err := lts.Open(context.Background(), url, lts.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps := pitest.Payloads(15, pitest.Options{Series: 3, Samples: 5, Seed: 23})
	commits := []string{"3f2a9c1e5b0d", "3f2a07d2aa41", "8e41d07c3f99"}
	for i, p := range ps {
		p.Metadata.Build = &models.Build{ID: fmt.Sprintf("nightly-%02d", i/5+1), Commit: commits[i/5]}
	}
	if _, err := st.Put(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestHistoryBuilds: the table shows each run's build, so three builds of
// five runs can be seen (golden), and --filters selects by build id and
// commit prefix.
func TestHistoryBuilds(t *testing.T) {
	t.Parallel()
	st := nightlyStore(t)
	r := runSeshat(t, nil, "history", "--store", st)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "history_builds.txt", r.stdout)
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("a line of %d columns: %s", n, line)
		}
	}
	for _, tt := range []struct {
		filters string
		runs    int
		builds  []string
	}{
		{"build=nightly-02", 5, []string{"nightly-02 3f2a07d"}},
		{"build=nightly-01:nightly-03", 10, []string{"nightly-01 3f2a9c1", "nightly-03 8e41d07"}},
		{"commit=3f2a", 10, []string{"nightly-01 3f2a9c1", "nightly-02 3f2a07d"}},
		{"commit=8e41d07c3f99", 5, []string{"nightly-03 8e41d07"}},
		{"commit=3f2a,build=nightly-02,matrix_size=" + pitest.MatrixSize(1), 1, []string{"nightly-02 3f2a07d"}},
	} {
		r := runSeshat(t, nil, "history", "--store", st, "--filters", tt.filters)
		if r.code != 0 {
			t.Errorf("--filters %s: exit %d\n%s", tt.filters, r.code, r.stderr)
			continue
		}
		if runs := historyRuns(r.stdout); len(runs) != tt.runs {
			t.Errorf("--filters %s: %d runs, want %d:\n%s", tt.filters, len(runs), tt.runs, r.stdout)
		}
		for _, b := range tt.builds {
			if !strings.Contains(r.stdout, b) {
				t.Errorf("--filters %s: build %q not shown:\n%s", tt.filters, b, r.stdout)
			}
		}
	}
	r = runSeshat(t, nil, "history", "--store", st, "--filters", "build=nightly-1")
	if r.code != 3 || !strings.Contains(r.stderr, "no stored payload") {
		t.Errorf("an unknown build: exit %d, want 3\n%s", r.code, r.stderr)
	}
}
