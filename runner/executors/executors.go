package executors

import (
	"log/slog"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/runner/kubernetes"
)

// Default is the executor of --executor when none is named.
const Default = "local"

// Names are the executors New knows: the values of --executor.
var Names = []string{"local", "slurm", "kubernetes"}

// Config is what an executor is built from.
type Config struct {
	// Slurm is the slurm executor as configured (executor.slurm); New
	// sets its Log and Env.
	Slurm runner.Slurm
	// Kubernetes is executor.kubernetes; Cluster where its API server is.
	Kubernetes kubernetes.Config
	Cluster    kubernetes.Cluster
	// DryRun builds an executor that will only print what it would submit
	// (kubernetes: without a cluster to talk to, if need be).
	DryRun bool
	// Env is the environment of the processes the executor starts
	// (seshat's, less its secrets); Log where it warns.
	Env []string
	Log *slog.Logger
}

// New builds the executor name ("" is local) from cfg. Bad values are
// InvalidInput errors naming the config key or --executor.
func New(name string, cfg Config) (runner.Executor, error) {
	switch name {
	case "", Default:
		return runner.Local{}, nil
	case "slurm":
		s := cfg.Slurm
		if s.MaxParallel < 0 || s.MaxArraySize < 0 {
			return nil, exitcode.Errorf(exitcode.InvalidInput, "executor.slurm: max_parallel and max_array_size must not be negative")
		}
		s.Log = cfg.Log
		// The tasks inherit sbatch's environment: seshat's, less its secrets.
		s.Env = cfg.Env
		return &s, nil
	case "kubernetes":
		k, err := kubernetes.New(cfg.Kubernetes, cfg.Cluster, cfg.DryRun, cfg.Log)
		if err != nil {
			return nil, err // not a nil *kubernetes.Executor in the interface
		}
		return k, nil
	}
	return nil, exitcode.Errorf(exitcode.InvalidInput, "--executor: unknown executor %q (want local, slurm or kubernetes)", name)
}
