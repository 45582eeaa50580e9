package analyze

import (
	"fmt"
	"math"
)

// HostLoadRatio and HostLoadMargin bound how far the host's load at the
// start of the current runs may be from that of the builds they are judged
// against before the host, not the code, may explain a change: busier when
// the current load is above HostLoadRatio times the highest reference load
// and above it by HostLoadMargin, quieter when below the lowest by the same.
//
// The rule is Seshat's own, not a published method; pyperf's `system show`
// and Chromium's perf bots treat a loaded host alike (a warning, a bot taken
// out), and Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time",
// ISMM 2013) show that variation between executions, which the machine's
// state drives, is not averaged away by more measurements within one. The
// bounds come from bench/realhost on the 2-core developer
// machine: history builds stored at load 1.2–1.5 (the PI itself counts one),
// identical code failed in jobs at load 2.4–3.0 (max RSS of Go code,
// CPU time of numpy, elapsed time) and in none below 2.3.
const (
	HostLoadRatio  = 1.5
	HostLoadMargin = 0.5
)

// HostReason begins the reason of a result that a change of the host's
// load can explain.
const HostReason = "the host's load differs from the history's"

// HostChange compares the host's load at the start of the current runs
// with that of the reference builds (their HostLoad): +1 when the host was
// busier now, -1 when quieter, 0 when comparable or unknown (the current
// load, or that of more than half the reference builds, not recorded).
// low and high are the reference builds' lowest and highest loads.
func HostChange(current Point, reference []Point) (change int, low, high float64) {
	low, high = math.Inf(1), math.Inf(-1)
	known := 0
	for _, p := range reference {
		if math.IsNaN(p.HostLoad) {
			continue
		}
		known++
		low, high = math.Min(low, p.HostLoad), math.Max(high, p.HostLoad)
	}
	now := current.HostLoad
	if math.IsNaN(now) || known == 0 || 2*known < len(reference) {
		return 0, math.NaN(), math.NaN()
	}
	switch {
	case now > HostLoadRatio*high && now-high >= HostLoadMargin:
		return 1, low, high
	case now*HostLoadRatio < low && low-now >= HostLoadMargin:
		return -1, low, high
	}
	return 0, low, high
}

// ExplainedByHost makes noisy a regression measured on a busier host, or
// an improvement on a quieter one, than the reference builds were measured
// on (HostChange): a slower host cannot be told from slower code with
// history alone. A regression on a quieter host, an improvement on a busier
// one, stand: the host would hide them, not make them. It tells whether it
// changed r.
func ExplainedByHost(r *Result, current Point, reference []Point) bool {
	change, low, high := HostChange(current, reference)
	var state string
	switch {
	case change > 0 && r.Status == StatusRegression:
		state = "busier"
	case change < 0 && r.Status == StatusImprovement:
		state = "quieter"
	default:
		return false
	}
	span := fmt.Sprintf("%.1f", low)
	if high-low >= 0.05 {
		span = fmt.Sprintf("%.1f–%.1f", low, high)
	}
	r.Reason = fmt.Sprintf("%s: %s now (load %.1f at the current runs' start, %s in the builds judged against), which can explain a %s of %+.1f%%; judge it with --baseline (A/B in one job) or on a host as loaded as the history's",
		HostReason, state, current.HostLoad, span, r.Status, r.DeltaPercent)
	r.Status = StatusNoisy
	return true
}
