package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
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
	// Timeout kills every process of the run after this long (0: never).
	Timeout time.Duration
	// CPUs, when set, pins the child to these CPUs (sched_setaffinity);
	// everything it starts inherits the mask.
	CPUs []int
	// Report, when set, gives the child a pipe on file descriptor
	// runnable.ReportFD; what it writes there (up to maxReport bytes) is
	// the Outcome's Report.
	Report bool

	// noCgroup forces the subreaper fallback of the containment (tests).
	noCgroup bool
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
	// SelfMaxRSS is this process's peak resident memory in KiB
	// (RUSAGE_SELF) once the child ended: Linux counts it in the child's
	// ru_maxrss (see models.Usage.SeshatMaxRSSBytes).
	SelfMaxRSS int64
	// Err is set when the child could not start, or on interruption.
	Err error
	// Reason is set when a scheduler ended the run (see FinishByScheduler).
	Reason string
	// Stderr is the end of a failed run's stderr.log (StderrReason), for
	// the summary.
	Stderr string
	// Report is what the child wrote on its report pipe (Exec.Report);
	// nil when it wrote nothing.
	Report []byte
	// Stray counts the other processes of the run that were still running
	// when it ended (or timed out) and were killed.
	Stray int
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
// On timeout or cancellation of ctx every process of the run is killed, so
// grandchildren (a Python interpreter below `seshat pi`, a shell pipeline
// of an exec PI) die with it, even those that left the group (setsid) or
// daemonised (see containment); once the child has exited, whatever it
// left running is killed too, so no stray work overlaps the next run's
// measurement and nothing outlives seshat. On Linux the child dies with
// seshat too (PR_SET_PDEATHSIG; startOnThread), SIGKILL included; what it
// started is then killed by the next seshat run (Reclaim).
func Execute(ctx context.Context, x Exec) Outcome {
	c := newContainment(x.noCgroup)
	defer c.release()
	o := Outcome{Start: time.Now()}
	var report *reportPipe
	if x.Report {
		var err error
		if report, err = newReportPipe(); err != nil {
			o.End, o.ExitCode, o.Err = time.Now(), StartFailureExitCode, err
			return o
		}
		defer report.close()
	}
	start := func() (*exec.Cmd, error) {
		return c.start(func() *exec.Cmd {
			cmd := exec.Command(x.Args[0], x.Args[1:]...)
			cmd.Env = slices.Clone(x.Env)
			cmd.Dir = x.Dir
			cmd.Stdout, cmd.Stderr = x.Stdout, x.Stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if report != nil {
				cmd.ExtraFiles = []*os.File{report.w}
			}
			return cmd
		})
	}
	cmd, done, err := startOnThread(x.CPUs, start)
	if err != nil {
		o.End, o.ExitCode, o.Err = time.Now(), StartFailureExitCode, err
		return o
	}
	pid := cmd.Process.Pid // the leader of its own group
	if report != nil {
		report.started()
	}

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
		killGroup(pid)
		o.Stray += c.kill(pid)
		o.TimedOut = true
		waitErr = <-done
	case <-ctx.Done():
		killGroup(pid)
		o.Stray += c.kill(pid)
		o.Interrupted = true
		waitErr = <-done
	}
	o.End = time.Now()
	killGroup(pid) // stragglers the child left behind
	o.Stray += c.kill(pid)
	if report != nil {
		o.Report = report.read()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.Rusage = ru
	}
	var self syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) == nil {
		o.SelfMaxRSS = int64(self.Maxrss)
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
	case o.Stderr != "":
		return fmt.Sprintf("exit code %d: %s", o.ExitCode, o.Stderr)
	default:
		return fmt.Sprintf("exit code %d", o.ExitCode)
	}
}
