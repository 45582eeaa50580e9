package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/seshat-bench/seshat/internal/atomicfile"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner/host"
	"github.com/seshat-bench/seshat/workloads/runnable"
)

// Options configure Run.
type Options struct {
	ResultsDir string
	Points     []Point
	// Resume skips points already complete with exit code 0 and the same
	// settings, and reuses the directories of interrupted runs.
	Resume bool
	// Timeout per run (0: none).
	Timeout time.Duration
	// StopOnError stops after the first failed run.
	StopOnError bool
	// Self is the seshat executable; Python the --python interpreter.
	Self, Python string
	// Lookup finds the workload that runs a point.
	Lookup func(name string) (runnable.Runner, error)
	// HWInfo describes the machine (collected once per invocation).
	HWInfo models.HWInfo
	// Env is the base environment of every child (os.Environ()).
	Env []string
	// Progress is told about each run (nil: nothing).
	Progress Progress
	// Executor runs the points (nil: Local, a child process each).
	Executor Executor
	// Build is what is under test, written as build.json in every run
	// directory (DetectBuild; nil: Run gives the invocation an id of its
	// own, InvocationBuild).
	Build *models.Build
	// Host is where the load and governors recorded around each run are
	// read (the zero value: this machine).
	Host host.Host
	// CPUs, when set, pins every run's child to these CPUs (--cpus; the
	// local executor's runs).
	CPUs []int
	// Lock is the results directory's lock, when the caller holds it for
	// longer than Run (regression --confirm, across its rounds); nil: Run
	// takes it for its own duration (LockResults).
	Lock *ResultsLock
}

// Planned is a point with its fate: the directory it will run in, or why
// it is skipped.
type Planned struct {
	Point
	// Dir is the run directory (predicted: a concurrent runner may take the
	// number first, then the next free one is used).
	Dir string
	// Skip is true for a point already complete with exit code 0.
	Skip bool
	// Reuse is true when Dir is an interrupted run's directory, cleared
	// and run again.
	Reuse bool
}

// Plan decides where each point runs, without writing anything: what
// --dry-run prints and what Run executes.
func Plan(opts Options) ([]Planned, error) {
	type expeState struct {
		next       int
		done       map[string]int      // identity -> complete runs with exit 0
		incomplete map[string][]string // identity -> dirs without exit_code
	}
	states := map[string]*expeState{}
	out := make([]Planned, 0, len(opts.Points))
	for _, p := range opts.Points {
		dir := filepath.Join(opts.ResultsDir, p.Experiment)
		st := states[p.Experiment]
		if st == nil {
			high, err := highestNumber(dir)
			if err != nil {
				return nil, fmt.Errorf("results directory: %w", err)
			}
			st = &expeState{next: high + 1, done: map[string]int{}, incomplete: map[string][]string{}}
			if opts.Resume {
				for _, r := range scanPastRuns(dir) {
					switch {
					case r.complete && r.exitCode == 0:
						st.done[r.identity]++
					case !r.complete:
						st.incomplete[r.identity] = append(st.incomplete[r.identity], r.path)
					}
				}
			}
			states[p.Experiment] = st
		}
		pl := Planned{Point: p}
		id := models.Settings(p.Settings).Identity()
		switch {
		case st.done[id] > 0:
			st.done[id]--
			pl.Skip = true
		case len(st.incomplete[id]) > 0:
			pl.Dir, pl.Reuse = st.incomplete[id][0], true
			st.incomplete[id] = st.incomplete[id][1:]
		default:
			pl.Dir = filepath.Join(dir, RunDirName(st.next, p.Slug()))
			st.next++
		}
		out = append(out, pl)
	}
	return out, nil
}

// Summary is what a Run did.
type Summary struct {
	Total, Succeeded, Failed, Skipped, NotRun int
	Interrupted                               bool
	StoppedOnError                            bool
	Failures                                  []Failure
	Elapsed                                   time.Duration
}

// Failure is one failed run.
type Failure struct {
	Dir    string
	Reason string
}

// Write prints the summary for a person: WriteCounts, then WriteProblems.
func (s Summary) Write(w io.Writer, resultsDir string) {
	s.WriteCounts(w)
	s.WriteProblems(w, resultsDir)
}

// WriteCounts prints how many runs succeeded, failed and were skipped.
func (s Summary) WriteCounts(w io.Writer) {
	fmt.Fprintf(w, "seshat run: %d runs: %d succeeded, %d failed, %d skipped (already complete)", s.Total, s.Succeeded, s.Failed, s.Skipped)
	if s.NotRun > 0 {
		fmt.Fprintf(w, ", %d not run", s.NotRun)
	}
	fmt.Fprintf(w, " in %s\n", s.Elapsed.Round(time.Millisecond))
}

// WriteProblems names each failed run and says why the matrix stopped
// early, if it did: what -q still shows.
func (s Summary) WriteProblems(w io.Writer, resultsDir string) {
	for _, f := range s.Failures {
		fmt.Fprintf(w, "seshat run: failed: %s: %s\n", relTo(resultsDir, f.Dir), f.Reason)
	}
	switch {
	case s.Interrupted:
		fmt.Fprintln(w, "seshat run: interrupted: the run in progress was killed and left without exit_code; --resume continues")
	case s.StoppedOnError:
		fmt.Fprintln(w, "seshat run: stopped after the first failure (--stop-on-error)")
	}
}

