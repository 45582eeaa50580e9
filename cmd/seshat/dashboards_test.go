package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDashboardsGolden writes the saved objects of the shipped workloads:
// what a user imports into OpenSearch Dashboards.
func TestDashboardsGolden(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "dashboards")
	// The workloads of imported runs have no framework_version (the default
	// comparison key): their charts are not split, and that is said.
	if r.code != 0 || strings.Contains(r.stderr, "workload pi ") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "dashboards.ndjson", r.stdout)
}

// TestDashboardsConfig: index names and comparison keys come from the same
// seshat.yaml keys as upload and regression, under env and flags.
func TestDashboardsConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "seshat.yaml")
	writeFiles(t, dir, map[string]string{"seshat.yaml": `
lts:
  opensearch:
    index: perf
    index_prefix: ci-
    kpi_index_suffix: -k
regression_analyses:
  comparison_keys: [backend, device]
`})
	out := filepath.Join(dir, "objects.ndjson")
	r := runSeshat(t, nil, "--config", cfg, "dashboards", "--output", out)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"title":"ci-perf","timeFieldName":"metadata.start"`,
		`"title":"ci-perf-k","timeFieldName":"@timestamp"`,
		`"id":"seshat-dashboard-ci-perf-k-pi"`,
		`\"field\":\"backend\"`, `\"field\":\"device\"`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("output lacks %s", want)
		}
	}

	// The environment overrides the file, the flag the environment.
	r = runSeshat(t, map[string]string{"SESHAT_COMPARISON_KEYS": "dtype"}, "--config", cfg, "dashboards")
	if r.code != 0 || !strings.Contains(r.stdout, `\"field\":\"dtype\"`) || strings.Contains(r.stdout, `\"field\":\"backend\"`) {
		t.Errorf("SESHAT_COMPARISON_KEYS=dtype: exit %d, split not by dtype alone\n%s", r.code, r.stderr)
	}
	r = runSeshat(t, map[string]string{"SESHAT_COMPARISON_KEYS": "dtype"}, "--config", cfg, "dashboards", "--index-prefix", "")
	if r.code != 0 || !strings.Contains(r.stdout, `"title":"perf-k"`) {
		t.Errorf("--index-prefix '': exit %d, want the KPI index perf-k\n%s", r.code, r.stderr)
	}
}

func TestDashboardsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"too many keys", []string{"--comparison-keys", "a,b,c,d"}, 4, "a line chart splits by at most 3"},
		{"reserved field", []string{"--comparison-keys", "kpi"}, 4, `comparison key "kpi": a field of every KPI document`},
		{"bad index", []string{"--index", "Perf"}, 4, `index "Perf": OpenSearch index names are lowercase`},
		{"argument", []string{"extra"}, 4, `unexpected argument "extra"`},
		{"unwritable", []string{"--output", "/nonexistent/dir/x.ndjson"}, 1, "--output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runSeshat(t, nil, append([]string{"dashboards"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming %q", r.code, r.stdout, r.stderr, tt.code, tt.want)
			}
		})
	}
}

// TestDashboardsWarning: a comparison key the workload does not declare is
// a warning naming it; the charts are still written.
func TestDashboardsWarning(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "dashboards", "--comparison-keys", "stack")
	if r.code != 0 || !strings.Contains(r.stderr, "workload pi has no label stack") || !strings.Contains(r.stdout, `"type":"dashboard"`) {
		t.Errorf("exit %d\nstderr %s", r.code, r.stderr)
	}
}
