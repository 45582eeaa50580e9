package importers

import (
	"math"
	"slices"
	"strings"
	"time"
)

// timeUnitSeconds is a benchmark tool's time unit in seconds: Google
// Benchmark's ns, us, ms and s, and JMH's TimeUnit names (ns, us, ms, s,
// min, hr, day).
func timeUnitSeconds(unit string) (float64, bool) {
	switch strings.TrimSpace(unit) {
	case "ns":
		return 1e-9, true
	case "us", "µs":
		return 1e-6, true
	case "ms":
		return 1e-3, true
	case "s":
		return 1, true
	case "min":
		return 60, true
	case "hr", "h":
		return 3600, true
	case "day", "d":
		return 86400, true
	}
	return 0, false
}

// median of xs (not modified); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// measurement tells whether every x can be a measurement: finite and not
// negative.
func measurement(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return false
		}
	}
	return true
}

// endAfter is start plus seconds, when seconds is a duration a run can
// have (else start).
func endAfter(start time.Time, seconds float64) time.Time {
	if seconds > 0 && seconds < maxRunSeconds {
		return start.Add(time.Duration(seconds * float64(time.Second)))
	}
	return start
}
