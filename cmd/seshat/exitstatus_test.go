package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingInputExitStatus: an input file or directory the user names
// that does not exist (or is not what the flag wants) is invalid input,
// exit 4, in every verb, and the message names the flag or argument. The
// other inputs of each line exist, so the one missing is what fails.
func TestMissingInputExitStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	results := copyResults(t)
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"run --benchmark", []string{"run", "--benchmark", missing, "--results-dir", out}, "benchmark file"},
		{"parse --results-dir", []string{"parse", "--results-dir", missing}, "results directory"},
		{"parse --results-dir, a file", []string{"parse", "--results-dir", file}, "not a directory"},
		{"kpis --results-dir", []string{"kpis", "--results-dir", missing}, "results directory"},
		{"upload --results-dir", []string{"upload", "--results-dir", missing, "--store", "sqlite:" + filepath.Join(dir, "u.db")}, "results directory"},
		{"upload --lts", []string{"upload", "--lts", missing, "--store", "sqlite:" + filepath.Join(dir, "u.db")}, "--lts"},
		{"regression --results-dir", []string{"regression", "--results-dir", missing, "--report-dir", out}, "results directory"},
		{"regression --lts", []string{"regression", "--lts", missing, "--report-dir", out}, "--lts"},
		{"regression --ack", []string{"regression", "--results-dir", results, "--ack", missing, "--report-dir", out}, "--ack"},
		{"changepoints FILE", []string{"changepoints", missing}, "series file"},
		{"visualize --results-dir", []string{"visualize", "--results-dir", missing, "--output-dir", out}, "results directory"},
		{"visualize --plots", []string{"visualize", "--results-dir", results, "--plots", missing, "--output-dir", out}, "--plots"},
		{"visualize --history", []string{"visualize", "--results-dir", results, "--history", missing, "--output-dir", out}, "--history"},
		{"--config", []string{"parse", "--config", missing, "--results-dir", results}, "config file"},
		{"--workload-file", []string{"parse", "--workload-file", missing, "--results-dir", results}, "--workload-file"},
		{"workload check FILE", []string{"workload", "check", missing}, "workload file"},
		{"compare A", []string{"compare", missing, results}, missing},
		{"compare B", []string{"compare", results, missing}, missing},
		{"import INPUT", []string{"import", "gobench", missing, "--results-dir", out}, missing},
		{"upload --ca-cert", []string{"upload", "--results-dir", results, "--store", "https://127.0.0.1:9", "--ca-cert", missing}, "--ca-cert"},
		{"upload --password-file", []string{"upload", "--results-dir", results, "--store", "https://u@127.0.0.1:9", "--password-file", missing}, "--password-file"},
		{"history --ca-cert", []string{"history", "--store", "https://127.0.0.1:9", "--ca-cert", missing}, "--ca-cert"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, tc.args...)
			if r.code != 4 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("seshat %s: exit %d, want 4 naming %q; stderr:\n%s", strings.Join(tc.args, " "), r.code, tc.want, r.stderr)
			}
		})
	}
}
