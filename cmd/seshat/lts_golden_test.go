package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/openmetricstest"
)

// checkGolden compares got with testdata/golden/name, rewriting it first
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join(goldenDir, name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/seshat -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update and review the diff):\n%s", golden, firstDiff(got, string(want)))
	}
}

// invalidShipped are the complete entries of the shipped tree whose payloads
// strict validation refuses: corrupt pi.json, truncated hwinfo.json, a
// failed run without pi.json.
var invalidShipped = []string{
	"matmul_sizes/004__matrix_size=1024",
	"matmul_sizes/005__matrix_size=2048",
	"matmul_sizes/007__matrix_size=8192",
}

// TestLTSGolden writes the LTS payloads of the shipped tree: refused as a
// whole while it holds broken entries, each named with its bad fields; once
// those are skipped, the payloads match the golden file and the schema.
func TestLTSGolden(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	env := map[string]string{"SESHAT_RESULTS_BASE_URL": baseURL}
	args := []string{"parse", "--results-dir", dir, "--output-lts", "-", "--pretty"}

	r := runSeshat(t, env, args...)
	if r.code != 4 || r.stdout != "" {
		t.Fatalf("broken entries: exit %d, stdout %q, want exit 4 and nothing written\n%s", r.code, r.stdout, r.stderr)
	}
	_, refusal, _ := strings.Cut(r.stderr, "seshat: --output-lts:")
	checkGolden(t, "lts_refused.txt", "seshat: --output-lts:"+refusal)

	for _, e := range invalidShipped {
		if err := os.WriteFile(filepath.Join(dir, e, "skip"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = runSeshat(t, env, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "lts.json", r.stdout)

	var payloads []struct {
		Metadata struct {
			TestUUID string            `json:"test_uuid"`
			URLs     map[string]string `json:"urls"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &payloads); err != nil {
		t.Fatal(err)
	}
	// Complete entries only: 13 roots, less 3 skipped, the incomplete one and
	// the one with an empty exit_code.
	if len(payloads) != 8 {
		t.Errorf("%d payloads, want 8", len(payloads))
	}
	var urls []string
	for _, p := range payloads {
		urls = append(urls, p.Metadata.URLs["artifacts"])
	}
	if !sortedStrings(urls) {
		t.Errorf("payloads not sorted by path: %v", urls)
	}

	// The payloads match the schema `seshat schema` writes: the pipeline
	// package's TestLTSGoldenMatchesSchema validates the golden file they
	// equal. Not here: the JSON Schema validator's package init (17-22 ms
	// a process) would run in every `seshat pi` this test binary starts.
}

func sortedStrings(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

// TestKPIsGolden exports the KPIs of the whole shipped tree, leniently: the
// KPIs that broken entries still allow are exported, the others warned
// about; failed runs have none.
func TestKPIsGolden(t *testing.T) {
	t.Parallel()
	dir := copyResults(t)
	r := runSeshat(t, nil, "kpis", "--results-dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "kpis.openmetrics", r.stdout)
	families, err := openmetricstest.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("Prometheus' OpenMetrics parser refuses the export: %v", err)
	}
	units := map[string]string{}
	for _, f := range families {
		units[f.Name] = f.Unit
		for _, s := range f.Samples {
			if s.Labels["test_uuid"] == "" || s.TimestampMs == nil {
				t.Errorf("%s: sample without test_uuid or timestamp: %+v", f.Name, s)
			}
		}
	}
	want := map[string]string{"pi_cpu_seconds": "seconds", "pi_elapsed_ci95_rel": "", "pi_elapsed_ms": "",
		"pi_max_rss_bytes": "bytes", "pi_rate_gflops": ""}
	if len(units) != len(want) {
		t.Errorf("families %v, want %v", units, want)
	}
	for name, unit := range want {
		if u, ok := units[name]; !ok || u != unit {
			t.Errorf("family %s: unit %q (present %v), want %q", name, u, ok, unit)
		}
	}
	for _, w := range []string{
		"matmul_sizes/004__matrix_size=1024: kpi rate_gflops: not computed: no pi.json",
		"matmul_sizes/007__matrix_size=8192: exit code 1: no KPIs for a failed run",
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}

	r = runSeshat(t, nil, "kpis", "--results-dir", dir, "--format", "json", "--pretty")
	if r.code != 0 {
		t.Fatalf("json: exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "kpis.json", r.stdout)
}

// TestSchemaGolden keeps the payload schema and the OpenSearch templates
// under review: a change of contract shows in the diff.
func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	tpl := filepath.Join(t.TempDir(), "templates.json")
	r := runSeshat(t, nil, "schema", "--opensearch-template", tpl)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkGolden(t, "lts_payload.schema.json", r.stdout)
	data, err := os.ReadFile(tpl)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "opensearch_templates.json", string(data))
	if !bytes.Contains(data, []byte(`"seshat-kpis"`)) {
		t.Errorf("no KPI index template:\n%s", data)
	}
}
