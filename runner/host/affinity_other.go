//go:build !linux

package host

import "runtime"

// AllowedCPUs returns the CPUs this process may run on: without Linux's
// affinity masks, 0 to runtime.NumCPU()-1.
func AllowedCPUs() ([]int, error) {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus, nil
}
