package models

import "testing"

// TestCPUPressure: the growth of the stall count over the run's wall
// time, at most 1; unknown without both counts, a wall time, or with a
// count that went back (a reboot between them).
func TestCPUPressure(t *testing.T) {
	t.Parallel()
	state := func(us int64) *HostState { return &HostState{CPUStallUS: &us} }
	for _, c := range []struct {
		name string
		u    *Usage
		want float64
		ok   bool
	}{
		{"a quarter", &Usage{WallSeconds: 4, HostStart: state(1_000_000), HostEnd: state(2_000_000)}, 0.25, true},
		{"none", &Usage{WallSeconds: 4, HostStart: state(5), HostEnd: state(5)}, 0, true},
		{"more than the wall time (clock granularity)", &Usage{WallSeconds: 1, HostStart: state(0), HostEnd: state(1_200_000)}, 1, true},
		{"no end", &Usage{WallSeconds: 4, HostStart: state(5), HostEnd: &HostState{LoadAvg: []float64{1, 1, 1}}}, 0, false},
		{"no start", &Usage{WallSeconds: 4, HostEnd: state(5)}, 0, false},
		{"no wall time", &Usage{HostStart: state(1), HostEnd: state(5)}, 0, false},
		{"went back", &Usage{WallSeconds: 4, HostStart: state(9), HostEnd: state(5)}, 0, false},
		{"no usage", nil, 0, false},
	} {
		if got, ok := c.u.CPUPressure(); got != c.want || ok != c.ok {
			t.Errorf("%s: CPUPressure = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
