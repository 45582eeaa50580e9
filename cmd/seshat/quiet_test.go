package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQuiet: -q shows errors only. Every verb that succeeds prints nothing
// on stderr; a failed run still names what failed.
func TestQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	store := "sqlite:" + filepath.Join(dir, "lts.db")
	bench := writeBenchmark(t, "common_settings:\n  pi: matmul\n  backend: gonum\n  repetitions: 3\n  warmup: 0\nexpe:\n  q: {matrix_size: [8, 16]}\n")
	steps := [][]string{
		{"run", "--benchmark", bench, "--results-dir", results},
		{"run", "--benchmark", bench, "--results-dir", results, "--dry-run"},
		{"parse", "--results-dir", results, "--output-matrix", filepath.Join(dir, "matrix.json")},
		{"kpis", "--results-dir", results},
		{"upload", "--results-dir", results, "--store", store, "--dry-run"},
		{"upload", "--results-dir", results, "--store", store},
		{"visualize", "--results-dir", results, "--output-dir", filepath.Join(dir, "reports")},
		// The store holds the current runs only: no history (a first run).
		{"regression", "--results-dir", results, "--history", store, "--report-dir", filepath.Join(dir, "regression"), "--allow-no-history"},
	}
	for _, args := range steps {
		r := runSeshat(t, nil, append([]string{"-q"}, args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("seshat -q %s: exit %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}

	failing := writeBenchmark(t, "expe:\n  bad:\n    pi: exec\n    command: [sh, -c, 'exit 3']\n")
	r := runSeshat(t, nil, "-q", "run", "--benchmark", failing, "--results-dir", results)
	if r.code != 1 || !strings.Contains(r.stderr, "failed: bad/000__run: exit code 1") || strings.Contains(r.stderr, "succeeded") ||
		strings.Contains(r.stderr, "started") {
		t.Errorf("seshat -q run of a failing PI: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
