package executors

import (
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/runner"
)

// TestNew: every name of --executor builds its executor; a bad name or
// value is an InvalidInput error naming --executor or the config key, and
// no executor.
func TestNew(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "local"} {
		if e, err := New(name, Config{}); err != nil || e != (runner.Local{}) {
			t.Errorf("New(%q) = %v, %v; want the local executor", name, e, err)
		}
	}
	env := []string{"PATH=/usr/bin"}
	e, err := New("slurm", Config{Slurm: runner.Slurm{Partition: "gpu", MaxParallel: 4}, Env: env})
	if s, ok := e.(*runner.Slurm); err != nil || !ok || s.Partition != "gpu" || s.MaxParallel != 4 || len(s.Env) != 1 {
		t.Errorf("New(slurm) = %#v, %v", e, err)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"nomad", Config{}, `--executor: unknown executor "nomad"`},
		{"slurm", Config{Slurm: runner.Slurm{MaxArraySize: -1}}, "executor.slurm: max_parallel and max_array_size must not be negative"},
		{"kubernetes", Config{DryRun: true}, "config key executor.kubernetes.image: required"},
	} {
		e, err := New(c.name, c.cfg)
		if e != nil || err == nil || !strings.Contains(err.Error(), c.want) || exitcode.Of(err) != exitcode.InvalidInput {
			t.Errorf("New(%q) = %v, %v; want no executor and an InvalidInput error with %q", c.name, e, err, c.want)
		}
	}
}
