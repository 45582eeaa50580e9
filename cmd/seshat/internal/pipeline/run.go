package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/runner/host"
	"github.com/seshat-bench/seshat/workloads"
)

// RunOptions are the options of `seshat run`.
type RunOptions struct {
	Benchmark   string
	ResultsDir  string
	Expe        []string
	DryRun      bool
	Resume      bool
	Timeout     time.Duration
	StopOnError bool
	Python      string
	// Executor is local, slurm or kubernetes ("" = local); ExecutorConfig
	// the config file's executor section.
	Executor       string
	ExecutorConfig config.Executor
	// Cluster is where the kubernetes executor finds its API server.
	Cluster config.Cluster
	// Self is the seshat executable children run as ("" = this process's).
	Self string
	// BuildID, Commit and Ref are --build-id, --commit and --ref: what is
	// under test, over what the CI's environment and git tell
	// (runner.DetectBuild).
	BuildID, Commit, Ref string
	// Build, when set, is the build of every run, as is, and nothing is
	// detected: what re-runs points of a build under its identity.
	Build *models.Build
	// CPUs is --cpus: a CPU list ("0-1,4") every run's child is pinned to
	// ("": not pinned). Local executor only.
	CPUs string
	// Lock, when set, is the results directory's lock, held by the caller
	// (regression --confirm holds it across its rounds); else the runs
	// take it for their duration.
	Lock *runner.ResultsLock
}

// DefaultWorkload is the workload of points whose settings name none.
const DefaultWorkload = "pi"

// workloadError is a `workload` setting no registered runner answers to.
type workloadError struct{ msg string }

func (e *workloadError) Error() string      { return "setting workload: " + e.msg }
func (e *workloadError) SettingKey() string { return "workload" }

// lookupRunner finds the workload of e that runs points of that name.
func (e Env) lookupRunner(name string) (workloads.Runner, error) {
	w, ok := e.registry().Get(name)
	if !ok {
		return nil, &workloadError{fmt.Sprintf("unknown workload %q (known: %s)", name, strings.Join(e.registry().Names(), ", "))}
	}
	r, ok := w.(workloads.Runner)
	if !ok {
		return nil, &workloadError{fmt.Sprintf("workload %q can be parsed but not run", name)}
	}
	return r, nil
}

// settingsReader asks each point's workload which settings it reads.
type settingsReader struct{ env Env }

func (rd settingsReader) Reads(s map[string]any) ([]string, bool) {
	name, _ := s["workload"].(string)
	r, err := rd.env.lookupRunner(name)
	if err != nil {
		return nil, true // reported by the check of the workload setting
	}
	sr, ok := r.(workloads.SettingsReader)
	if !ok {
		return nil, true
	}
	return sr.ReadsSettings(s), false
}

func (rd settingsReader) Names() []string {
	var names []string
	for _, n := range rd.env.registry().Names() {
		if w, _ := rd.env.registry().Get(n); w != nil {
			if sr, ok := w.(workloads.SettingsReader); ok {
				names = append(names, sr.SettingNames()...)
			}
		}
	}
	return names
}

// Run is `seshat run`: expand the benchmark file, then run every point (or
// list them with DryRun), and print the summary on stderr. The children
// inherit this process's environment plus their settings as SESHAT_<KEY>.
func Run(ctx context.Context, env Env, o RunOptions) error {
	if o.Benchmark == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--benchmark is required")
	}
	if o.ResultsDir == "" && !o.DryRun {
		return exitcode.Errorf(exitcode.InvalidInput, "--results-dir is required")
	}
	if o.Timeout < 0 {
		return exitcode.Errorf(exitcode.InvalidInput, "--timeout must not be negative")
	}
	for _, f := range []struct{ flag, value string }{{"--build-id", o.BuildID}, {"--commit", o.Commit}, {"--ref", o.Ref}} {
		if strings.IndexFunc(f.value, unicode.IsControl) >= 0 || !utf8.ValidString(f.value) {
			return exitcode.Errorf(exitcode.InvalidInput, "%s %q: must be one line of text", f.flag, f.value)
		}
	}
	// Refused with the other flags, before the benchmark file is read
	// (runPoints reads it again for the runs).
	if _, err := pinnedCPUs(o); err != nil {
		return err
	}
	points, err := expandBenchmark(&env, o.Benchmark, o.Expe)
	if err != nil {
		return err
	}
	if !o.DryRun && (o.Executor == "" || o.Executor == "local") {
		warnBusyHost(ctx, env, points)
	}
	_, err = runPoints(ctx, env, o, points)
	return err
}

