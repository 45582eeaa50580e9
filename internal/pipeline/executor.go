package pipeline

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/seshat-bench/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/models"
	"github.com/seshat-bench/seshat/runner"
)

// Executors are the values of --executor.
var Executors = []string{"local", "slurm", "kubernetes"}

// newExecutor builds the executor --executor names from the config
// file's executor section (and, for kubernetes, the cluster the command
// layer found). Bad values are InvalidInput errors naming the key.
func newExecutor(env Env, name string, cfg config.Executor, cluster config.Cluster, dryRun bool) (runner.Executor, error) {
	switch name {
	case "", "local":
		return runner.Local{}, nil
	case "slurm":
		c := cfg.Slurm
		s := &runner.Slurm{
			Partition: c.Partition, Account: c.Account, QOS: c.QOS, TimeLimit: c.TimeLimit,
			GPUType: c.GPUType, Directives: c.Directives, MaxParallel: c.MaxParallel,
			MaxArraySize: c.MaxArraySize, JobName: c.JobName, Seshat: c.Seshat, Log: env.Log,
			// The tasks inherit sbatch's environment: seshat's, less its secrets.
			Env: env.Environ,
		}
		var err error
		if s.PollInterval, err = configDuration("executor.slurm.poll_interval", c.PollInterval); err != nil {
			return nil, err
		}
		if s.GracePeriod, err = configDuration("executor.slurm.grace_period", c.GracePeriod); err != nil {
			return nil, err
		}
		if c.MaxParallel < 0 || c.MaxArraySize < 0 {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "executor.slurm: max_parallel and max_array_size must not be negative")
		}
		return s, nil
	case "kubernetes":
		return newKubernetes(env, cfg.Kubernetes, cluster, dryRun)
	}
	return nil, exitcode.Errorf(exitcode.InvalidInput, "--executor: unknown executor %q (want local, slurm or kubernetes)", name)
}

func configDuration(key, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, exitcode.Errorf(exitcode.InvalidInput, "config key %s: invalid duration %q (want e.g. 5s, 2m)", key, v)
	}
	return d, nil
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
		Lookup: lookupRunner, HWInfo: hw, Env: env.Environ}
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
