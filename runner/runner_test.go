package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/parsers"
	"github.com/seshat-bench/seshat/runner/host"
	"github.com/seshat-bench/seshat/store"
	"github.com/seshat-bench/seshat/workloads"
)

// helperWorkload runs the test binary as the child; the `helper` setting
// (exported as SESHAT_HELPER) says what it does.
type helperWorkload struct{}

func (helperWorkload) CheckPoint(map[string]any) error { return nil }
func (helperWorkload) Command(req workloads.RunRequest) ([]string, error) {
	if !filepath.IsAbs(req.Dir) {
		return nil, errors.New("the run directory must be absolute: the child runs in it")
	}
	return []string{req.Self}, nil
}
func (helperWorkload) RunVersions(string) map[string]string {
	return map[string]string{"helper": "1.0"}
}

func runOpts(t testing.TB, results, src string) Options {
	t.Helper()
	b, err := ParseBenchmark("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exps, err := b.Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	points, err := Expand(b, exps, "helper", nil)
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		ResultsDir: results,
		Points:     points,
		Self:       os.Args[0],
		Lookup:     func(string) (workloads.Runner, error) { return helperWorkload{}, nil },
		HWInfo:     models.HWInfo{Hostname: "test", Versions: map[string]string{"seshat": "test"}},
		Env:        os.Environ(),
	}
}

