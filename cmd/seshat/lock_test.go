package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer written by a process's output copier and
// read by the test meanwhile.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// seshatProcess is seshat started as a process of its own (this test
// binary, asSeshat).
type seshatProcess struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
	code   int
}

func startSeshatProcess(t *testing.T, args ...string) *seshatProcess {
	t.Helper()
	p := &seshatProcess{cmd: exec.Command(os.Args[0], args...), stderr: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), asSeshat+"=1")
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// waitUntil polls cond until it holds, failing after a generous deadline
// (a hang, not a timing assertion).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

func (p *seshatProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// TestRunOneWriterPerResultsDirectory: a second `seshat run --resume` on a
// results directory that a first one is writing is refused, naming the
// first one's pid (exit 1); the first one runs every point once. (Two of
// them both planned the run directories: 15 directories for 8 points, the
// interrupted one written by both.)
func TestRunOneWriterPerResultsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate, results := filepath.Join(dir, "gate"), filepath.Join(dir, "results")
	// The runs wait for the gate: the first seshat is still running when
	// the second starts.
	bench := writeBenchmark(t, fmt.Sprintf(`extra_settings: [tag]
expe:
  e:
    pi: exec
    tag: [1, 2, 3, 4, 5, 6, 7, 8]
    command: [sh, -c, 'while [ ! -f "$0" ]; do sleep 0.05; done; printf "{\"component\": \"sh\", \"name\": \"PiWait\", \"@parameters\": {}, \"@result\": {\"elapsed\": 1, \"samples_ms\": [1]}, \"versions\": {\"sh\": \"1\"}}"', %q]
`, gate))
	args := []string{"run", "--resume", "--benchmark", bench, "--results-dir", results}
	first := startSeshatProcess(t, args...)
	waitUntil(t, "the first seshat to start its first run", func() bool { return len(runDirsOf(t, results)) > 0 || first.exited() })
	second := startSeshatProcess(t, args...)
	waitUntil(t, "the second seshat to exit or start a run", func() bool {
		return second.exited() || strings.Contains(second.stderr.String(), ": started")
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-first.done
	<-second.done
	if first.code != 0 {
		t.Errorf("first seshat: exit %d:\n%s", first.code, first.stderr)
	}
	want := fmt.Sprintf("is in use by seshat pid %d on ", first.cmd.Process.Pid)
	if second.code != 1 || !strings.Contains(second.stderr.String(), want) {
		t.Errorf("second seshat: exit %d, want 1 and %q:\n%s", second.code, want, second.stderr)
	}
	if dirs := runDirsOf(t, results); len(dirs) != 8 {
		t.Errorf("%d run directories for 8 points: %v", len(dirs), dirs)
	}
}

// TestRunKilledTakesItsRunWithIt: `seshat run` killed with SIGKILL takes
// the point it was running with it: the PI dies at once (nothing writes
// into the run directory afterwards), and the next `seshat run` kills
// what the PI had started and removes the run's cgroup, saying so; the
// run is then redone.
func TestRunKilledTakesItsRunWithIt(t *testing.T) {
	t.Parallel()
	// Every seshat run reclaims what a gone seshat left, on the whole
	// machine: another run of this test binary (a parallel test, the
	// early demos) may get there between the kill and the second run.
	// The second run must say what it cleaned up in one of three tries;
	// a second run that never says it fails all three.
	for attempt := 1; attempt <= 3; attempt++ {
		if killedRunTakesItsRun(t, attempt) {
			return
		}
	}
	t.Errorf("the second run did not say what it cleaned up in 3 attempts")
}

// killedRunTakesItsRun kills a seshat run whose PI left a process behind,
// checks the PI died with it, and runs it again: the run is redone, the
// leftovers killed; true when the second run said it killed them.
func killedRunTakesItsRun(t *testing.T, attempt int) bool {
	t.Helper()
	dir := t.TempDir()
	pids, again, results := filepath.Join(dir, "pids"), filepath.Join(dir, "again"), filepath.Join(dir, "results")
	// The first time, the command leaves a sleeping process and waits for
	// it; once the file again exists, it prints its pi.json at once.
	bench := writeBenchmark(t, fmt.Sprintf(`expe:
  e:
    pi: exec
    command: [sh, -c, 'if [ ! -f "$1" ]; then sleep 600 & echo $$ $! > "$0.tmp"; mv "$0.tmp" "$0"; wait; fi; printf "{\"component\": \"sh\", \"name\": \"PiWait\", \"@parameters\": {}, \"@result\": {\"elapsed\": 1, \"samples_ms\": [1]}, \"versions\": {\"sh\": \"1\"}}"', %q, %q]
`, pids, again))
	first := startSeshatProcess(t, "run", "--benchmark", bench, "--results-dir", results)
	waitUntil(t, "the run to start its command", func() bool { _, err := os.Stat(pids); return err == nil || first.exited() })
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("%v:\n%s", err, first.stderr)
	}
	var sh, sleep int
	if _, err := fmt.Sscan(string(data), &sh, &sleep); err != nil {
		t.Fatal(err)
	}
	pi := parentOf(t, sh) // `seshat pi`, the run's child
	t.Cleanup(func() {
		syscall.Kill(pi, syscall.SIGKILL)
		syscall.Kill(sh, syscall.SIGKILL)
		syscall.Kill(sleep, syscall.SIGKILL)
	})
	if pi == first.cmd.Process.Pid {
		t.Fatalf("the command's parent is seshat run itself, not the PI")
	}

	first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.done
	waitUntil(t, fmt.Sprintf("the PI (pid %d) to die with seshat", pi), func() bool { return !running(pi) })

	if err := os.WriteFile(again, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSeshat(t, nil, "run", "--resume", "--benchmark", bench, "--results-dir", results)
	if r.code != 0 {
		t.Fatalf("second run: exit %d:\n%s", r.code, r.stderr)
	}
	waitUntil(t, "the processes the PI left to be killed", func() bool { return !running(sh) && !running(sleep) })
	if dirs := runDirsOf(t, results); len(dirs) != 1 {
		t.Errorf("run directories %v, want the one, redone", dirs)
	}
	said := strings.Contains(r.stderr, "left by the runs of a seshat that is gone") && !strings.Contains(r.stderr, "killed 0 process")
	if !said {
		t.Logf("attempt %d: the second run did not say what it cleaned up (another seshat of this test process may have reclaimed it first):\n%s", attempt, r.stderr)
	}
	return said
}

// parentOf is the parent of pid, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc to follow the processes with: %v", err)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// running tells whether pid is a live process (a zombie is not).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
