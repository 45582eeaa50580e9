//go:build !linux

package runner

import (
	"errors"
	"os/exec"
)

// startPinned refuses: pinning a child to CPUs needs Linux's
// sched_setaffinity.
func startPinned([]int, func() (*exec.Cmd, error)) (*exec.Cmd, error) {
	return nil, errors.New("pinning a run to CPUs (--cpus) needs Linux")
}
