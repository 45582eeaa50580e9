//go:build !linux

package runner

// Reclaimed is what Reclaim cleaned up after a seshat that is gone.
type Reclaimed struct {
	Cgroups   []string
	Processes int
}

// Reclaim does nothing without Linux's cgroups and /proc.
func Reclaim() (Reclaimed, error) { return Reclaimed{}, nil }