// runDirs lists the run directories of an experiment, sorted.
func runDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// decodeStrict decodes a JSON artifact refusing fields the model lacks, so
// the files stay exactly what models/artifacts.go (and the parser) expect.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(readFile(t, path)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestRunWritesTheArtifactContract(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	opts := runOpts(t, results, "common_settings:\n  matrix_size: 512\nexpe:\n  e:\n    helper: [exit 0, exit 3]\n    repeat: 2\n")
	var log bytes.Buffer
	opts.Progress = &LogProgress{W: &log, ResultsDir: results}
	s, err := Run(context.Background(), opts)
	if exitcode.Of(err) != exitcode.Failure || err.Error() != "2 of 4 runs failed" {
		t.Fatalf("error %v", err)
	}
	if s.Total != 4 || s.Succeeded != 2 || s.Failed != 2 || len(s.Failures) != 2 {
		t.Errorf("summary %+v", s)
	}
	want := []string{"000__helper=exit-0_repeat=0", "001__helper=exit-3_repeat=0", "002__helper=exit-3_repeat=1", "003__helper=exit-0_repeat=1"} // round 1 in reverse order
	if got := runDirs(t, filepath.Join(results, "e")); !reflect.DeepEqual(got, want) {
		t.Fatalf("run directories %v, want %v", got, want)
	}
	dir := filepath.Join(results, "e", want[3])
	files := runDirs(t, dir)
	wantFiles := []string{UUIDFile, BuildFile, ConfigFile, ExitCodeFile, HWInfoFile, SettingsFile, StderrFile, StdoutFile, UsageFile}
	sort.Strings(wantFiles)
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %v, want %v", files, wantFiles)
	}
	if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != "0\n" {
		t.Errorf("exit_code %q", got)
	}
	if got := readFile(t, filepath.Join(results, "e", want[2], ExitCodeFile)); got != "3\n" {
		t.Errorf("exit_code of the failed run %q", got)
	}
	settingsText := readFile(t, filepath.Join(dir, SettingsFile))
	settings, err := parsers.Settings(SettingsFile, []byte(settingsText))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(settingsText, `"@repeat": 1`) && !strings.Contains(settingsText, `'@repeat': 1`) {
		t.Errorf("@repeat must be quoted in YAML:\n%s", settingsText)
	}
	if want := (map[string]any{"workload": "helper", "matrix_size": 512, "helper": "exit 0", "@repeat": 1}); !reflect.DeepEqual(settings, want) {
		t.Errorf("settings.yaml %v, want %v", settings, want)
	}
	if id, err := uuid.Parse(strings.TrimSpace(readFile(t, filepath.Join(dir, UUIDFile)))); err != nil || id.Version() != 4 {
		t.Errorf(".uuid: %v %v", id, err)
	}
	stdout := readFile(t, filepath.Join(dir, StdoutFile))
	for _, env := range []string{"SESHAT_MATRIX_SIZE=512", "SESHAT__REPEAT=1", "SESHAT_WORKLOAD=helper"} {
		if !strings.Contains(stdout, env) {
			t.Errorf("the child's environment lacks %s:\n%s", env, stdout)
		}
	}
	if got := readFile(t, filepath.Join(dir, StderrFile)); got != "helper stderr\n" {
		t.Errorf("stderr.log %q", got)
	}
	// Without a build, the invocation is one: every run of it says so.
	var build models.Build
	decodeStrict(t, filepath.Join(dir, BuildFile), &build)
	if _, err := uuid.Parse(strings.TrimPrefix(build.ID, "run-")); err != nil || !strings.HasPrefix(build.ID, "run-") || build.Time.IsZero() {
		t.Errorf("build.json %+v: want run-<invocation uuid> and a time", build)
	}
	for _, d := range want {
		var other models.Build
		decodeStrict(t, filepath.Join(results, "e", d, BuildFile), &other)
		if other.ID != build.ID {
			t.Errorf("%s: build %q, want the invocation's %q", d, other.ID, build.ID)
		}
	}
	var hw models.HWInfo
	decodeStrict(t, filepath.Join(dir, HWInfoFile), &hw)
	if hw.Hostname != "test" || hw.Versions["helper"] != "1.0" || hw.Versions["seshat"] != "test" {
		t.Errorf("hwinfo %+v", hw)
	}
	var u models.Usage
	decodeStrict(t, filepath.Join(dir, UsageFile), &u)
	if !u.End.After(u.Start) || u.WallSeconds <= 0 || u.Rusage.MaxRSSBytes < 1<<20 || u.Start.Location() != time.UTC {
		t.Errorf("usage %+v", u)
	}
	// This machine's load around the run (Linux always tells it).
	if _, err := os.Stat("/proc/loadavg"); err == nil && (u.HostStart == nil || len(u.HostStart.LoadAvg) != 3 || u.HostEnd == nil || len(u.HostEnd.LoadAvg) != 3) {
		t.Errorf("usage.json lacks the host's load: start %+v, end %+v", u.HostStart, u.HostEnd)
	}
	// And its CPU pressure, where the kernel counts it.
	if _, err := os.Stat("/proc/pressure/cpu"); err == nil {
		if p, ok := u.CPUPressure(); !ok || p < 0 || p > 1 {
			t.Errorf("CPU pressure %v, %v from host_start %+v, host_end %+v", p, ok, u.HostStart, u.HostEnd)
		}
	}
	if !strings.Contains(log.String(), "[3/4] e/002__helper=exit-3_repeat=1: exit code 3") {
		t.Errorf("progress log:\n%s", log.String())
	}
	var sum bytes.Buffer
	s.Write(&sum, results)
	for _, line := range []string{"4 runs: 2 succeeded, 2 failed", "failed: e/001__helper=exit-3_repeat=0: exit code 3"} {
		if !strings.Contains(sum.String(), line) {
			t.Errorf("summary lacks %q:\n%s", line, sum.String())
		}
	}
	// The directories are test roots the store discovers with these settings.
	roots, warns, err := store.Discover(results)
	if err != nil || len(warns) > 0 || len(roots) != 4 {
		t.Fatalf("discover: %d roots, %v, %v", len(roots), warns, err)
	}
}

// TestRunRecordsTheHost: usage.json holds the host's load and governors
// read just before and just after the run.
func TestRunRecordsTheHost(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	opts := runOpts(t, results, "expe:\n  e:\n    helper: exit 0\n")
	opts.Host = host.Host{Root: filepath.Join("host", "testdata", "hosts", "noisy-laptop")}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var u models.Usage
	decodeStrict(t, filepath.Join(results, "e", "000__run", UsageFile), &u)
	want := &models.HostState{LoadAvg: []float64{5.12, 3.40, 2.01}, Governor: "powersave (0-5), performance (6-7)", CPUStallUS: new(int64(8123456789))}
	if !reflect.DeepEqual(u.HostStart, want) || !reflect.DeepEqual(u.HostEnd, want) {
		t.Errorf("host_start %+v, host_end %+v; want %+v", u.HostStart, u.HostEnd, want)
	}
	// A host that tells nothing: no record, the run as good.
	results = t.TempDir()
	opts = runOpts(t, results, "expe:\n  e:\n    helper: exit 0\n")
	opts.Host = host.Host{Root: t.TempDir()}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	u = models.Usage{}
	decodeStrict(t, filepath.Join(results, "e", "000__run", UsageFile), &u)
	if u.HostStart != nil || u.HostEnd != nil || u.WallSeconds <= 0 {
		t.Errorf("usage %+v", u)
	}
}