// Run executes the plan with opts.Executor (Local when nil), holding the
// results directory's lock (opts.Lock, else its own: one writer per
// results directory, so that no two plan the same run directories). It
// returns nil when every run succeeded, an error (exit status 1) when some
// failed, the context was cancelled or another process holds the lock;
// the summary is complete either way.
func Run(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	if opts.Lock == nil {
		if err := os.MkdirAll(opts.ResultsDir, 0o755); err != nil {
			return Summary{}, fmt.Errorf("results directory: %w", err)
		}
		lock, err := LockResults(opts.ResultsDir)
		if err != nil {
			return Summary{}, err
		}
		defer lock.Unlock()
	}
	plan, err := Plan(opts)
	if err != nil {
		return Summary{}, err
	}
	prog := opts.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	if pa, ok := prog.(PlanAware); ok {
		pa.SetPlan(plan)
	}
	if opts.Build == nil {
		b := InvocationBuild("", start)
		opts.Build = &b
	}
	t := &Tracker{opts: opts, prog: prog, s: Summary{Total: len(plan)}}
	prog.Start(len(plan))
	defer prog.Finish()
	ex := opts.Executor
	if ex == nil {
		ex = Local{}
	}
	err = ex.Execute(ctx, opts, plan, t)
	s := t.s
	s.NotRun = s.Total - s.Succeeded - s.Failed - s.Skipped
	s.Elapsed = time.Since(start)
	switch {
	case err != nil:
		return s, err
	case s.Interrupted:
		return s, exitcode.Errorf(exitcode.Failure, "interrupted")
	case s.Failed > 0:
		return s, exitcode.Errorf(exitcode.Failure, "%d of %d runs failed", s.Failed, s.Total-s.Skipped)
	}
	return s, nil
}

// runOne makes one run directory and runs the point in it. The error is
// the runner's own failure (the run is then left without exit_code), or
// ErrInterrupted.
func runOne(ctx context.Context, opts Options, pl Planned) (string, Outcome, error) {
	w, err := lookupWorkload(opts.Lookup, pl.Settings)
	if err != nil {
		return pl.Dir, Outcome{}, err
	}
	dir, err := PrepareRun(pl, opts.Build)
	if err != nil {
		return dir, Outcome{}, err
	}
	o, err := runIn(ctx, pointEnv{Timeout: opts.Timeout, Self: opts.Self, Python: opts.Python, HWInfo: opts.HWInfo, Env: opts.Env, Host: opts.Host, CPUs: opts.CPUs}, w, dir, pl.Settings)
	return dir, o, err
}

func lookupWorkload(lookup func(string) (runnable.Runner, error), settings map[string]any) (runnable.Runner, error) {
	name, _ := settings["workload"].(string)
	return lookup(name)
}

