package pipeline

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/seshat-bench/seshat/cmd/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/runner/executors"
	"github.com/seshat-bench/seshat/runner/kubernetes"
)

// newExecutor builds the executor --executor names from the config
// file's executor section (and, for kubernetes, the cluster the command
// layer found).
func newExecutor(env Env, name string, cfg config.Executor, cluster config.Cluster, dryRun bool) (runner.Executor, error) {
	s, k := cfg.Slurm, cfg.Kubernetes
	tolerations := make([]kubernetes.Toleration, len(k.Tolerations))
	for i, t := range k.Tolerations {
		tolerations[i] = kubernetes.Toleration(t)
	}
	return executors.New(name, executors.Config{
		Slurm: runner.Slurm{Partition: s.Partition, Account: s.Account, QOS: s.QOS, TimeLimit: s.TimeLimit,
			GPUType: s.GPUType, Directives: s.Directives, MaxParallel: s.MaxParallel, MaxArraySize: s.MaxArraySize,
			JobName: s.JobName, Seshat: s.Seshat, PollInterval: time.Duration(s.PollInterval), GracePeriod: time.Duration(s.GracePeriod)},
		Kubernetes: kubernetes.Config{Context: k.Context, Namespace: k.Namespace, Image: k.Image,
			ImagePullPolicy: k.ImagePullPolicy, ImagePullSecrets: k.ImagePullSecrets, ServiceAccount: k.ServiceAccount,
			NodeSelector: k.NodeSelector, Tolerations: tolerations, Requests: k.Requests, Limits: k.Limits,
			GPUResource: k.GPUResource, Labels: k.Labels, MaxParallel: k.MaxParallel,
			PollInterval: time.Duration(k.PollInterval), Seshat: k.Seshat},
		Cluster: kubernetes.Cluster(cluster),
		DryRun:  dryRun, Env: env.Environ, Log: env.Log,
	})
}

// RunPointOptions are the options of the hidden `seshat run-point`: what a
// Slurm array task or a Kubernetes pod runs.
type RunPointOptions struct {
	Dir     string
	Timeout time.Duration
	Python  string
	// Scheduler describes the task (Executor "": none, no scheduler.json).
	Scheduler models.SchedulerInfo
	// Prelude is the run directory's first files (runner.EncodeArchive),
	// for a node without the results directory; Archive prints the
	// complete run directory on stdout afterwards (runner.WriteArchive).
	Prelude string
	Archive bool
}

// RunPoint runs the point of one run directory on this node: hardware
// probed here, the PI in a child process, exit_code last. It fails when
// the run could not be completed (then the executor accounts for it) or
// was interrupted; a run that completed with a non-zero exit code is data
// and a failure of this process too, so that the scheduler shows it.
func RunPoint(ctx context.Context, env Env, o RunPointOptions) error {
	if o.Dir == "" {
		return exitcode.Errorf(exitcode.InvalidInput, "--dir is required")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate the seshat executable: %w", err)
	}
	hw, warns := runner.CollectHWInfo(ctx, runner.Host{})
	for _, w := range warns {
		env.Log.Warn("hwinfo: " + w)
	}
	po := runner.PointOptions{Dir: o.Dir, Timeout: o.Timeout, Self: self, Python: o.Python,
		Lookup: env.lookupRunner, HWInfo: hw, Env: env.Environ}
	if o.Scheduler.Executor != "" {
		po.Scheduler = &o.Scheduler
	}
	po.Prelude = o.Prelude
	if o.Archive {
		po.Archive = env.Stdout
	}
	out, err := runner.RunPoint(ctx, po)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Dir, err)
	}
	if out.ExitCode != 0 {
		return exitcode.Errorf(exitcode.Failure, "%s: %s", o.Dir, out.Describe(o.Timeout))
	}
	return nil
}
