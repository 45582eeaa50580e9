//go:build linux

package host

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// AllowedCPUs returns the CPUs this process may run on (its
// sched_getaffinity mask): those a child can be pinned to. A container's
// cpuset, taskset or numactl narrow it below the online CPUs.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for c, n := 0, set.Count(); len(cpus) < n && c < maxCPU; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
