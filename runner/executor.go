package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Exec is one child process to run.
type Exec struct {
	Args []string
	// Env is the complete environment of the child.
	Env []string
	// Dir is its working directory.
	Dir string
	// Stdout and Stderr receive its output (files: no copying goroutine
	// can outlive the run).
	Stdout, Stderr *os.File
	// Timeout kills the process group after this long (0: never).
	Timeout time.Duration
}

// Outcome is how a child process ended.
type Outcome struct {
	// ExitCode is the child's status; 128+N when killed by signal N, and
	// TimeoutExitCode when the timeout killed it.
	ExitCode    int
	TimedOut    bool
	Interrupted bool
	Start, End  time.Time
	// Rusage of the child and the descendants it waited for (nil when it
	// never started).
	Rusage *syscall.Rusage
	// Err is set when the child could not start, or on interruption.
	Err error
	// Reason is set when a scheduler ended the run (see FinishByScheduler).
	Reason string
}

// TimeoutExitCode is recorded for a run killed by --timeout, as timeout(1)
// does.
const TimeoutExitCode = 124

// StartFailureExitCode is recorded when the child could not be started, as
// shells do for a command not found.
const StartFailureExitCode = 127

// ErrInterrupted is the Outcome error of a run stopped by cancellation.
var ErrInterrupted = errors.New("interrupted")

// Execute runs the child in a process group of its own and waits for it.
// On timeout or cancellation of ctx the whole group is killed, so
// grandchildren (a Python interpreter below `seshat pi`, a shell pipeline
// of an exec PI) die with it; once the child has exited, whatever it left
// running in its group is killed too, so no stray work overlaps the next
// run's measurement.
func Execute(ctx context.Context, x Exec) Outcome {
	cmd := exec.Command(x.Args[0], x.Args[1:]...)
	cmd.Env = x.Env
	cmd.Dir = x.Dir
	cmd.Stdout, cmd.Stderr = x.Stdout, x.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	o := Outcome{Start: time.Now()}
	if err := cmd.Start(); err != nil {
		o.End, o.ExitCode, o.Err = time.Now(), StartFailureExitCode, err
		return o
	}
	pgid := cmd.Process.Pid // the leader of its own group
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout <-chan time.Time
	if x.Timeout > 0 {
		t := time.NewTimer(x.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timeout:
		killGroup(pgid)
		o.TimedOut = true
		waitErr = <-done
	case <-ctx.Done():
		killGroup(pgid)
		o.Interrupted = true
		waitErr = <-done
	}
	o.End = time.Now()
	killGroup(pgid) // stragglers the child left behind
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.Rusage = ru
	}
	switch {
	case o.Interrupted:
		o.Err = ErrInterrupted
		o.ExitCode = exitStatus(cmd.ProcessState)
	case o.TimedOut:
		o.ExitCode = TimeoutExitCode
	default:
		o.ExitCode = exitStatus(cmd.ProcessState)
		var ee *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &ee) {
			o.Err = waitErr
		}
	}
	return o
}

// exitStatus is the shell's view of a status: the exit code, or 128+signal.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func killGroup(pgid int) {
	// ESRCH once the group is empty: nothing to do.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Describe says how the run ended, for logs and the summary.
func (o Outcome) Describe(timeout time.Duration) string {
	switch {
	case o.Interrupted:
		return "interrupted"
	case o.TimedOut:
		return fmt.Sprintf("timed out after %s", timeout)
	case o.Reason != "":
		return o.Reason
	case o.Err != nil:
		return "failed to start: " + o.Err.Error()
	case o.ExitCode == 0:
		return "ok"
	default:
		return fmt.Sprintf("exit code %d", o.ExitCode)
	}
}