// pinnedCPUs reads --cpus: a CPU list naming only CPUs this process may
// run on (its affinity: the online CPUs, less what a cpuset, taskset or
// numactl took away), for the local executor. Anything else is invalid
// input naming the flag and the CPUs at fault.
func pinnedCPUs(o RunOptions) ([]int, error) {
	if o.CPUs == "" {
		return nil, nil
	}
	cpus, err := host.ParseCPUList(o.CPUs)
	if err != nil {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--cpus %q: not a CPU list (like 0, 0-3 or 0,2,4-7): %w", o.CPUs, err)
	}
	if o.Executor != "" && o.Executor != "local" {
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--cpus pins the runs of the local executor; with --executor %s the scheduler places them (its own CPU binding)", o.Executor)
	}
	allowed, err := host.AllowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("--cpus: %w", err)
	}
	var missing []int
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		which := "CPUs " + host.FormatCPUList(missing) + " are"
		if len(missing) == 1 {
			which = "CPU " + host.FormatCPUList(missing) + " is"
		}
		return nil, exitcode.Errorf(exitcode.InvalidInput, "--cpus %s: %s not among the CPUs seshat may run on here (%s)", o.CPUs, which, host.FormatCPUList(allowed))
	}
	return cpus, nil
}

// expandBenchmark loads a benchmark file and expands the experiments named
// (all but those starting with _ when none) into checked points. A workload
// file beside it joins env's workloads.
func expandBenchmark(env *Env, benchmark string, expe []string) ([]runner.Point, error) {
	b, loadErr := runner.LoadBenchmark(benchmark)
	if b == nil {
		return nil, loadErr
	}
	// A workload file beside the benchmark file declares its workload.
	if err := discoverWorkload(env, filepath.Dir(benchmark)); err != nil {
		return nil, err
	}
	exps, err := b.Select(expe)
	if err != nil {
		return nil, runner.JoinProblems(loadErr, err)
	}
	check := func(s map[string]any) error {
		name, ok := s["workload"].(string)
		if !ok {
			return &workloadError{fmt.Sprintf("must be a string, got %v", s["workload"])}
		}
		r, err := env.lookupRunner(name)
		if err != nil {
			return err
		}
		return r.CheckPoint(s)
	}
	// Every problem of the file at once, in file order: its shape, the
	// settings no run reads, and what the workloads refuse.
	unknown := runner.CheckSettings(b, exps, DefaultWorkload, settingsReader{*env})
	points, err := runner.Expand(b, exps, DefaultWorkload, check)
	if err := runner.JoinProblems(loadErr, unknown, err); err != nil {
		return nil, err
	}
	return points, nil
}

// runPoints runs points as o says (executor, timeout, build...), with a
// progress bar or log lines, and prints the summary on stderr.
func runPoints(ctx context.Context, env Env, o RunOptions, points []runner.Point) (runner.Summary, error) {
	cpus, err := pinnedCPUs(o)
	if err != nil {
		return runner.Summary{}, err
	}
	opts := runner.Options{
		ResultsDir:  o.ResultsDir,
		Points:      points,
		Resume:      o.Resume,
		Timeout:     o.Timeout,
		StopOnError: o.StopOnError,
		Python:      o.Python,
		Lookup:      env.lookupRunner,
		Env:         env.Environ,
		CPUs:        cpus,
	}
	if opts.Executor, err = newExecutor(env, o.Executor, o.ExecutorConfig, o.Cluster, o.DryRun); err != nil {
		return runner.Summary{}, err
	}
	if opts.Self = o.Self; opts.Self == "" {
		if opts.Self, err = os.Executable(); err != nil {
			return runner.Summary{}, fmt.Errorf("locate the seshat executable: %w", err)
		}
	}
	opts.Build = runBuild(ctx, env, o)
	if o.DryRun {
		return runner.Summary{}, dryRun(env, opts)
	}
	if err := os.MkdirAll(o.ResultsDir, 0o755); err != nil {
		return runner.Summary{}, fmt.Errorf("--results-dir: %w", err)
	}
	if opts.Lock = o.Lock; opts.Lock == nil {
		if opts.Lock, err = runner.LockResults(o.ResultsDir); err != nil {
			return runner.Summary{}, err
		}
		defer opts.Lock.Unlock()
		if opts.Lock.Warning != "" {
			env.Log.Warn(opts.Lock.Warning)
		}
	}
	if o.Executor == "" || o.Executor == "local" {
		reclaim(env)
	}
	keepWorkloadFile(env, o.ResultsDir, pointWorkloads(points))
	hw, warns := runner.CollectHWInfo(ctx, runner.Host{})
	for _, w := range warns {
		env.Log.Warn("hwinfo: " + w)
	}
	opts.HWInfo = hw
	opts.Host = env.Host
	switch {
	case env.Quiet:
	case env.Terminal:
		opts.Progress = &runner.BarProgress{W: env.Stderr, ResultsDir: o.ResultsDir, Width: env.TermWidth}
	default:
		opts.Progress = &runner.LogProgress{W: env.Stderr, ResultsDir: o.ResultsDir, Timeout: o.Timeout}
	}
	summary, err := runner.Run(ctx, opts)
	summary.WriteCounts(env.status())
	summary.WriteProblems(env.Stderr, o.ResultsDir)
	return summary, err
}

