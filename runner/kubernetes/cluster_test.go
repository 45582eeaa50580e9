package kubernetes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/seshat-bench/seshat/runner"
	"github.com/seshat-bench/seshat/workloads"
	"github.com/seshat-bench/seshat/workloads/pi"
)

// TestRealCluster runs a gonum matmul point and a failing exec point as
// Jobs on a real cluster. Opt-in: SESHAT_TEST_KUBECONFIG names the
// kubeconfig, SESHAT_TEST_IMAGE an image built from the Containerfile
// (SESHAT_TEST_NAMESPACE, default "default", must let the kubeconfig's
// user create Jobs and read pods and their logs).
func TestRealCluster(t *testing.T) {
	kubeconfig, image := os.Getenv("SESHAT_TEST_KUBECONFIG"), os.Getenv("SESHAT_TEST_IMAGE")
	if kubeconfig == "" || image == "" {
		t.Skip("set SESHAT_TEST_KUBECONFIG and SESHAT_TEST_IMAGE to run against a real cluster")
	}
	rest, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := NewClient(rest)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runner.ParseBenchmark("b.yaml", []byte(`expe:
  matmul: {pi: matmul, backend: gonum, matrix_size: 32, repetitions: 3}
  broken: {pi: exec, command: [sh, -c, 'echo the PI failed >&2; exit 1']}
`))
	if err != nil {
		t.Fatal(err)
	}
	exps, _ := b.Select(nil)
	points, err := runner.Expand(b, exps, "pi", nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{ResultsDir: t.TempDir(), Points: points, Timeout: 5 * time.Minute,
		Lookup:   func(string) (workloads.Runner, error) { return pi.Workload{}, nil },
		Executor: &Executor{Client: client, Namespace: os.Getenv("SESHAT_TEST_NAMESPACE"), Image: image, PollInterval: 2 * time.Second}}
	s, err := runner.Run(context.Background(), opts)
	if err == nil || s.Succeeded != 1 || s.Failed != 1 {
		t.Fatalf("summary %+v, error %v", s, err)
	}
	for dir, code := range map[string]string{"matmul/000__run": "0", "broken/000__run": "1"} {
		got, err := os.ReadFile(filepath.Join(opts.ResultsDir, dir, runner.ExitCodeFile))
		if err != nil || strings.TrimSpace(string(got)) != code {
			t.Errorf("%s: exit_code %q %v", dir, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(opts.ResultsDir, "matmul", "000__run", "pi.json")); err != nil {
		t.Errorf("pi.json did not come back: %v", err)
	}
}
