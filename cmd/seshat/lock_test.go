package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
    command: [sh, -c, 'while [ ! -f "$0" ]; do sleep 0.05; done; printf "{\"component\": \"sh\", \"name\": \"PiWait\", \"@parameters\": {}, \"@result\": {\"elapsed\": 1, \"samples_ms\": [1]}}"', %q]
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