// reclaim kills what the runs of a seshat that is gone (SIGKILLed, its
// machine's OOM killer) left running, and removes their cgroups, saying so
// before anything is measured.
func reclaim(env Env) {
	r, err := runner.Reclaim()
	if len(r.Cgroups) > 0 || r.Processes > 0 {
		env.Log.Warn(fmt.Sprintf("killed %d process(es) and removed %d cgroup(s) left by the runs of a seshat that is gone %v", r.Processes, len(r.Cgroups), r.Cgroups))
	}
	if err != nil {
		env.Log.Warn(err.Error())
	}
}

// warnBusyHost warns, once before anything is measured, when other work
// keeps this host's CPUs busy: every timing of the matrix would carry it.
// The runs' own load comes later; usage.json records the load around
// each of them.
// When a point needs a GPU (its workload says so, as for Slurm: the PIs
// on device: gpu), a GPU that another process holds or keeps busy is said
// too.
func warnBusyHost(ctx context.Context, env Env, points []runner.Point) {
	if busy, what, ok := env.Host.Busy(); ok && busy {
		env.Log.Warn(fmt.Sprintf("the host is busy (%s over the last minute): timings may be noisy; `seshat host check` tells what else runs", what))
	}
	gpu := false
	for _, p := range points {
		gpu = gpu || runner.PointGPUs(env.lookupRunner, p.Settings) > 0
	}
	if !gpu {
		return
	}
	if busy, what, ok := env.Host.GPUBusy(ctx); ok && busy {
		env.Log.Warn(fmt.Sprintf("the GPU is busy (%s): GPU timings may be noisy; `seshat host check` tells more", what))
	}
}

// runBuild is the build of this invocation's runs: o.Build, else what
// runner.DetectBuild tells from the flags, the environment and git in the
// working directory.
func runBuild(ctx context.Context, env Env, o RunOptions) *models.Build {
	if o.Build != nil {
		b := *o.Build
		return &b
	}
	b, warns := runner.DetectBuild(ctx, runner.BuildSources{ID: o.BuildID, Commit: o.Commit, Ref: o.Ref,
		Environ: env.Environ, Invocation: uuid.NewString(), Start: time.Now()})
	for _, w := range warns {
		env.Log.Warn("build: " + w)
	}
	env.Log.Debug("build", "id", b.ID, "commit", b.Commit, "ref", b.Ref)
	return &b
}

// dryRun prints one line per point on stdout: its directory (relative to
// the results directory) or "skip", and its settings.
func dryRun(env Env, opts runner.Options) error {
	plan, err := runner.Plan(opts)
	if err != nil {
		return err
	}
	if dr, ok := opts.Executor.(runner.DryRunner); ok {
		// What would be submitted, ready to read or to feed the scheduler's
		// own dry run; the plan is in it.
		if err := dr.DryRun(env.Stdout, opts, plan); err != nil {
			return err
		}
		toRun := 0
		for _, p := range plan {
			if !p.Skip {
				toRun++
			}
		}
		fmt.Fprintf(env.Stderr, "seshat run: dry run: build %s: %d points, %d to run, nothing submitted\n", buildID(opts.Build), len(plan), toRun)
		return nil
	}
	toRun := 0
	for _, p := range plan {
		where := "skip (complete)"
		if !p.Skip {
			toRun++
			where = p.Dir
			if opts.ResultsDir != "" {
				if rel, err := filepath.Rel(opts.ResultsDir, p.Dir); err == nil {
					where = rel
				}
			}
			if p.Reuse {
				where += " (rerun of an interrupted run)"
			}
		}
		fmt.Fprintf(env.Stdout, "%s\t%s\n", where, runner.SettingsText(p.Settings))
	}
	fmt.Fprintf(env.status(), "seshat run: dry run: build %s: %d points, %d to run, nothing written\n", buildID(opts.Build), len(plan), toRun)
	return nil
}

func buildID(b *models.Build) string {
	if b == nil || b.ID == "" {
		return "(none)"
	}
	return b.ID
}

// pointWorkloads lists the workloads the points run, sorted.
func pointWorkloads(points []runner.Point) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range points {
		if name, ok := p.Settings["workload"].(string); ok && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