// PrepareRun creates the run directory of pl (or empties the interrupted
// run's directory it reuses) and writes what is known before the run:
// settings.yaml, .uuid, config.yaml and, when build is not nil, build.json.
// It returns the directory's absolute path: the child runs in it, so every
// path it is given must be absolute.
func PrepareRun(pl Planned, build *models.Build) (string, error) {
	var dir string
	var err error
	if pl.Reuse {
		dir = pl.Dir
		err = clearDir(dir)
	} else {
		var n int
		fmt.Sscanf(filepath.Base(pl.Dir), "%d__", &n)
		dir, _, err = createRunDir(filepath.Dir(pl.Dir), n, pl.Slug())
	}
	if err != nil {
		return pl.Dir, fmt.Errorf("create run directory: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return pl.Dir, err
	}
	return dir, writePrelude(dir, pl.Point, build)
}

// pointEnv is what running one point in its directory needs besides the
// point: the same for every run of an invocation.
type pointEnv struct {
	Timeout      time.Duration
	Self, Python string
	HWInfo       models.HWInfo
	Env          []string
	// Host is where the load and governors around each run are read (the
	// zero value: this machine).
	Host host.Host
	// CPUs pins the child (nil: not pinned).
	CPUs []int
	// TermGrace, on a scheduler's node, is how long to wait for this
	// process's own cancellation after the child died of SIGTERM, SIGINT or
	// SIGHUP: a scheduler cancelling a job signals every process of it at
	// once, and the run is then interrupted, not failed (0: no wait).
	TermGrace time.Duration
}

// runIn runs the point whose settings.yaml is in dir: the child process,
// then hwinfo.json, usage.json and, last and atomically, exit_code.
func runIn(ctx context.Context, pe pointEnv, w runnable.Runner, dir string, settings map[string]any) (Outcome, error) {
	args, err := w.Command(runnable.RunRequest{Dir: dir, Settings: settings, Self: pe.Self, Python: pe.Python})
	if err != nil {
		return Outcome{}, err
	}
	stdout, err := os.Create(filepath.Join(dir, StdoutFile))
	if err != nil {
		return Outcome{}, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, StderrFile))
	if err != nil {
		return Outcome{}, err
	}
	defer stderr.Close()

	env := childEnv(pe.Env, settings)
	if wd, err := os.Getwd(); err == nil {
		env = append(env, runnable.WorkDirEnv+"="+wd)
	}
	gpu := false
	if r, ok := w.(runnable.Resourcer); ok {
		gpu = r.GPUs(settings) > 0
	}
	hostStart := hostState(ctx, pe.Host, gpu)
	ur, _ := w.(runnable.UsageReporter)
	reports := ur != nil && ur.ReportsUsage(settings)
	o := Execute(ctx, Exec{Args: args, Env: env, Dir: dir, Stdout: stdout, Stderr: stderr, Timeout: pe.Timeout, CPUs: pe.CPUs, Report: reports})
	hostEnd := hostState(ctx, pe.Host, gpu)
	if pe.TermGrace > 0 && !o.TimedOut && !o.Interrupted && killedByTerm(o.ExitCode) {
		select {
		case <-ctx.Done():
			o.Interrupted, o.Err = true, ErrInterrupted
		case <-time.After(pe.TermGrace):
		}
	}
	if o.Interrupted {
		return o, ErrInterrupted
	}
	// Say in the run's own log why seshat ended it.
	switch {
	case o.TimedOut:
		fmt.Fprintf(stderr, "\nseshat run: killed the run's processes after the %s timeout\n", pe.Timeout)
	case o.Err != nil:
		fmt.Fprintf(stderr, "\nseshat run: %s: %v\n", strings.Join(args, " "), o.Err)
	}
	if o.Stray > 0 && !o.TimedOut {
		fmt.Fprintf(stderr, "seshat run: killed %d %s the run left running\n", o.Stray, plural(o.Stray, "process", "processes"))
	}
	hw := WithRunVersions(pe.HWInfo, w.RunVersions(dir))
	if err := writeJSON(filepath.Join(dir, HWInfoFile), hw); err != nil {
		return o, err
	}
	usage := usageOf(o)
	if err := applyReport(&usage, o.Report); err != nil {
		fmt.Fprintf(stderr, "seshat run: %v; rusage.maxrss_bytes is the kernel's figure\n", err)
	}
	usage.HostStart, usage.HostEnd = hostStart, hostEnd
	usage.Threads = threadCounts(env)
	if len(pe.CPUs) > 0 {
		usage.CPUs = host.FormatCPUList(pe.CPUs)
	}
	if err := writeJSON(filepath.Join(dir, UsageFile), usage); err != nil {
		return o, err
	}
	// Last: its presence means the run is complete.
	if err := writeExitCode(dir, o.ExitCode); err != nil {
		return o, err
	}
	if o.ExitCode != 0 {
		o.Stderr = StderrReason(dir)
	}
	return o, nil
}

// hostState is the host's load and governors now, and for a run on a
// GPU (its workload says it needs one: runnable.Resourcer) the GPUs' clocks, temperature, power and utilization; nil when it
// tells none (not Linux). What cannot be read is left out: a run is never
// failed for its record of the host.
func hostState(ctx context.Context, h host.Host, gpu bool) *models.HostState {
	s, _ := h.State()
	if gpu {
		s.GPUs = h.GPUStates(ctx)
	}
	if s.Empty() {
		return nil
	}
	return &s
}

// killedByTerm tells whether a child's status is death by SIGTERM, SIGINT
// or SIGHUP (128+N).
func killedByTerm(code int) bool {
	switch code - 128 {
	case int(syscall.SIGTERM), int(syscall.SIGINT), int(syscall.SIGHUP):
		return true
	}
	return false
}

func writeExitCode(dir string, code int) error {
	return atomicfile.WriteFile(filepath.Join(dir, ExitCodeFile), fmt.Appendf(nil, "%d\n", code), 0o644)
}

// writePrelude writes what is known before the run: settings, UUID, the
// benchmark entry and the build (when known). Every executor's run directory
// starts with these (the kubernetes one carries them into the pod).
func writePrelude(dir string, p Point, build *models.Build) error {
	settings, err := yaml.Marshal(p.Settings)
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, SettingsFile), settings, 0o644); err != nil {
		return err
	}
	id, err := uuid.NewRandom()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, UUIDFile), []byte(id.String()+"\n"), 0o644); err != nil {
		return err
	}
	var config bytes.Buffer
	enc := yaml.NewEncoder(&config)
	enc.SetIndent(2)
	if err := enc.Encode(p.Config); err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ConfigFile), config.Bytes(), 0o644); err != nil {
		return err
	}
	if build == nil {
		return nil
	}
	return writeJSON(filepath.Join(dir, BuildFile), build)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// childEnv is the base environment plus every setting as SESHAT_<KEY>,
// sorted, then the thread counts the settings set (OMP_NUM_THREADS...):
// later entries win over inherited ones.
func childEnv(base []string, settings map[string]any) []string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := append([]string(nil), base...)
	for _, k := range keys {
		env = append(env, EnvName(k)+"="+models.FormatValue(settings[k]))
	}
	return append(env, threadEnv(settings)...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
