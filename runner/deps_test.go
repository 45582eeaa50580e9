package runner_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunStageDoesNotImportParseStage: the run stage (runner and its
// executors) depends on models and the workloads' run contract, never on
// the parse stage (store) nor on what builds on it (lts, plotting,
// analyze), as DESIGN §3 says.
func TestRunStageDoesNotImportParseStage(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/seshat-bench/seshat/runner", "github.com/seshat-bench/seshat/runner/kubernetes", "github.com/seshat-bench/seshat/runner/executors").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, parse := range []string{"/store", "/lts", "/plotting", "/analyze", "/kpi"} {
			if strings.HasPrefix(pkg, "github.com/seshat-bench/seshat"+parse) {
				t.Errorf("the run stage imports %s", pkg)
			}
		}
	}
}
