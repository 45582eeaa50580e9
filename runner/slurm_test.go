package runner

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/internal/slurmtest"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/workloads"
)

// One real single-node Slurm cluster per test binary, started by the first
// test that needs it and stopped by TestMain. The Slurm tests are not
// parallel: they run before the parallel tests, whose short timeouts
// (TestRunTimeout) must not compete with the cluster's processes.
var slurm = &slurmtest.Shared{Options: slurmtest.Options{CPUs: 8}}

func slurmFor(t testing.TB) *slurmtest.Cluster { return slurm.Get(t) }

func stopSlurm() { slurm.Stop() }

// testRunPoint is `seshat run-point` for the helper workload: what each
// array task runs on the node.
func testRunPoint(args []string) int {
	fs := flag.NewFlagSet("run-point", flag.ContinueOnError)
	var o PointOptions
	si := models.SchedulerInfo{}
	fs.StringVar(&o.Dir, "dir", "", "")
	fs.DurationVar(&o.Timeout, "timeout", 0, "")
	fs.StringVar(&si.Executor, "executor", "", "")
	fs.StringVar(&si.Invocation, "invocation", "", "")
	fs.StringVar(&si.JobID, "job-id", "", "")
	fs.StringVar(&si.Node, "node", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, _ := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	o.Self, o.Env, o.Scheduler = os.Args[0], os.Environ(), &si
	o.Lookup = func(string) (workloads.Runner, error) { return helperWorkload{}, nil }
	o.HWInfo = models.HWInfo{Hostname: si.Node, Versions: map[string]string{"seshat": "test"}}
	out, err := RunPoint(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return out.ExitCode
}

func slurmOpts(t *testing.T, c *slurmtest.Cluster, src string) (Options, *Slurm) {
	t.Helper()
	opts := runOpts(t, t.TempDir(), src)
	s := &Slurm{Env: c.Env(), PollInterval: 200 * time.Millisecond, GracePeriod: time.Second, CancelWait: 30 * time.Second}
	opts.Executor = s
	return opts, s
}

// runDir is the path of run n of an experiment.
func runDir(t *testing.T, results, expe string, n int) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(results, expe, RunDirName(n, "*")))
	if len(m) != 1 {
		t.Fatalf("run %d of %s: %v", n, expe, m)
	}
	return m[0]
}

func readScheduler(t *testing.T, dir string) models.SchedulerInfo {
	t.Helper()
	var si models.SchedulerInfo
	decodeStrict(t, filepath.Join(dir, SchedulerFile), &si)
	return si
}

func TestSlurmRunsTheMatrix(t *testing.T) {
	c := slurmFor(t)
	opts, _ := slurmOpts(t, c, "common_settings:\n  matrix_size: 512\nexpe:\n  e:\n    helper: [exit 0, exit 3, sleep]\n")
	opts.Timeout = 2 * time.Second
	build := &models.Build{ID: "gitlab-777", Commit: "fedcba98", CI: &models.CI{Engine: "gitlab", RunID: "777"}}
	opts.Build = build
	var log bytes.Buffer
	opts.Progress = &LogProgress{W: &log, ResultsDir: opts.ResultsDir, Timeout: opts.Timeout}
	s, err := Run(context.Background(), opts)
	if exitcode.Of(err) != exitcode.Failure || s.Succeeded != 1 || s.Failed != 2 || s.NotRun != 0 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	e := filepath.Join(opts.ResultsDir, "e")
	want := map[string]string{"000__helper=exit-0": "0\n", "001__helper=exit-3": "3\n", "002__helper=sleep": "124\n"}
	for name, code := range want {
		dir := filepath.Join(e, name)
		if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != code {
			t.Errorf("%s: exit_code %q, want %q", name, got, code)
		}
		// Written on the node by run-point, as the local executor writes them.
		var hw models.HWInfo
		decodeStrict(t, filepath.Join(dir, HWInfoFile), &hw)
		if hw.Hostname != host || hw.Versions["helper"] != "1.0" {
			t.Errorf("%s: hwinfo %+v", name, hw)
		}
		var u models.Usage
		decodeStrict(t, filepath.Join(dir, UsageFile), &u)
		if !u.End.After(u.Start) {
			t.Errorf("%s: usage %+v", name, u)
		}
		si := readScheduler(t, dir)
		if si.Executor != "slurm" || !isArrayTaskID(si.JobID) || si.Node != host || si.State != "" {
			t.Errorf("%s: scheduler.json %+v", name, si)
		}
		// Written before submission, as given.
		var b models.Build
		decodeStrict(t, filepath.Join(dir, BuildFile), &b)
		if !reflect.DeepEqual(&b, build) {
			t.Errorf("%s: build.json %+v, want %+v", name, b, *build)
		}
	}
	if got := readFile(t, filepath.Join(e, "000__helper=exit-0", StdoutFile)); !strings.Contains(got, "SESHAT_MATRIX_SIZE=512") {
		t.Errorf("the PI's environment lacks its settings:\n%s", got)
	}
	if got := readFile(t, filepath.Join(e, "002__helper=sleep", StderrFile)); !strings.Contains(got, "killed the run's processes after the 2s timeout") {
		t.Errorf("stderr.log of the timed-out run: %q", got)
	}
	var sum bytes.Buffer
	s.Write(&sum, opts.ResultsDir)
	for _, line := range []string{"3 runs: 1 succeeded, 2 failed", "failed: e/001__helper=exit-3: exit code 3", "failed: e/002__helper=sleep: timed out after 2s"} {
		if !strings.Contains(sum.String(), line) {
			t.Errorf("summary lacks %q:\n%s", line, sum.String())
		}
	}
	if !strings.Contains(log.String(), "[2/3] e/001__helper=exit-3: exit code 3") {
		t.Errorf("progress log:\n%s", log.String())
	}
	// The batch script is kept beside the results, out of the parser's way.
	if scripts, _ := filepath.Glob(filepath.Join(opts.ResultsDir, ".seshat", "slurm", "*.sh")); len(scripts) != 1 {
		t.Errorf("scripts %v", scripts)
	}
}

