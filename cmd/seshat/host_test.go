package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// TestHostCheckCommand runs `seshat host check` on this machine: a line per
// check, the verdict last, exit 0 whatever it is; the JSON form for scripts.
func TestHostCheckCommand(t *testing.T) {
	t.Parallel()
	r := runSeshat(t, nil, "host", "check", "--sample", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for i, name := range []string{"load", "pressure", "governor", "turbo", "smt", "busy", "cgroup", "aslr"} {
		if i >= len(lines) || !strings.HasPrefix(lines[i], name+" ") {
			t.Fatalf("line %d is not the %s check:\n%s", i+1, name, r.stdout)
		}
	}
	verdict := lines[len(lines)-1]
	if verdict != "host: quiet" && !strings.HasPrefix(verdict, "host: noisy (") {
		t.Errorf("last line %q is not the verdict", verdict)
	}

	r = runSeshat(t, nil, "host", "check", "--sample", "0", "--format", "json")
	if r.code != 0 {
		t.Fatalf("--format json: exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		CPUs    int    `json:"cpus"`
		Checks  []struct{ Name, Status, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if (doc.Verdict != "quiet" && doc.Verdict != "noisy") || !strings.HasPrefix(doc.Summary, "host: "+doc.Verdict) || doc.CPUs == 0 || len(doc.Checks) != 8 {
		t.Errorf("%+v", doc)
	}
	if doc.Checks[5].Name != "busy" || doc.Checks[5].State != "not watched" {
		t.Errorf("--sample 0 watched: %+v", doc.Checks[5])
	}
}

func TestHostCheckInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"host", "check", "--format", "yaml"}, `--format: "yaml" is not text or json`},
		{[]string{"host", "check", "--sample", "-1s"}, "--sample -1s: must not be negative"},
		{[]string{"host", "check", "--sample", "soon"}, "invalid argument"},
		{[]string{"host", "check", "extra"}, `unexpected argument "extra"`},
		{[]string{"host"}, "seshat host: name one of: check"},
		{[]string{"host", "chek"}, `unknown command "chek"`},
	}
	for _, tc := range tests {
		r := runSeshat(t, nil, tc.args...)
		if r.code != 4 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 4 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// hostFixture is a host recorded under runner/host/testdata/hosts.
func hostFixture(name string) string {
	return filepath.Join("..", "..", "runner", "host", "testdata", "hosts", name)
}

// TestHostCheckFixtures: the report of recorded hosts, as a person reads it
// (the watch of busy processes needs a live /proc: package host tests it).
func TestHostCheckFixtures(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"noisy-laptop", "vm-cgroupv1"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runSeshatOn(t, hostFixture(name), "host", "check", "--sample", "0")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			golden(t, "host_check_"+name+".txt", r.stdout)
		})
	}
}

const execBenchmark = `common_settings:
  pi: exec
  command: [sh, -c, 'echo "{\"component\": \"sh\", \"name\": \"PiEcho\", \"@parameters\": {}, \"@result\": {\"elapsed\": 1.5, \"samples_ms\": [1.5]}, \"versions\": {\"sh\": \"1\"}}"']
expe:
  e:
    n: [1, 2, 3]
extra_settings: [n]
`

// TestRunWarnsOnceOnBusyHost: a busy host is said once, before anything is
// measured, and each run records the host's load and governors.
func TestRunWarnsOnceOnBusyHost(t *testing.T) {
	t.Parallel()
	bench := writeBenchmark(t, execBenchmark)
	results := filepath.Join(t.TempDir(), "results")
	r := runSeshatOn(t, hostFixture("noisy-laptop"), "run", "--benchmark", bench, "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	const warning = "seshat: warning: the host is busy (load 5.1 on 8 CPUs over the last minute): timings may be noisy; `seshat host check` tells what else runs\n"
	if n := strings.Count(r.stderr, warning); n != 1 {
		t.Errorf("the warning appears %d times, want once:\n%s", n, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(results, "e", "002__n=3", "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var u models.Usage
	if err := json.Unmarshal(data, &u); err != nil {
		t.Fatal(err)
	}
	want := models.HostState{LoadAvg: []float64{5.12, 3.4, 2.01}, Governor: "powersave (0-5), performance (6-7)", CPUStallUS: new(int64(8123456789))}
	if u.HostStart == nil || u.HostEnd == nil || !reflect.DeepEqual(*u.HostStart, want) || !reflect.DeepEqual(*u.HostEnd, want) {
		t.Errorf("usage.json host_start %+v, host_end %+v; want %+v", u.HostStart, u.HostEnd, want)
	}

	// A quiet host, a dry run, -q: no warning.
	for _, tc := range []struct {
		root string
		args []string
	}{
		{hostFixture("quiet-bare-metal"), []string{"run", "--benchmark", bench, "--results-dir", filepath.Join(t.TempDir(), "r")}},
		{hostFixture("noisy-laptop"), []string{"run", "--benchmark", bench, "--dry-run"}},
		{hostFixture("noisy-laptop"), []string{"-q", "run", "--benchmark", bench, "--results-dir", filepath.Join(t.TempDir(), "r")}},
	} {
		r := runSeshatOn(t, tc.root, tc.args...)
		if r.code != 0 || strings.Contains(r.stderr, "busy") {
			t.Errorf("%s %v: exit %d, stderr:\n%s", filepath.Base(tc.root), tc.args, r.code, r.stderr)
		}
	}
}

// TestRunWarnsOnBusyGPU: before GPU runs (device: gpu), a GPU another
// process holds is said once, from nvidia-smi's answers (recorded on an
// H200 under a torch matmul loop); CPU runs do not ask.
func TestRunWarnsOnBusyGPU(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "host")
	if err := os.CopyFS(root, os.DirFS(hostFixture("quiet-bare-metal"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "nvidia-smi"), os.DirFS(filepath.Join("..", "..", "runner", "host", "testdata", "nvidia-smi", "h200-busy"))); err != nil {
		t.Fatal(err)
	}
	const warning = "seshat: warning: the GPU is busy (GPU used by python3): GPU timings may be noisy; `seshat host check` tells more\n"
	for _, device := range []string{"gpu", "cpu"} {
		bench := writeBenchmark(t, strings.Replace(execBenchmark, "  pi: exec\n", "  pi: exec\n  device: "+device+"\n", 1))
		r := runSeshatOn(t, root, "run", "--benchmark", bench, "--results-dir", filepath.Join(t.TempDir(), "results"))
		if r.code != 0 {
			t.Fatalf("device %s: exit %d\n%s", device, r.code, r.stderr)
		}
		want := map[string]int{"gpu": 1, "cpu": 0}[device]
		if n := strings.Count(r.stderr, warning); n != want {
			t.Errorf("device %s: the GPU warning appears %d times, want %d:\n%s", device, n, want, r.stderr)
		}
	}
}
