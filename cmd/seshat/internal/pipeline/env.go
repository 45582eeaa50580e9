package pipeline

import (
	"io"
	"log/slog"

	"github.com/seshat-bench/seshat/runner/host"
	"github.com/seshat-bench/seshat/workloads"
)

// Env is the process as a pipeline call sees it, with the settings that
// come from the environment already resolved by the command layer (no
// package below cmd reads environment variables).
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	Log    *slog.Logger
	// Terminal is true when stderr is a terminal (progress bars).
	Terminal bool
	// Environ is the base environment of the processes seshat starts (the
	// PI runs, git, sbatch and so the Slurm tasks): the process's own, as
	// os.Environ gives it, without seshat's secrets (redact.Environ).
	Environ []string
	// ResultsBaseURL is where the results directory is published (CI
	// artifacts; SESHAT_RESULTS_BASE_URL): payloads' urls point below it.
	ResultsBaseURL string
	// TermWidth returns the width of that terminal in columns (0: unknown).
	TermWidth func() int
	// Quiet (-q) keeps stderr for errors: no progress, no status lines.
	Quiet bool
	// Host is the machine's /proc and /sys, where `host check` looks and
	// what `run` records around each run (the zero value: this machine's).
	Host host.Host
	// Workloads are the workloads the command knows (Workloads builds
	// them: the built-in ones and --workload-file); a verb adds those of
	// the workload files it finds to its own copy (nil: the built-in ones).
	Workloads *workloads.Registry
}

// registry is e.Workloads, or the built-in workloads when it is nil.
func (e Env) registry() *workloads.Registry {
	if e.Workloads == nil {
		return workloads.Builtin()
	}
	return e.Workloads
}

// status is where status lines go (parse statistics, summaries): stderr,
// unless Quiet.
func (e Env) status() io.Writer {
	if e.Quiet || e.Stderr == nil {
		return io.Discard
	}
	return e.Stderr
}
