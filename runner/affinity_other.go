//go:build !linux

package runner

import (
	"errors"
	"os/exec"
)

// startOnThread starts the child and waits for it on a goroutine of its
// own. Pinning it to CPUs (--cpus) needs Linux's sched_setaffinity, and
// there is no PR_SET_PDEATHSIG to tie to a thread.
func startOnThread(cpus []int, start func() (*exec.Cmd, error)) (*exec.Cmd, <-chan error, error) {
	if len(cpus) > 0 {
		return nil, nil, errors.New("pinning a run to CPUs (--cpus) needs Linux")
	}
	cmd, err := start()
	if err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done, nil
}
