package main

import (
	"github.com/spf13/cobra"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/pipeline"
)

// newRunPointCmd is the hidden command a scheduler's task runs: one matrix
// point in the run directory `seshat run` prepared, on the node.
func newRunPointCmd(g *globals) *cobra.Command {
	var o pipeline.RunPointOptions
	cmd := &cobra.Command{
		Use:    "run-point",
		Short:  "Run one matrix point in its run directory (what a Slurm task or Kubernetes pod runs)",
		Hidden: true,
		Args:   noArgs,
		// Not the root's setup: the submitting shell's SESHAT_ variables and
		// seshat.yaml must not change what the task was submitted to do.
		PersistentPreRunE: childSetup(g),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return pipeline.RunPoint(cmd.Context(), g.env(), o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "the run directory (settings.yaml, .uuid, config.yaml written)")
	f.DurationVar(&o.Timeout, "timeout", 0, "kill the run's process group after this long (0: no limit)")
	f.StringVar(&o.Python, "python", "", "Python interpreter of the numpy and torch PIs")
	f.StringVar(&o.Scheduler.Executor, "executor", "", "the executor that submitted the task (slurm, kubernetes), for scheduler.json")
	f.StringVar(&o.Scheduler.Invocation, "invocation", "", "the submitting seshat run's id")
	f.StringVar(&o.Scheduler.JobID, "job-id", "", "the scheduler's id of the task")
	f.StringVar(&o.Scheduler.Node, "node", "", "the node running the task")
	f.StringVar(&o.Scheduler.Namespace, "namespace", "", "the pod's namespace")
	f.StringVar(&o.Scheduler.Pod, "pod", "", "the pod running the task")
	f.StringVar(&o.Prelude, "prelude", "", "the run directory's first files as a base64 tar.gz, unpacked into --dir first (no shared filesystem)")
	f.BoolVar(&o.Archive, "archive", false, "print the complete run directory on stdout afterwards, as an armoured base64 tar.gz")
	return cmd
}
