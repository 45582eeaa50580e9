//go:build linux

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/runner/host"
)

// cpusAllowed reads the Cpus_allowed_list lines of a status text.
func cpusAllowed(status string) []string {
	var out []string
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// TestExecutePinsTheChild: with CPUs the child, and what it starts, run on
// those CPUs only (the real sched_setaffinity), and no thread of seshat
// keeps the mask.
func TestExecutePinsTheChild(t *testing.T) {
	t.Parallel()
	allowed, err := host.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := allowed[len(allowed)-1]
	x := helperExec(t, "")
	x.Args = []string{"sh", "-c", "cat /proc/self/status; sh -c 'cat /proc/self/status'"}
	x.CPUs = []int{last}
	o := Execute(context.Background(), x)
	if o.ExitCode != 0 || o.Err != nil {
		t.Fatalf("exit %d, %v", o.ExitCode, o.Err)
	}
	out, err := os.ReadFile(x.Stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := host.FormatCPUList([]int{last})
	if got := cpusAllowed(string(out)); len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("child and grandchild allowed on %v, want %s twice", got, want)
	}
	// Every thread of this process still runs where it ran before.
	all := host.FormatCPUList(allowed)
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		if got := cpusAllowed(string(data)); len(got) != 1 || got[0] != all {
			t.Errorf("%s: allowed on %v after the run, want %s", task, got, all)
		}
	}
	// Unpinned, the child runs wherever seshat may.
	x = helperExec(t, "")
	x.Args = []string{"cat", "/proc/self/status"}
	if o := Execute(context.Background(), x); o.ExitCode != 0 {
		t.Fatalf("exit %d, %v", o.ExitCode, o.Err)
	}
	out, _ = os.ReadFile(x.Stdout.Name())
	if got := cpusAllowed(string(out)); len(got) != 1 || got[0] != all {
		t.Errorf("unpinned child allowed on %v, want %s", got, all)
	}
}

// TestExecutePinFailure: a mask the kernel refuses fails the start, naming
// the CPUs; nothing runs.
func TestExecutePinFailure(t *testing.T) {
	t.Parallel()
	x := helperExec(t, "exit 0")
	x.CPUs = []int{1<<10 - 1} // beyond any CI machine's CPUs
	o := Execute(context.Background(), x)
	if o.ExitCode != StartFailureExitCode || o.Err == nil || !strings.Contains(o.Err.Error(), "pin to CPUs 1023: sched_setaffinity") {
		t.Errorf("exit %d, error %v", o.ExitCode, o.Err)
	}
}
