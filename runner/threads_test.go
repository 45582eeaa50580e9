package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/models"
)

// withoutThreadVariables is this process's environment less the thread
// counts a CI may export, so that a test decides them.
func withoutThreadVariables() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "OMP_NUM_THREADS" && name != "OPENBLAS_NUM_THREADS" && name != "MKL_NUM_THREADS" {
			env = append(env, kv)
		}
	}
	return env
}

// TestRunThreadSettings: a thread-count setting is exported to the child
// over what it inherits, and usage.json records every thread count of the
// child's environment, inherited or set.
func TestRunThreadSettings(t *testing.T) {
	t.Parallel()
	results := t.TempDir()
	opts := runOpts(t, results, "expe:\n  e:\n    helper: exit 0\n    omp_num_threads: [1, 2]\n    mkl_num_threads: 1\n")
	opts.Env = append(withoutThreadVariables(), "OPENBLAS_NUM_THREADS=3", "MKL_NUM_THREADS=8")
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]map[string]string{
		"000__omp_num_threads=1": {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"},
		"001__omp_num_threads=2": {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"},
	} {
		var u models.Usage
		decodeStrict(t, filepath.Join(results, "e", dir, UsageFile), &u)
		if !reflect.DeepEqual(u.Threads, want) {
			t.Errorf("%s: usage.json threads %v, want %v", dir, u.Threads, want)
		}
	}
	// Nothing set, nothing inherited: no threads in usage.json.
	results = t.TempDir()
	opts = runOpts(t, results, "expe:\n  e:\n    helper: exit 0\n")
	opts.Env = withoutThreadVariables()
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var u models.Usage
	decodeStrict(t, filepath.Join(results, "e", "000__run", UsageFile), &u)
	if u.Threads != nil {
		t.Errorf("threads %v, want none", u.Threads)
	}
}

func TestChildEnvExportsThreadSettings(t *testing.T) {
	t.Parallel()
	env := childEnv([]string{"PATH=/bin", "OMP_NUM_THREADS=8"}, map[string]any{"omp_num_threads": 2, "openblas_num_threads": 1, "matrix_size": 64})
	want := []string{"PATH=/bin", "OMP_NUM_THREADS=8", "SESHAT_MATRIX_SIZE=64", "SESHAT_OMP_NUM_THREADS=2", "SESHAT_OPENBLAS_NUM_THREADS=1",
		"OMP_NUM_THREADS=2", "OPENBLAS_NUM_THREADS=1"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("child environment %v, want %v", env, want)
	}
	if got := threadCounts(env); !reflect.DeepEqual(got, map[string]string{"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "1"}) {
		t.Errorf("threads %v: the last of duplicates wins, as for the child", got)
	}
}

// TestThreadSettingsInvalid: a thread count that is not a whole number of
// threads is refused before anything runs, naming the file, line and key.
func TestThreadSettingsInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"expe:\n  e:\n    omp_num_threads: 0\n", `b.yaml:3: experiment "e": key "omp_num_threads": setting omp_num_threads: 0 is not a number of threads (a whole number, 1 or more, exported as OMP_NUM_THREADS)`},
		{"common_settings:\n  mkl_num_threads: \"4\"\nexpe:\n  e: {}\n", `b.yaml:2: experiment "e": key "mkl_num_threads": setting mkl_num_threads: "4" is not a number of threads`},
		{"expe:\n  e:\n    openblas_num_threads: [1, 1.5]\n", `b.yaml:3: experiment "e": key "openblas_num_threads": setting openblas_num_threads: 1.5 is not a number of threads`},
	}
	for _, tc := range tests {
		b, err := ParseBenchmark("b.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		exps, err := b.Select(nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Expand(b, exps, "helper", nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %s", tc.src, err, tc.want)
		}
	}
}