func TestSlurmSchedulerEndsARun(t *testing.T) {
	c := slurmFor(t)
	marker := filepath.Join(t.TempDir(), "started")
	opts, _ := slurmOpts(t, c, "expe:\n  e:\n    helper: [exit 0, once "+marker+"]\n")
	go func() {
		// An operator (or Slurm itself) cancels the task while it runs.
		waitFile(t, marker)
		si := readScheduler(t, runDir(t, opts.ResultsDir, "e", 1))
		if out, err := c.Command("scancel", si.JobID).CombinedOutput(); err != nil {
			t.Errorf("scancel: %v %s", err, out)
		}
	}()
	s, err := Run(context.Background(), opts)
	if err == nil || s.Succeeded != 1 || s.Failed != 1 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	dir := runDir(t, opts.ResultsDir, "e", 1)
	if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != "143\n" {
		t.Errorf("exit_code %q", got)
	}
	si := readScheduler(t, dir)
	if si.State != "CANCELLED" || si.Node == "" || si.Log == "" {
		t.Errorf("scheduler.json %+v", si)
	}
	if got := readFile(t, filepath.Join(dir, StderrFile)); !strings.Contains(got, "slurm ended the run: CANCELLED") {
		t.Errorf("stderr.log %q", got)
	}
	if !strings.Contains(s.Failures[0].Reason, "slurm ended the run: CANCELLED, job "+si.JobID) {
		t.Errorf("failure %+v", s.Failures)
	}
}

func TestSlurmLostRun(t *testing.T) {
	c := slurmFor(t)
	opts, s := slurmOpts(t, c, "expe:\n  e: {helper: exit 0}\n")
	s.Seshat = "/bin/false" // the task ends without running the point
	sum, err := Run(context.Background(), opts)
	if err == nil || sum.Failed != 1 {
		t.Fatalf("summary %+v, error %v", sum, err)
	}
	dir := filepath.Join(opts.ResultsDir, "e", "000__run")
	if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != "1\n" {
		t.Errorf("exit_code %q", got)
	}
	if si := readScheduler(t, dir); si.State != "FAILED" || !strings.Contains(si.Reason, "without writing exit_code") {
		t.Errorf("scheduler.json %+v", si)
	}
}

func TestSlurmInterruptThenResume(t *testing.T) {
	c := slurmFor(t)
	marker := filepath.Join(t.TempDir(), "started")
	opts, s := slurmOpts(t, c, "expe:\n  e:\n    helper: [exit 0, once "+marker+"]\n")
	s.MaxParallel = 1 // in order: the first run completes before the second starts
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFile(t, marker)
		cancel() // SIGINT
	}()
	sum, err := Run(ctx, opts)
	if !sum.Interrupted || err == nil || sum.Succeeded != 1 || sum.NotRun != 1 {
		t.Fatalf("summary %+v, error %v", sum, err)
	}
	dir := runDir(t, opts.ResultsDir, "e", 1)
	if _, err := os.Stat(filepath.Join(dir, ExitCodeFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run must have no exit_code: %v", err)
	}
	// Nothing of ours is left with Slurm.
	si := readScheduler(t, dir)
	job, _, _ := strings.Cut(si.JobID, "_")
	out, err := c.Command("squeue", "--noheader", "--array", "--jobs="+job, "--format=%i %T").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("squeue after the interruption: %v %s", err, out)
	}

	opts.Resume = true
	sum, err = Run(context.Background(), opts)
	if err != nil || sum.Skipped != 1 || sum.Succeeded != 1 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	if got := readFile(t, filepath.Join(dir, ExitCodeFile)); got != "0\n" {
		t.Errorf("exit_code of the resumed run %q", got)
	}
}

func TestSlurmStopOnError(t *testing.T) {
	c := slurmFor(t)
	opts, s := slurmOpts(t, c, "expe:\n  e:\n    helper: [exit 2, sleep, sleep 2]\n")
	s.MaxParallel = 1
	opts.StopOnError = true
	sum, err := Run(context.Background(), opts)
	if err == nil || sum.Failed != 1 || sum.Succeeded != 0 || sum.NotRun != 2 || !sum.StoppedOnError {
		t.Errorf("%+v %v", sum, err)
	}
}
