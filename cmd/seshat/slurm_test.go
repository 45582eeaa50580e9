package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/slurmtest"
)

// One real single-node Slurm cluster per test binary (internal/slurmtest),
// started by the first test that needs it; TestMain stops it. sbatch,
// squeue and scancel run with this process's environment, and the tasks
// with sbatch's: SLURM_CONF is set here.
var slurm = &slurmtest.Shared{Options: slurmtest.Options{CPUs: 4}}

func slurmFor(t *testing.T) *slurmtest.Cluster {
	c := slurm.Get(t)
	os.Setenv("SLURM_CONF", c.Conf)
	return c
}

func stopSlurm() { slurm.Stop() }

// A small gonum matrix with a PI that fails and one that times out.
const slurmBenchmark = `common_settings:
  repetitions: 3
  warmup: 1
expe:
  matmul:
    pi: matmul
    backend: gonum
    matrix_size: [16, 32]
  broken:
    pi: exec
    command: [sh, -c, 'echo the PI failed >&2; exit 1']
  slow:
    pi: exec
    command: [sh, -c, 'exec sleep 600']
`

// TestRunCommandSlurm runs one benchmark file locally and through a real
// Slurm cluster, then parses both trees: every run complete, the failures
// recorded with their reasons, and the parse identical in shape.
func TestRunCommandSlurm(t *testing.T) {
	t.Parallel()
	slurmFor(t)
	bench := writeBenchmark(t, slurmBenchmark)
	config := filepath.Join(t.TempDir(), "seshat.yaml")
	os.WriteFile(config, []byte("executor:\n  slurm:\n    poll_interval: 200ms\n    grace_period: 2s\n"), 0o644)

	local := filepath.Join(t.TempDir(), "local")
	r := runSeshat(t, nil, "run", "--benchmark", bench, "--results-dir", local, "--timeout", "3s")
	if r.code != 1 {
		t.Fatalf("local: exit %d\n%s", r.code, r.stderr)
	}
	slurm := filepath.Join(t.TempDir(), "slurm")
	r = runSeshat(t, map[string]string{"SESHAT_EXECUTOR": "slurm"}, "--config", config, "run", "--benchmark", bench, "--results-dir", slurm, "--timeout", "3s")
	if r.code != 1 {
		t.Fatalf("slurm: exit %d\n%s", r.code, r.stderr)
	}
	for _, line := range []string{"4 runs: 2 succeeded, 2 failed", "failed: broken/000__run: exit code 1", "failed: slow/000__run: timed out after 3s"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("slurm summary lacks %q:\n%s", line, r.stderr)
		}
	}
	if got := runDirsOf(t, slurm); !reflect.DeepEqual(got, runDirsOf(t, local)) {
		t.Errorf("slurm run directories %v, local %v", got, runDirsOf(t, local))
	}
	for dir, want := range map[string]string{"broken/000__run": "the PI failed", "slow/000__run": "after the 3s timeout"} {
		data, _ := os.ReadFile(filepath.Join(slurm, dir, "stderr.log"))
		if !strings.Contains(string(data), want) {
			t.Errorf("%s/stderr.log lacks %q:\n%s", dir, want, data)
		}
		var si struct {
			JobID string `json:"job_id"`
			Node  string `json:"node"`
		}
		data, _ = os.ReadFile(filepath.Join(slurm, dir, "scheduler.json"))
		if err := json.Unmarshal(data, &si); err != nil || si.JobID == "" || si.Node == "" {
			t.Errorf("%s/scheduler.json: %v %s", dir, err, data)
		}
	}
	lm, sm := parseMatrix(t, local), parseMatrix(t, slurm)
	if len(sm) != 4 {
		t.Fatalf("slurm parse: %d entries", len(sm))
	}
	if !reflect.DeepEqual(shapeOf(lm), shapeOf(sm)) {
		l, _ := json.MarshalIndent(shapeOf(lm), "", " ")
		s, _ := json.MarshalIndent(shapeOf(sm), "", " ")
		t.Errorf("parse shapes differ:\nlocal %s\nslurm %s", l, s)
	}
	for i := range sm {
		for _, key := range []string{"path", "complete", "exit_code", "settings"} {
			if !reflect.DeepEqual(lm[i][key], sm[i][key]) {
				t.Errorf("entry %d: %s: local %v, slurm %v", i, key, lm[i][key], sm[i][key])
			}
		}
	}
}

// parseMatrix is `seshat parse --output-matrix` of a results tree: its
// entries, sorted by path.
func parseMatrix(t *testing.T, results string) []map[string]any {
	t.Helper()
	r := runSeshat(t, nil, "parse", "--results-dir", results, "--output-matrix", "-", "--no-cache")
	if r.code != 0 {
		t.Fatalf("parse %s: exit %d\n%s", results, r.code, r.stderr)
	}
	var m struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatal(err)
	}
	sort.Slice(m.Entries, func(i, j int) bool { return m.Entries[i]["path"].(string) < m.Entries[j]["path"].(string) })
	return m.Entries
}

// shapeOf keeps a JSON document's keys and value types (and list lengths),
// dropping the values: measurements, times and UUIDs differ between runs.
func shapeOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = shapeOf(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = shapeOf(e)
		}
		return out
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}
