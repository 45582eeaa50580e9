package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
	"github.com/seshat-bench/seshat/runner/executors"
)

func newRunCmd(g *globals) *cobra.Command {
	var o pipeline.RunOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the PIs of a benchmark file, one artifact directory per run",
		Long: `Run expands a benchmark file (common_settings, expe, repeat) into matrix
points and runs each in a child process of its own (or, with --executor,
as Slurm array tasks or Kubernetes Jobs), writing
<results-dir>/<expe>/<NNN>__<slug>/ with settings.yaml, build.json (what is
under test: --build-id, --commit, --ref, else the CI's environment, else
git, else one id for this invocation), pi.json, hwinfo.json, usage.json,
logs and, last, exit_code. It exits 0 when every run succeeded, 1
otherwise (after finishing the matrix) or when another seshat writes the
results directory (one writer at a time, named in the message), 4 for an
invalid benchmark file.`,
		Args: noArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if f := g.settings.File; f != nil {
				o.ExecutorConfig = f.File.Executor
			}
			o.Cluster = g.settings.Cluster
			return pipeline.Run(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Benchmark, "benchmark", "", "benchmark file (YAML)")
	f.StringVar(&o.ResultsDir, "results-dir", "", "directory receiving <expe>/<NNN>__<slug> run directories")
	f.StringArrayVar(&o.Expe, "expe", nil, "run only this experiment (repeatable; default: all not starting with _)")
	f.BoolVar(&o.DryRun, "dry-run", false, "list the points and their directories, write nothing")
	f.BoolVar(&o.Resume, "resume", false, "skip points already complete with exit code 0 and the same settings")
	f.DurationVar(&o.Timeout, "timeout", 0, "kill every process of a run after this long (0: no limit)")
	f.BoolVar(&o.StopOnError, "stop-on-error", false, "stop after the first failed run")
	f.StringVar(&o.Python, "python", "", "Python interpreter of the numpy and torch PIs (default: /usr/bin/python3, else python3, whichever imports the framework)")
	f.StringVar(&o.BuildID, "build-id", "", "build.json id: runs sharing it are runs of one build (default: <engine>-<run id> in CI, else the git commit, else one id per invocation)")
	f.StringVar(&o.Commit, "commit", "", "build.json commit under test (default: the CI's, else git's HEAD)")
	f.StringVar(&o.Ref, "ref", "", "build.json ref, the branch or tag under test (default: the CI's, else git's branch)")
	f.StringVar(&o.CPUs, "cpus", "", "pin every run's PI to these CPUs, a list like 0, 0-3 or 0,2 (sched_setaffinity; local executor)")
	f.StringVar(&o.Executor, "executor", executors.Default, "where the points run: local (child processes), slurm (job arrays) or kubernetes (Jobs); see the executor section of seshat.yaml")
	config.BindKey(f, "executor", "executor.name")
	config.BindKey(f, "benchmark", "run.benchmark")
	config.BindKey(f, "results-dir", "results_dir")
	config.BindKey(f, "timeout", "run.timeout")
	config.BindKey(f, "python", "run.python")
	config.BindKey(f, "build-id", "run.build_id")
	config.BindKey(f, "commit", "run.commit")
	config.BindKey(f, "ref", "run.ref")
	config.BindKey(f, "cpus", "run.cpus")
	_ = cmd.RegisterFlagCompletionFunc("expe", completeExpe(g, &o.Benchmark))
	return cmd
}
