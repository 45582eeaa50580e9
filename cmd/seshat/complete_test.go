package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// completions runs cobra's __complete (what the shell scripts call) and
// returns the values offered, less their descriptions, and the directive.
func completions(t *testing.T, env map[string]string, args ...string) ([]string, string) {
	t.Helper()
	r := runSeshat(t, env, append([]string{"__complete"}, args...)...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("__complete %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
	var values []string
	for _, v := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(v, "\t")
		values = append(values, name)
	}
	return values, lines[len(lines)-1]
}

// TestExpeCompletion: run --expe offers the experiments of the benchmark
// file --benchmark names, else the one the config file names.
func TestExpeCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bench := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(bench, []byte("common_settings: {workload: pi, pi: matmul, backend: gonum}\nexpe:\n  nightly: {matrix_size: 64}\n  nightly_big: {matrix_size: 512}\n  _draft: {matrix_size: 8}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "seshat.yaml")
	if err := os.WriteFile(cfg, []byte("run:\n  benchmark: "+bench+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"--benchmark", nil, []string{"run", "--benchmark", bench, "--expe", ""}, "nightly nightly_big _draft"},
		{"typed", nil, []string{"run", "--benchmark", bench, "--expe", "nightly_"}, "nightly_big"},
		{"config file", map[string]string{"SESHAT_CONFIG": cfg}, []string{"run", "--expe", "n"}, "nightly nightly_big"},
		{"no benchmark", nil, []string{"run", "--expe", ""}, ""},
		{"missing file", nil, []string{"run", "--benchmark", filepath.Join(dir, "nope.yaml"), "--expe", ""}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			values, directive := completions(t, tt.env, tt.args...)
			if got := strings.Join(values, " "); got != tt.want || directive != ":4" {
				t.Errorf("offered %q (%s), want %q and no file names (:4)", got, directive, tt.want)
			}
		})
	}
}

// TestBuildCompletion: a compare side offers the builds of the store
// (--store), latest first, as build:ID; anything else completes as file
// names.
func TestBuildCompletion(t *testing.T) {
	t.Parallel()
	st := nightlyStore(t)
	missing := "sqlite:" + filepath.Join(t.TempDir(), "none.db")
	for _, tt := range []struct {
		name      string
		args      []string
		want      string
		directive string
	}{
		{"build:", []string{"compare", "--store", st, "build:"}, "build:nightly-03 build:nightly-02 build:nightly-01", ":4"},
		{"b", []string{"compare", "--store", st, "b"}, "build:nightly-03 build:nightly-02 build:nightly-01", ":4"},
		{"typed id", []string{"compare", "--store", st, "build:nightly-01", "build:nightly-0"}, "build:nightly-03 build:nightly-02 build:nightly-01", ":4"},
		{"narrowed", []string{"compare", "--store", st, "build:nightly-02"}, "build:nightly-02", ":4"},
		{"a path", []string{"compare", "--store", st, "results/"}, "", ":0"},
		{"third side", []string{"compare", "--store", st, "a", "b", "build:"}, "", ":4"},
		{"no store", []string{"compare", "--store", missing, "build:"}, "", ":4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			values, directive := completions(t, nil, tt.args...)
			if got := strings.Join(values, " "); got != tt.want || directive != tt.directive {
				t.Errorf("offered %q (%s), want %q (%s)", got, directive, tt.want, tt.directive)
			}
		})
	}
}
