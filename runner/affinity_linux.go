//go:build linux

package runner

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/seshat-bench/seshat/runner/host"
)

// startPinned runs start, which forks the child, on an OS thread whose
// affinity is cpus: a child inherits the mask of the thread that forked
// it, and so do its own children and threads. The mask is set on the one
// thread, never on seshat's process: seshat's other threads, and the runs
// after an unpinned one, keep theirs. The work happens on a goroutine of
// its own: if the thread's mask cannot be put back, the goroutine ends
// still locked to it and the Go runtime ends that thread with it.
func startPinned(cpus []int, start func() (*exec.Cmd, error)) (*exec.Cmd, error) {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	type started struct {
		cmd *exec.Cmd
		err error
	}
	done := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			done <- started{err: fmt.Errorf("sched_getaffinity: %w", err)}
			return
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			runtime.UnlockOSThread()
			done <- started{err: fmt.Errorf("pin to CPUs %s: sched_setaffinity: %w", host.FormatCPUList(cpus), err)}
			return
		}
		cmd, err := start()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		done <- started{cmd, err}
	}()
	s := <-done
	return s.cmd, s.err
}
