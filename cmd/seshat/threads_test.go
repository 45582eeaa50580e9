package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

const threadsBenchmark = `common_settings:
  pi: exec
  command: [sh, -c, 'echo "OMP=$OMP_NUM_THREADS OPENBLAS=$OPENBLAS_NUM_THREADS" >&2; echo "{\"component\": \"sh\", \"name\": \"PiEcho\", \"@parameters\": {\"device\": \"cpu\"}, \"@result\": {\"elapsed\": 1.5, \"samples_ms\": [1.5], \"ci95_low\": 1.5, \"ci95_high\": 1.5}, \"versions\": {\"sh\": \"1\"}}"']
expe:
  e:
    openblas_num_threads: [1, 2]
`

// TestRunThreadCounts: a thread count set per matrix value reaches the PI's
// environment beside the inherited ones, and every thread count the PI ran
// with is a label of its payload, so that history tells the series apart.
func TestRunThreadCounts(t *testing.T) {
	t.Parallel()
	var environ []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(name, "_NUM_THREADS") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, "OMP_NUM_THREADS=4") // as a CI job would export it
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshatIn(t, nil, environ, "-q", "run", "--benchmark", writeBenchmark(t, threadsBenchmark), "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for dir, want := range map[string]string{"000__openblas_num_threads=1": "OMP=4 OPENBLAS=1", "001__openblas_num_threads=2": "OMP=4 OPENBLAS=2"} {
		data, err := os.ReadFile(filepath.Join(results, "e", dir, "stderr.log"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(data)); got != want {
			t.Errorf("%s: the PI saw %q, want %q", dir, got, want)
		}
	}
	p := runSeshat(t, nil, "parse", "--results-dir", results, "--output-lts", "-")
	if p.code != 0 {
		t.Fatalf("parse --output-lts (strict): exit %d\n%s", p.code, p.stderr)
	}
	var payloads []models.Payload
	if err := json.Unmarshal([]byte(p.stdout), &payloads); err != nil || len(payloads) != 2 {
		t.Fatalf("%v: %d payloads", err, len(payloads))
	}
	for i, want := range []string{"1", "2"} {
		labels := payloads[i].Metadata.Labels
		if labels["openblas_num_threads"] != want || labels["omp_num_threads"] != "4" {
			t.Errorf("payload %d labels %v: want openblas_num_threads %s, omp_num_threads 4", i, labels, want)
		}
		if _, set := labels["mkl_num_threads"]; set {
			t.Errorf("payload %d: mkl_num_threads %q, unset in the PI's environment", i, labels["mkl_num_threads"])
		}
	}
}
