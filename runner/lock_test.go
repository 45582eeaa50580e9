package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seshat-bench/seshat/internal/exitcode"
)

// startLockHolder starts a process of its own holding dir's results lock,
// and returns it once it does.
func startLockHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	c := startHelper(t, "lock "+dir+" "+ready)
	waitFile(t, ready)
	return c
}

// TestLockResults: while a process holds a results directory's lock,
// another cannot take it, and is told which process has it (exit status
// 1); once that process is SIGKILLed, the lock is free.
func TestLockResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	holder := startLockHolder(t, dir)
	_, err := LockResults(dir)
	if !errors.Is(err, ErrResultsLocked) || exitcode.Of(err) != exitcode.Failure {
		t.Fatalf("error %v (exit %d), want ErrResultsLocked, exit 1", err, exitcode.Of(err))
	}
	for _, want := range []string{dir, fmt.Sprintf("seshat pid %d on ", holder.Process.Pid), LockFile, "one seshat run or regression --confirm"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	// A crash releases the lock.
	holder.Process.Kill()
	holder.Wait()
	l, err := LockResults(dir)
	if err != nil {
		t.Fatalf("after its holder was killed: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	// Released: taken again, by this process.
	l, err = LockResults(dir)
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	l.Unlock()
}

// TestRunRefusesALockedResultsDirectory: Run writes nothing into a results
// directory another process writes.
func TestRunRefusesALockedResultsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	holder := startLockHolder(t, dir)
	opts := runOpts(t, dir, "expe:\n  e:\n    helper: exit 0\n")
	_, err := Run(context.Background(), opts)
	if !errors.Is(err, ErrResultsLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", holder.Process.Pid)) {
		t.Fatalf("error %v, want the results directory locked by pid %d", err, holder.Process.Pid)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != LockFile {
		t.Errorf("the results directory holds %v, want the lock file alone", entries)
	}
}
