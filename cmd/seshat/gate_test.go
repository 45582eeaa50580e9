package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeHost runs the stand-in PI testdata/pi/fake-rate.awk, whose rate the
// test sets: the speed of the code under test, a slow phase of the host
// lasting some runs, and the run-to-run noise.
type fakeHost struct {
	dir, speed, slow, store string
	// before is the exit status of hangingNight's first analysis.
	before int
}

func newFakeHost(t *testing.T) *fakeHost {
	t.Helper()
	for _, tool := range []string{"sh", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the stand-in PI is a shell script", tool)
		}
	}
	dir := t.TempDir()
	return &fakeHost{dir: dir, speed: filepath.Join(dir, "speed"), slow: filepath.Join(dir, "slow"),
		store: "sqlite:" + filepath.Join(dir, "lts.db")}
}

// fakeRate is the stand-in PI's awk program, run as [awk, -f, fakeRate,
// speed file, slow file, noise]: one process a run, where its shell
// wrapper fake-rate.sh costs two.
func fakeRate(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs("../../testdata/pi/fake-rate.awk")
	if err != nil {
		t.Fatal(err)
	}
	return script
}

func (h *fakeHost) write(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.WriteFile(path, fmt.Appendf(nil, "%v\n", v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setSpeed sets the speed of the code under test (1 is the usual).
func (h *fakeHost) setSpeed(t *testing.T, s float64) { h.write(t, h.speed, s) }

// slowPhase makes the next n runs 30% slower.
func (h *fakeHost) slowPhase(t *testing.T, n int) { h.write(t, h.slow, n) }

// benchmark writes a benchmark file of five runs of the stand-in PI with
// the given run-to-run noise.
func (h *fakeHost) benchmark(t *testing.T, noise float64) string {
	t.Helper()
	script := fakeRate(t)
	path := filepath.Join(h.dir, fmt.Sprintf("benchmark-%g.yaml", noise))
	src := fmt.Sprintf("extra_settings: [device]\nexpe:\n  nightly:\n    pi: exec\n    device: cpu\n    repeat: 5\n    command: [awk, -f, %q, %q, %q, \"%g\"]\n",
		script, h.speed, h.slow, noise)
	h.write(t, path, src)
	return path
}

// night runs the benchmark into a results directory of its own, as a
// build of its own (as a CI run is; the tests run in one git checkout,
// whose commit would otherwise name every night's build), and uploads it
// when asked.
func (h *fakeHost) night(t *testing.T, benchmark, name string, upload bool) string {
	t.Helper()
	results := filepath.Join(h.dir, name)
	if r := h.seshat(t, "run", "-q", "--benchmark", benchmark, "--results-dir", results, "--build-id", "ci-"+name); r.code != 0 {
		t.Fatalf("run %s: exit %d: %s", name, r.code, r.stderr)
	}
	if upload {
		if r := h.seshat(t, "upload", "-q", "--results-dir", results, "--store", h.store); r.code != 0 {
			t.Fatalf("upload %s: exit %d: %s", name, r.code, r.stderr)
		}
	}
	return results
}

// history runs and uploads three nights of the code at its usual speed.
func (h *fakeHost) history(t *testing.T, benchmark string) {
	t.Helper()
	h.setSpeed(t, 1)
	for i := 1; i <= 3; i++ {
		h.night(t, benchmark, fmt.Sprintf("night%d", i), true)
	}
}

// stable is the store of h.history of h.benchmark(t, 0.01), made once for
// the tests that start from it (15 runs of the stand-in PI and 3 uploads
// each, on a busy host the better part of their time), and removed by
// TestMain.
var stable struct {
	once sync.Once
	dir  string
}

// stableHistory gives h a copy of the stable history (runs of five of
// the stand-in PI with 1% noise, whichever benchmark file ran them: the
// command is no label): its own, since an analysis records its verdicts
// in its store. The tests made their own history before.
func (h *fakeHost) stableHistory(t *testing.T) {
	t.Helper()
	stable.once.Do(func() {
		dir, err := os.MkdirTemp("", "seshat-stable-history-")
		if err != nil {
			t.Fatal(err)
		}
		stable.dir = dir
		s := &fakeHost{dir: dir, speed: filepath.Join(dir, "speed"), slow: filepath.Join(dir, "slow"), store: "sqlite:" + filepath.Join(dir, "lts.db")}
		s.history(t, s.benchmark(t, 0.01))
	})
	files, err := filepath.Glob(filepath.Join(stable.dir, "lts.db*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no stable history in %q (%v): the test that made it failed", stable.dir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(h.dir, filepath.Base(f)), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	h.setSpeed(t, 1)
}

// TestRegressionNightlySameStack: a nightly job re-runs one stack (same
// framework version every night) on new code; the newest night is 20%
// slower. The default invocation, with no keys, fails naming the KPIs.
func TestRegressionNightlySameStack(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := h.benchmark(t, 0.01)
	h.stableHistory(t)
	h.setSpeed(t, 0.8)
	cur := h.night(t, bench, "night4", false)
	r := h.seshat(t, "regression", "--results-dir", cur, "--history", h.store, "--report-dir", filepath.Join(h.dir, "report"))
	if r.code != 2 || !strings.Contains(r.stderr, "rate_gflops regression") || !strings.Contains(r.stderr, "elapsed_ms regression") {
		t.Fatalf("exit %d, want 2 naming rate_gflops and elapsed_ms:\n%s%s", r.code, r.stdout, r.stderr)
	}
	s := summary(t, filepath.Join(h.dir, "report"))
	// rate_gflops and elapsed_ms; a usage KPI of the test binary may change
	// between builds too.
	if s["regressions"].(float64) < 2 || s["failed"] != true {
		t.Errorf("summary: %v", s)
	}
}

// TestRegressionNoisyHostIdenticalCode: the same code every night on a
// host whose runs spread 30%: nothing is found, and the report says the
// series is too noisy to judge instead of a silent ok.
func TestRegressionNoisyHostIdenticalCode(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := h.benchmark(t, 0.3)
	h.history(t, bench)
	// Three nights: their build medians can agree within 1-2% by chance
	// (about one job in thirty); the runs' own spread still says noisy.
	cur := h.night(t, bench, "night4", false)
	// The usage KPIs are the host's, not the stand-in PI's: left out.
	r := h.seshat(t, "regression", "--results-dir", cur, "--history", h.store, "--report-dir", filepath.Join(h.dir, "report"),
		"--kpi-filter", "rate_gflops")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The noise is drawn afresh each run: now and then (about one job in
	// fifty) the five current runs land far enough from three builds of
	// history to make a suspect, which does not fail either and says why.
	rows := kpiRows(r.stdout, "rate_gflops")
	text := unwrapped(r.stdout)
	if len(rows) == 0 || !strings.Contains(text, "too noisy to judge") && !strings.Contains(text, "needed to confirm a change") {
		t.Errorf("rate_gflops has no result, or no reason to be noisy or a suspect:\n%s", r.stdout)
	}
	for _, row := range rows {
		if !strings.Contains(row, " noisy ") && !strings.Contains(row, " suspect ") {
			t.Errorf("rate_gflops is neither noisy nor a suspect: %s", row)
		}
	}
	if s := summary(t, filepath.Join(h.dir, "report")); s["noisy"].(float64)+s["suspects"].(float64) != 1 || s["failed"] != false {
		t.Errorf("summary: %v", s)
	}
}

// TestRegressionConfirm: --confirm re-runs the points of the failing
// findings before failing: a one-off slow phase of the host during the
// current build's runs is cleared by the runs made after it, a real drop
// of the code is confirmed by them.
func TestRegressionConfirm(t *testing.T) {
	t.Parallel()
	h := newFakeHost(t)
	bench := h.benchmark(t, 0.01)
	h.stableHistory(t)
	// The stand-in PI's speed is what the test controls: the usage KPIs
	// (cpu_seconds, max_rss_bytes, of the test binary as the PI) are left
	// out, their changes between builds being real but not the test's.
	confirm := func(results, report string) result {
		return h.seshat(t, "regression", "--results-dir", results, "--history", h.store,
			"--report-dir", filepath.Join(h.dir, report), "--confirm", "2", "--benchmark", bench, "--kpi-filter", "rate_gflops")
	}

	// The host is slow for exactly the five runs of the fourth night.
	h.slowPhase(t, 5)
	slow := h.night(t, bench, "night4", false)
	if r := h.seshat(t, "regression", "--results-dir", slow, "--history", h.store, "--report-dir", filepath.Join(h.dir, "r0"),
		"--kpi-filter", "rate_gflops"); r.code != 2 {
		t.Fatalf("without --confirm: exit %d, want 2 (the slow phase looks like a drop):\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := confirm(slow, "r1")
	if r.code != 0 || !strings.Contains(r.stderr, "0 finding(s) confirmed, 1 cleared by 10 more run(s)") {
		t.Fatalf("slow phase: exit %d, want 0 with the finding cleared:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(unwrapped(r.stdout), "cleared by re-running: regression") {
		t.Errorf("the table does not say what was cleared:\n%s", r.stdout)
	}
	if got := len(runDirsOf(t, slow)); got != 15 {
		t.Errorf("%d run directories after --confirm 2, want 5 + 10", got)
	}
	conf := summary(t, filepath.Join(h.dir, "r1"))["confirm"].(map[string]any)
	if len(conf["cleared"].([]any)) != 1 || len(conf["confirmed"].([]any)) != 0 || conf["runs"].(float64) != 10 {
		t.Errorf("summary confirm: %v", conf)
	}

	// The code of the fifth night is 20% slower: every run says so.
	h.setSpeed(t, 0.8)
	drop := h.night(t, bench, "night5", false)
	r = confirm(drop, "r2")
	if r.code != 2 || !strings.Contains(r.stderr, "1 finding(s) confirmed, 0 cleared") || !strings.Contains(r.stderr, "rate_gflops regression") {
		t.Fatalf("real drop: exit %d, want 2 with the finding confirmed:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(unwrapped(r.stdout), "confirmed by re-running") {
		t.Errorf("the table does not say what was confirmed:\n%s", r.stdout)
	}
}

// seshat runs seshat on a recorded host (runner/host's vm-cgroupv1 tree:
// load 0.31, no pressure stall information) in place of this machine's
// /proc: every run the fake host makes records the same load, so that
// history mode's host check never takes this machine's own swings between
// a test's history and its current runs for a busier host. The stand-in
// PI, slowed by a sleep, loses CPU share as code that waits does, and with
// the package's other tests running, the load or the CPU pressure rose
// between the two often enough to make its regressions noisy.
func (h *fakeHost) seshat(t *testing.T, args ...string) result {
	t.Helper()
	return runSeshatOn(t, hostFixture("vm-cgroupv1"), args...)
}
