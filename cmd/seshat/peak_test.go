package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// A run's max_rss_bytes is the peak of the run's own processes, never the
// memory of the seshat that started the run: Linux counts a parent's peak
// in a child it starts with vfork semantics, so a `seshat regression`
// that grew over its re-runs made identical small PIs "regress" in
// memory. Here a seshat holding 256 MiB runs an exec PI (a shell) and a Go
// kernel; each run must report tens of MiB, and usage.json keep the
// kernel's figure beside it.
func TestRunPeakIsThePIs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the run's peak is read from /proc")
	}
	t.Parallel()
	const ballastMiB = 256
	results := filepath.Join(t.TempDir(), "results")
	bench := writeBenchmark(t, `expe:
  shell:
    pi: exec
    command: [sh, -c, 'printf "{\"component\": \"sh\", \"name\": \"Peak\", \"@result\": {\"elapsed\": 1.0}, \"versions\": {\"sh\": \"1\"}}"']
  kernel:
    pi: matmul
    backend: gonum
    matrix_size: 8
    repetitions: 3
`)
	cmd := exec.Command(os.Args[0], "run", "--benchmark", bench, "--results-dir", results, "-q")
	cmd.Env = append(os.Environ(), asSeshat+"=1", ballastEnv+"=256")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seshat run: %v\n%s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(results, "*", "*", "usage.json"))
	if len(paths) != 2 {
		t.Fatalf("usage.json files %v, want one per experiment", paths)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var u models.Usage
		if err := json.Unmarshal(data, &u); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rel, _ := filepath.Rel(results, path)
		if u.SeshatMaxRSSBytes < ballastMiB<<20 || u.KernelMaxRSSBytes < ballastMiB<<20 {
			t.Errorf("%s: seshat_maxrss_bytes %d MiB, kernel_maxrss_bytes %d MiB: want both at least the starting seshat's %d MiB", rel, u.SeshatMaxRSSBytes>>20, u.KernelMaxRSSBytes>>20, ballastMiB)
		}
		if got := u.Rusage.MaxRSSBytes; got <= 0 || got >= ballastMiB<<20/2 {
			t.Errorf("%s: rusage.maxrss_bytes %d MiB: want the run's own peak, well below the starting seshat's %d MiB", rel, got>>20, ballastMiB)
		}
	}
}

// `seshat pi --report-fd N` with N not open is invalid input, named; the
// PI does not run.
func TestPIReportFDNotOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.yaml")
	if err := os.WriteFile(settings, []byte("pi: matmul\nbackend: gonum\nmatrix_size: 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pi.json")
	r := runSeshat(t, nil, "pi", "--settings", settings, "--output", out, "--report-fd", "1000")
	if r.code != 4 || !strings.Contains(r.stderr, "--report-fd 1000: bad file descriptor") {
		t.Errorf("exit %d, stderr %q: want 4 naming the descriptor", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the PI ran: %s written", out)
	}
}
