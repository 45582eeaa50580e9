package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner/host"
)

const statusBenchmark = `common_settings:
  pi: exec
  command: [sh, -c, 'grep Cpus_allowed_list /proc/self/status >&2; echo "{\"component\": \"sh\", \"name\": \"PiEcho\", \"@parameters\": {}, \"@result\": {\"elapsed\": 1.5, \"samples_ms\": [1.5]}, \"versions\": {\"sh\": \"1\"}}"']
expe:
  e: {}
`

// TestRunCPUs: --cpus pins the PI and everything it starts, and usage.json
// says to which CPUs.
func TestRunCPUs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("pinning needs Linux")
	}
	allowed, err := host.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := host.FormatCPUList(allowed[len(allowed)-1:])
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshat(t, nil, "-q", "run", "--benchmark", writeBenchmark(t, statusBenchmark), "--results-dir", results, "--cpus", last)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	dir := filepath.Join(results, "e", "000__run")
	stderr, err := os.ReadFile(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(string(stderr)), " "); got != "Cpus_allowed_list: "+last {
		t.Errorf("the PI's command ran on %q, want CPU %s", got, last)
	}
	data, err := os.ReadFile(filepath.Join(dir, "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var u models.Usage
	if err := json.Unmarshal(data, &u); err != nil || u.CPUs != last {
		t.Errorf("usage.json cpus %q (%v), want %q", u.CPUs, err, last)
	}
}

// TestRunCPUsInvalid: a malformed list, or CPUs this host does not have, is
// invalid input naming them, before anything runs.
func TestRunCPUsInvalid(t *testing.T) {
	t.Parallel()
	allowed, err := host.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	beyond := allowed[len(allowed)-1] + 1
	bench := writeBenchmark(t, statusBenchmark)
	tests := []struct {
		cpus, want string
		args       []string
	}{
		{cpus: "0-", want: `--cpus "0-": not a CPU list (like 0, 0-3 or 0,2,4-7): "0-": "" is not a CPU number`},
		{cpus: "one", want: `--cpus "one": not a CPU list`},
		{cpus: "3-1", want: `"3-1": range ends before it starts`},
		{cpus: "0," + host.FormatCPUList([]int{beyond}), want: "CPU " + host.FormatCPUList([]int{beyond}) + " is not among the CPUs seshat may run on here (" + host.FormatCPUList(allowed) + ")"},
		{cpus: "0-" + host.FormatCPUList([]int{beyond + 1}), want: "CPUs " + host.FormatCPUList([]int{beyond, beyond + 1}) + " are not among the CPUs"},
		{cpus: "0", args: []string{"--executor", "slurm"}, want: "--cpus pins the runs of the local executor; with --executor slurm the scheduler places them"},
		{cpus: "0-", args: []string{"--dry-run"}, want: `--cpus "0-": not a CPU list`},
	}
	for _, tc := range tests {
		results := filepath.Join(t.TempDir(), "results")
		args := append([]string{"run", "--benchmark", bench, "--results-dir", results, "--cpus", tc.cpus}, tc.args...)
		r := runSeshat(t, nil, args...)
		if r.code != 4 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--cpus %s %v: exit %d, stderr %q; want 4 and %q", tc.cpus, tc.args, r.code, r.stderr, tc.want)
		}
		if _, err := os.Stat(results); err == nil {
			t.Errorf("--cpus %s: the results directory was created", tc.cpus)
		}
	}
}
