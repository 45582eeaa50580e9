//go:build linux

package runner

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/seshat-bench/seshat/runner/host"
)

// startOnThread runs start, which forks the child, on an OS thread that
// stays locked to one goroutine until the child has been waited for (the
// returned channel tells how the wait ended). The child dies with seshat
// through PR_SET_PDEATHSIG (containment.start), and Linux sends that
// signal when the thread that forked the child ends, not the process: on
// an ordinary goroutine the Go runtime may end that thread while the child
// runs (it does with a thread whose goroutine exits locked to it), which
// would kill a healthy run.
//
// With cpus, the thread's affinity is cpus while it forks: a child
// inherits the mask of the thread that forked it, and so do its own
// children and threads. The mask is set on the one thread, never on
// seshat's process: seshat's other threads, and the runs after an unpinned
// one, keep theirs. If the mask cannot be put back, the goroutine ends
// still locked, once the child is gone, and the runtime ends the thread
// with it.
func startOnThread(cpus []int, start func() (*exec.Cmd, error)) (*exec.Cmd, <-chan error, error) {
	type started struct {
		cmd *exec.Cmd
		err error
	}
	ready := make(chan started, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if len(cpus) > 0 {
			if err := pinThread(cpus, &old); err != nil {
				runtime.UnlockOSThread()
				ready <- started{err: err}
				return
			}
		}
		cmd, err := start()
		restored := len(cpus) == 0 || unix.SchedSetaffinity(0, &old) == nil
		ready <- started{cmd, err}
		if err == nil {
			done <- cmd.Wait()
		}
		if restored {
			runtime.UnlockOSThread()
		}
	}()
	s := <-ready
	return s.cmd, done, s.err
}

// pinThread sets the calling thread's affinity to cpus, and what it was
// into old.
func pinThread(cpus []int, old *unix.CPUSet) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedGetaffinity(0, old); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin to CPUs %s: sched_setaffinity: %w", host.FormatCPUList(cpus), err)
	}
	return nil
}
