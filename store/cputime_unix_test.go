//go:build unix

package store

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the test process has used: a
// benchmark figure that a busy neighbour changes less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
