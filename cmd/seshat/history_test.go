package main

import (
	"path/filepath"
	"strings"
	"testing"
)

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
		lines int    // table rows, header excluded
		want  string // in stdout (or stderr when the exit code is not 0)
	}{
		{"all", nil, 0, 8, "TIME"},
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
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(lines)-1 != tt.lines || !strings.Contains(r.stdout, tt.want) {
				t.Errorf("%d rows, want %d, with %q:\n%s", len(lines)-1, tt.lines, tt.want, r.stdout)
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
