package runner

import (
	"context"
	"io"
)

// Executor runs the points of a plan: Local on this machine, Slurm through
// a Slurm cluster's job arrays, runner/kubernetes as Kubernetes Jobs. Every
// executor leaves the same artifact directory per run, exit_code last, and
// tells the Tracker about each run as it begins and ends.
//
// Execute runs every planned point that is not skipped, reporting skipped
// ones with t.Skipped. It stops early when t.End says so (--stop-on-error)
// or ctx is cancelled (SIGINT: runs not finished are left without
// exit_code, and the executor calls t.Interrupt). Its error is the
// executor's own failure (disk full, a scheduler refusing the jobs), not a
// failed run.
type Executor interface {
	Execute(ctx context.Context, opts Options, plan []Planned, t *Tracker) error
}

// DryRunner is implemented by executors that submit to a scheduler: it
// writes what would be submitted (a batch script, Job manifests) for
// --dry-run, creating nothing.
type DryRunner interface {
	DryRun(w io.Writer, opts Options, plan []Planned) error
}

// Tracker keeps the Summary and the Progress of a Run up to date as an
// executor reports runs. Its methods are called from one goroutine.
type Tracker struct {
	opts Options
	prog Progress
	s    Summary
}

// Skipped records a point skipped as already complete.
func (t *Tracker) Skipped(i int, p Planned) {
	t.s.Skipped++
	t.prog.Skipped(i, p)
}

// Begin records that run i started (p.Dir is its directory).
func (t *Tracker) Begin(i int, p Planned) { t.prog.Begin(i, p) }

// End records how run i ended and reports whether the executor must stop:
// the run failed and --stop-on-error was given, or it was interrupted.
func (t *Tracker) End(i int, p Planned, o Outcome) (stop bool) {
	t.prog.End(i, p, o)
	switch {
	case o.Interrupted:
		t.s.Interrupted = true
	case o.ExitCode == 0:
		t.s.Succeeded++
	default:
		t.s.Failed++
		t.s.Failures = append(t.s.Failures, Failure{Dir: p.Dir, Reason: o.Describe(t.opts.Timeout)})
		t.s.StoppedOnError = t.s.StoppedOnError || t.opts.StopOnError
	}
	return t.Stopped()
}

// Broken records that the runner itself failed on run i (it could not
// create or finish the run directory); the executor then returns err.
func (t *Tracker) Broken(i int, p Planned, o Outcome, err error) {
	t.s.Failed++
	t.s.Failures = append(t.s.Failures, Failure{Dir: p.Dir, Reason: err.Error()})
	t.prog.End(i, p, o)
}

// Interrupt records that the context was cancelled.
func (t *Tracker) Interrupt() { t.s.Interrupted = true }

// Stopped reports whether the executor must start nothing more.
func (t *Tracker) Stopped() bool { return t.s.Interrupted || t.s.StoppedOnError }