// TestRunRecordsTheGPUs: a run on the GPU (its workload says it needs one,
// as the pi PIs do on device: gpu) records the GPUs' utilization, clock,
// temperature and power around it, from nvidia-smi (its answers recorded on
// an H200 under a matmul loop); a CPU run does not ask.
func TestRunRecordsTheGPUs(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "host")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("host", "testdata", "hosts", "quiet-bare-metal"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "nvidia-smi"), os.DirFS(filepath.Join("host", "testdata", "nvidia-smi", "h200-busy"))); err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	want := []models.GPUState{{Index: 0, UtilizationPercent: f(100), SMClockMHz: f(1650), TemperatureC: f(58), PowerW: f(479.18)}}
	for _, device := range []string{"gpu", "cpu"} {
		results := t.TempDir()
		gpus := map[string]string{"gpu": "1", "cpu": "0"}[device]
		opts := runOpts(t, results, "expe:\n  e:\n    helper: exit 0\n    gpus: "+gpus+"\n")
		opts.Host = host.Host{Root: root}
		opts.Lookup = func(string) (workloads.Runner, error) { return gpuWorkload{}, nil }
		if _, err := Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		var u models.Usage
		decodeStrict(t, filepath.Join(results, "e", "000__run", UsageFile), &u)
		if u.HostStart == nil || u.HostEnd == nil {
			t.Fatalf("device %s: usage %+v", device, u)
		}
		var wantGPUs []models.GPUState
		if device == "gpu" {
			wantGPUs = want
		}
		if !reflect.DeepEqual(u.HostStart.GPUs, wantGPUs) || !reflect.DeepEqual(u.HostEnd.GPUs, wantGPUs) {
			t.Errorf("device %s: GPUs at start %+v, at end %+v; want %+v", device, u.HostStart.GPUs, u.HostEnd.GPUs, wantGPUs)
		}
	}
}

func TestRunNumberingContinues(t *testing.T) {
	t.Parallel()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	results, err := filepath.Rel(cwd, t.TempDir()) // a relative --results-dir
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(results, "e", "007__old"), 0o755)
	os.MkdirAll(filepath.Join(results, "e", "notes"), 0o755)
	opts := runOpts(t, results, "expe:\n  e: {helper: exit 0}\n")
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := []string{"007__old", "008__run", "009__run", "notes"}
	if got := runDirs(t, filepath.Join(results, "e")); !reflect.DeepEqual(got, want) {
		t.Errorf("directories %v, want %v", got, want)
	}
}

func TestRunResume(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	opts := runOpts(t, results, "expe:\n  e:\n    helper: [exit 0, exit 5]\n    repeat: 2\n")
	if _, err := Run(context.Background(), opts); err == nil {
		t.Fatal("want failures")
	}
	opts.Resume = true
	s, err := Run(context.Background(), opts)
	if err == nil || s.Skipped != 2 || s.Failed != 2 || s.Succeeded != 0 {
		t.Fatalf("resume: %+v %v", s, err)
	}
	// Failed runs stay as data; their points ran again in new directories.
	want := []string{"000__helper=exit-0_repeat=0", "001__helper=exit-5_repeat=0", "002__helper=exit-5_repeat=1", "003__helper=exit-0_repeat=1",
		"004__helper=exit-5_repeat=0", "005__helper=exit-5_repeat=1"}
	if got := runDirs(t, filepath.Join(results, "e")); !reflect.DeepEqual(got, want) {
		t.Errorf("directories %v, want %v", got, want)
	}
	// A changed setting is a different point: it runs.
	opts2 := runOpts(t, results, "expe:\n  e:\n    helper: [exit 0]\n    repeat: 2\n    extra: 1\n")
	opts2.Resume = true
	if s, _ := Run(context.Background(), opts2); s.Skipped != 0 || s.Succeeded != 2 {
		t.Errorf("changed settings: %+v", s)
	}
}

func TestRunInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	opts := runOpts(t, results, "expe:\n  e:\n    helper: [exit 0, once "+marker+", exit 1]\n")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFile(t, marker)
		cancel() // SIGINT
	}()
	s, err := Run(ctx, opts)
	if !s.Interrupted || err == nil || exitcode.Of(err) != exitcode.Failure || s.Succeeded != 1 || s.NotRun != 2 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	dirs := runDirs(t, filepath.Join(results, "e"))
	if len(dirs) != 2 {
		t.Fatalf("directories %v", dirs)
	}
	interrupted := filepath.Join(results, "e", dirs[1])
	if _, err := os.Stat(filepath.Join(interrupted, ExitCodeFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run must have no exit_code: %v", err)
	}
	var sum bytes.Buffer
	s.Write(&sum, results)
	if !strings.Contains(sum.String(), "interrupted") {
		t.Errorf("summary:\n%s", sum.String())
	}

	opts.Resume = true
	s, err = Run(context.Background(), opts)
	if s.Skipped != 1 || s.Succeeded != 1 || s.Failed != 1 || err == nil {
		t.Fatalf("resume: %+v %v", s, err)
	}
	// The interrupted run's directory was reused, not left incomplete.
	if got := runDirs(t, filepath.Join(results, "e")); len(got) != 3 || got[1] != dirs[1] {
		t.Errorf("directories %v", got)
	}
	if got := readFile(t, filepath.Join(interrupted, ExitCodeFile)); got != "0\n" {
		t.Errorf("exit_code of the resumed run %q", got)
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	opts := runOpts(t, results, "expe:\n  e:\n    helper: [sleep, exit 0]\n")
	opts.Timeout = 2 * time.Second // ample for "exit 0" on a loaded machine
	s, err := Run(context.Background(), opts)
	if err == nil || s.Failed != 1 || s.Succeeded != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	dir := filepath.Join(results, "e", "000__helper=sleep")
	if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != "124\n" {
		t.Errorf("exit_code %q", got)
	}
	if got := readFile(t, filepath.Join(dir, StderrFile)); !strings.Contains(got, "killed the run's processes after the 2s timeout") {
		t.Errorf("stderr.log %q", got)
	}
	if !strings.Contains(s.Failures[0].Reason, "timed out after 2s") {
		t.Errorf("failure %+v", s.Failures[0])
	}
}

func TestRunStopOnError(t *testing.T) {
	t.Parallel()
	opts := runOpts(t, t.TempDir(), "expe:\n  e:\n    helper: [exit 2, exit 0, exit 00]\n")
	opts.StopOnError = true
	s, err := Run(context.Background(), opts)
	if err == nil || s.Failed != 1 || s.Succeeded != 0 || s.NotRun != 2 || !s.StoppedOnError {
		t.Errorf("%+v %v", s, err)
	}
}

func TestPlanDoesNotWrite(t *testing.T) {
	t.Parallel()
	results := filepath.Join(t.TempDir(), "results")
	opts := runOpts(t, results, "expe:\n  a: {helper: [x, y]}\n  b: {helper: z}\n")
	plan, err := Plan(opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		rel, _ := filepath.Rel(results, p.Dir)
		got = append(got, rel)
	}
	if want := []string{"a/000__helper=x", "a/001__helper=y", "b/000__run"}; !reflect.DeepEqual(got, want) {
		t.Errorf("plan %v, want %v", got, want)
	}
	if _, err := os.Stat(results); !errors.Is(err, os.ErrNotExist) {
		t.Error("Plan created the results directory")
	}
}

func TestBarProgress(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	opts := runOpts(t, t.TempDir(), "expe:\n  e: {helper: [exit 0, exit 1]}\n")
	opts.Progress = &BarProgress{W: &buf, ResultsDir: opts.ResultsDir}
	Run(context.Background(), opts)
	if !strings.Contains(buf.String(), "2/2") {
		t.Errorf("progress bar output %q", buf.String())
	}
}
