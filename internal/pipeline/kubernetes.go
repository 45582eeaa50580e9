package pipeline

import (
	"github.com/seshat-bench/seshat/internal/config"
	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/runner"
)

func newKubernetes(env Env, c config.Kubernetes) (runner.Executor, error) {
	return nil, exitcode.Errorf(exitcode.InvalidInput, "--executor kubernetes: not built yet")
}
